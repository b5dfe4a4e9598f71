"""Invariant (a), the index read as installers read it (#48): a file of the release is what an
installer downloads, from the URL it would use, never what an entry calls itself.

The honest index is pypiserver on 127.0.0.1, holding the bound files (published by
``release publish``). A hostile index serves crafted simple pages (PEP 691 JSON, PEP 503 HTML,
each to the client that asks), files on another host and redirects, which pypiserver cannot
serve: it is played by the small proxy of :mod:`helpers.error_index` in front of pypiserver
(the allowed stand-in), and a second proxy plays the other host. Where the attack fools a real
installer, ``pip download`` shows it (pip reads a file's name and version from its URL, and the
URL's ``#sha256=`` over PEP 691's ``hashes``). Each attack passed promote before the fix.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.error_index import Proxy, proxied
from helpers.invariants import RC, bound_files, hashes, other_build
from helpers.release import Repo

WHEEL, SDIST = "demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"
TAGGED = "demo-1.4.0-1-py3-none-any.whl"
"""A foreign wheel's name that pip prefers to the bound wheel (a higher build tag)."""
PROMOTE = ("release", "promote", "--rc", RC, "--execute", "--push", "--repository-url")
EVIL_METADATA = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.4.0\nRequires-Dist: evil-dep\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Scene:
    """The bound files on pypiserver, the hostile index in front of it, another host, and the
    foreign files (a build of another tree)."""

    index: Proxy
    other: Proxy
    bound: dict[str, bytes]
    theirs: dict[str, bytes]
    pip_gets: str | None = None
    """The file ``pip download demo==1.4.0`` must get from the hostile index (the attack is
    real for an installer), or None when pip is not asked."""
    said: list[str] = field(default_factory=list)
    """What promote's refusal must name."""
    pip_refuses: bool = False
    """``pip download demo==1.4.0`` gets nothing (the release cannot be installed)."""

    def elsewhere(self, name: str, data: bytes) -> str:
        """``data`` served as ``name`` by the other host; its URL."""
        self.other.files[f"/files/{name}"] = ("application/octet-stream", data)
        return f"{self.other.url}files/{name}"

    def honest(self, **extra: object) -> list[dict[str, object]]:
        """PEP 691 entries of the bound files, as pypiserver holds them (relative URLs)."""
        return [
            {"filename": n, "url": f"../../packages/{n}", "hashes": {"sha256": sha(d)}, **extra}
            for n, d in sorted(self.bound.items())
        ]

    def json(self, files: list[dict[str, object]]) -> None:
        page = {"meta": {"api-version": "1.1"}, "name": "demo", "files": files}
        self.index.mode, self.index.json_page = "json", json.dumps(page)

    def html(self, anchors: list[str], head: str = "") -> str:
        links = "".join(f"{a}<br>\n" for a in anchors)
        return f"<!DOCTYPE html><html><head>{head}</head><body>\n{links}</body></html>"


def _asc_name(s: Scene) -> None:
    """#48 as filed: an entry named ``demo-1.4.0.asc`` whose URL is a foreign wheel."""
    url = s.elsewhere(TAGGED, s.theirs[WHEEL])
    entry = {"filename": "demo-1.4.0.asc", "url": url, "hashes": {"sha256": sha(s.theirs[WHEEL])}}
    s.json([entry, *s.honest()])
    s.pip_gets, s.said = TAGGED, ["demo-1.4.0.asc", TAGGED]


def _fragment_lies(s: Scene) -> None:
    """The bound wheel's entry states the bound SHA-256 in ``hashes``, but its URL, on another
    host, carries the foreign wheel's ``#sha256=``: pip checks the fragment and installs it."""
    url = s.elsewhere(WHEEL, s.theirs[WHEEL]) + f"#sha256={sha(s.theirs[WHEEL])}"
    files = [f for f in s.honest() if f["filename"] != WHEEL]
    files.insert(0, {"filename": WHEEL, "url": url, "hashes": {"sha256": sha(s.bound[WHEEL])}})
    s.json(files)
    s.pip_gets, s.said = WHEEL, [WHEEL]


def _other_host_lies(s: Scene) -> None:
    """The bound wheel's entry points at another host serving other bytes, stating the bound
    SHA-256: an installer gets a hash mismatch, and the release cannot be installed."""
    url = s.elsewhere(WHEEL, s.theirs[WHEEL])
    files = [f for f in s.honest() if f["filename"] != WHEEL]
    files.append({"filename": WHEEL, "url": url, "hashes": {"sha256": sha(s.bound[WHEEL])}})
    s.json(files)
    s.said = [WHEEL, sha(s.theirs[WHEEL])[:16]]


def _redirect(s: Scene) -> None:
    """The bound wheel's URL is the index's own, redirected to the foreign wheel elsewhere."""
    s.index.redirects[f"/moved/{WHEEL}"] = s.elsewhere(WHEEL, s.theirs[WHEEL])
    files = [f for f in s.honest() if f["filename"] != WHEEL]
    files.append(
        {"filename": WHEEL, "url": f"/moved/{WHEEL}", "hashes": {"sha256": sha(s.bound[WHEEL])}}
    )
    s.json(files)
    s.said = [WHEEL, sha(s.theirs[WHEEL])[:16]]


def _html_base(s: Scene) -> None:
    """An HTML page whose ``<base href>`` sends every relative link to another host (pip
    resolves links against it), each link stating the bound SHA-256."""
    s.elsewhere(WHEEL, s.theirs[WHEEL])
    s.elsewhere(SDIST, s.theirs[SDIST])
    anchors = [f'<a href="{n}#sha256={sha(d)}">{n}</a>' for n, d in sorted(s.bound.items())]
    s.index.mode = "html"
    s.index.html_page = s.html(anchors, head=f'<base href="{s.other.url}files/">')
    s.said = [WHEEL, sha(s.theirs[WHEEL])[:16]]


def _page_redirect(s: Scene) -> None:
    """The project page redirects (``/simple/demo/`` to a mirror path): its relative URLs are
    relative to where the page was found, whose files are foreign."""
    mirror = "/mirror/simple/demo/"
    s.index.redirects["/simple/demo/"] = mirror
    page = {"meta": {"api-version": "1.1"}, "name": "demo", "files": s.honest()}
    s.index.files[mirror] = ("application/vnd.pypi.simple.v1+json", json.dumps(page).encode())
    for name, data in s.theirs.items():
        s.index.files[f"/mirror/packages/{name}"] = ("application/octet-stream", data)
    s.said = [WHEEL, sha(s.theirs[WHEEL])[:16]]


def _old_installers(s: Scene) -> None:
    """An honest PEP 691 page to a client asking for JSON, and to one asking for HTML only (pip
    before 22.2) a page that adds a foreign wheel."""
    s.json(s.honest())
    url = s.elsewhere(TAGGED, s.theirs[WHEEL])
    anchors = [f'<a href="../../packages/{n}#sha256={sha(d)}">{n}</a>' for n, d in s.bound.items()]
    anchors.append(f'<a href="{url}#sha256={sha(s.theirs[WHEEL])}">{TAGGED}</a>')
    s.index.mode, s.index.html_page = "negotiate", s.html(anchors)
    s.said = [TAGGED]


def _egg_fragment(s: Scene) -> None:
    """An archive named ``payload.tar.gz`` whose URL says ``#egg=demo-1.4.0``."""
    url = s.elsewhere("payload.tar.gz", s.theirs[SDIST]) + "#egg=demo-1.4.0"
    entry = {"filename": "payload.tar.gz", "url": url, "hashes": {"sha256": sha(s.theirs[SDIST])}}
    s.json([*s.honest(), entry])
    s.said = ["payload.tar.gz", "#egg=demo-1.4.0"]


def _lzma_sdist(s: Scene) -> None:
    """A foreign sdist in a format pip builds from (``.tar.lzma``) that the file set missed."""
    name = "demo-1.4.0.tar.lzma"
    url = s.elsewhere(name, s.theirs[SDIST])
    entry = {"filename": name, "url": url, "hashes": {"sha256": sha(s.theirs[SDIST])}}
    s.json([*s.honest(), entry])
    s.said = [name]


def _core_metadata(s: Scene) -> None:
    """The bound wheel's PEP 658 metadata file (what pip resolves with, before it downloads
    the wheel) is not the wheel's own METADATA: it requires another package."""
    s.index.files[f"/packages/{WHEEL}.metadata"] = ("text/plain", EVIL_METADATA)
    files = s.honest()
    for f in files:
        if f["filename"] == WHEEL:
            f["core-metadata"] = {"sha256": sha(EVIL_METADATA)}
    s.json(files)
    s.said = [f"{WHEEL}.metadata"]


def _yanked_spelling(s: Scene) -> None:
    """A yanked foreign wheel under another spelling of the name and the version (held
    before #48 already: installers pinning ``demo==1.4.0`` still pick a yanked file)."""
    name = "DEMO-1.4.0.0-py3-none-any.whl"
    url = s.elsewhere(name, s.theirs[WHEEL])
    entry = {"filename": name, "url": url, "hashes": {"sha256": sha(s.theirs[WHEEL])}}
    s.json([*s.honest(), {**entry, "yanked": "broken"}])
    s.said = [name]


def _sha512_fragment(s: Scene) -> None:
    """The fifth adversary: every bound file linked with a wrong ``#sha512=`` (pip checks the
    strongest hash a link states, and refuses the file)."""
    anchors = [f'<a href="../../packages/{n}#sha512={"0" * 128}">{n}</a>' for n in s.bound]
    s.index.mode, s.index.html_page = "html", s.html(anchors)
    s.pip_refuses, s.said = True, [WHEEL, "sha512 0000000000000000"]


def _md5_hashes(s: Scene) -> None:
    """PEP 691 ``hashes`` state the right SHA-256 and a wrong MD5 (an installer checking every
    hash it knows refuses the file)."""
    s.json([{**f, "hashes": {**f["hashes"], "md5": "0" * 32}} for f in s.honest()])  # type: ignore[dict-item]
    s.said = [WHEEL, "md5 0000000000000000"]


def _unknown_hash(s: Scene) -> None:
    """A hash by an algorithm hashlib lacks: it cannot be checked here."""
    s.json([{**f, "hashes": {**f["hashes"], "blake9": "ab"}} for f in s.honest()])  # type: ignore[dict-item]
    s.said = [WHEEL, "blake9", "algorithm unknown here"]


def _requires_python_html(s: Scene) -> None:
    """PEP 503 ``data-requires-python="<3"`` on the bound files: pip skips them."""
    anchors = [
        f'<a href="../../packages/{n}#sha256={sha(d)}" data-requires-python="&lt;3">{n}</a>'
        for n, d in s.bound.items()
    ]
    s.index.mode, s.index.html_page = "html", s.html(anchors)
    s.pip_refuses, s.said = True, [WHEEL, "requires-python <3"]


def _requires_python_json(s: Scene) -> None:
    """PEP 691 ``requires-python`` on the bound wheel other than its own metadata's."""
    s.json([{**f, "requires-python": "<3"} if f["filename"] == WHEEL else f for f in s.honest()])
    s.said = [WHEEL, "requires-python <3"]


ATTACKS: dict[str, Callable[[Scene], None]] = {
    "asc-name": _asc_name,
    "fragment-lies": _fragment_lies,
    "other-host-lies": _other_host_lies,
    "redirect": _redirect,
    "html-base": _html_base,
    "page-redirect": _page_redirect,
    "old-installers": _old_installers,
    "egg-fragment": _egg_fragment,
    "lzma-sdist": _lzma_sdist,
    "core-metadata": _core_metadata,
    "yanked-spelling": _yanked_spelling,
    "sha512-fragment": _sha512_fragment,
    "md5-hashes": _md5_hashes,
    "unknown-hash": _unknown_hash,
    "requires-python-html": _requires_python_html,
    "requires-python-json": _requires_python_json,
}


@pytest.fixture
def scene(candidate: Repo, colleague: Repo, mlr, index, tmp_path: Path) -> Iterator[Scene]:  # type: ignore[no-untyped-def]
    """The candidate's bound files published to pypiserver; the hostile index and another
    host in front of it; a foreign build of 1.4.0."""
    url, packages = index
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, err
    theirs = other_build(colleague, tmp_path / "theirs")
    with proxied(url) as hostile, proxied(url) as other:
        yield Scene(
            hostile,
            other,
            {n: (packages / n).read_bytes() for n in hashes(packages)},
            {n: (theirs / n).read_bytes() for n in (WHEEL, SDIST)},
        )


def pip_download(index_url: str, folder: Path) -> dict[str, str]:
    """What ``pip download demo==1.4.0`` gets from the simple index at ``index_url``: file
    name -> SHA-256 (empty when pip fails)."""
    folder.mkdir()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--isolated",
            "--no-deps",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "--index-url",
            index_url,
            "-d",
            str(folder),
            "demo==1.4.0",
        ],
        capture_output=True,
        check=False,
        timeout=300,
    )
    return hashes(folder)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_promote_reads_the_index_as_installers_do(
    candidate: Repo, mlr, scene: Scene, tmp_path: Path, attack: str
) -> None:  # type: ignore[no-untyped-def]
    """#48: an index entry was read by its name (and its stated hash), installers read its
    URL (and its bytes). Each attack but ``yanked-spelling`` (held before) passed promote,
    which tagged and pushed v1.4.0."""
    ATTACKS[attack](scene)
    if scene.pip_gets is not None:  # the attack is real: a real installer gets foreign bytes
        got = pip_download(f"{scene.index.url}simple/", tmp_path / "pip")
        assert got == {scene.pip_gets: sha(scene.theirs[WHEEL])}, got
    if scene.pip_refuses:  # the attack is real: the release cannot be installed
        assert pip_download(f"{scene.index.url}simple/", tmp_path / "pip") == {}
    code, _, err = mlr(*PROMOTE, scene.index.url)
    assert code == 1, err
    for words in scene.said:
        assert words in err, err
    assert "Traceback" not in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")


def test_an_honest_index_as_pypi_serves_it_passes(candidate: Repo, mlr, scene: Scene) -> None:  # type: ignore[no-untyped-def]
    """Reading as installers read is no proxy for refusing: PyPI's shape (PEP 691 JSON and
    HTML, absolute URLs to a files host, the wheel's PEP 658 metadata file) passes, and the
    final tag is pushed."""
    files_host = scene.other.url  # relays /packages/ to pypiserver, as a CDN would
    with zipfile.ZipFile(io.BytesIO(scene.bound[WHEEL])) as wheel:
        (member,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = wheel.read(member)
    scene.other.files[f"/packages/{WHEEL}.metadata"] = ("text/plain", metadata)
    entries = scene.honest()
    for entry in entries:
        entry["url"] = f"{files_host}packages/{entry['filename']}"
        if entry["filename"] == WHEEL:
            entry["core-metadata"] = {"sha256": sha(metadata)}
    scene.json(entries)
    anchors = [
        f'<a href="{files_host}packages/{n}#sha256={sha(d)}">{n}</a>'
        for n, d in sorted(scene.bound.items())
    ]
    scene.index.mode, scene.index.html_page = "negotiate", scene.html(anchors)
    code, _, err = mlr(*PROMOTE, scene.index.url)
    assert code == 0, err
    assert candidate.tag_everywhere("v1.4.0")[1] == "v1.4.0"


def test_a_file_name_in_upper_case_is_named(candidate: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    """pypiserver lists ``DEMO-1.4.0.TAR.GZ`` beside the bound files: refused, naming the
    file and why (it was refused as "not a simple index page ... Check the index URL")."""
    url, packages = index
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, err
    (packages / "DEMO-1.4.0.TAR.GZ").write_bytes((packages / SDIST).read_bytes())
    code, _, err = mlr(*PROMOTE, url)
    assert code == 1, err
    assert "DEMO-1.4.0.TAR.GZ (its extension is a distribution file's only once lower" in err
    assert "Check the index URL" not in err and "Traceback" not in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")


def test_publish_proves_a_bound_name_the_index_already_lists(
    candidate: Repo, colleague: Repo, mlr, index, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The bound wheel's name listed on foreign bytes elsewhere, stating the bound SHA-256:
    publish took it as published, uploaded only the sdist beside it, and said done."""
    url, packages = index
    theirs = other_build(colleague, tmp_path / "theirs")
    bound = bound_files(candidate)
    with proxied(url) as hostile, proxied(url) as other:
        other.files[f"/files/{WHEEL}"] = ("application/octet-stream", (theirs / WHEEL).read_bytes())
        entry = {
            "filename": WHEEL,
            "url": f"{other.url}files/{WHEEL}",
            "hashes": {"sha256": bound[WHEEL]},
        }
        page = {"meta": {"api-version": "1.1"}, "name": "demo", "files": [entry]}
        hostile.mode, hostile.json_page = "json", json.dumps(page)
        code, _, err = mlr(
            "release", "publish", "--rc", RC, "--repository-url", hostile.url, "--execute"
        )
    assert code == 1, err
    assert f"other bytes under the bound names: {WHEEL} (downloaded and hashed" in err, err
    assert hostile.uploads == [] and hashes(packages) == {}
