"""Package indexes: the one reader of simple index pages (PEP 691 JSON, preferred, or PEP 503
HTML) and find-links folders, the one notion of "a file of this release", and downloads with
their SHA-256 checked.

Every page is validated before a file of it counts: an answer that is not a simple index page
(an HTML error page answering 200, a ``text/plain`` body, JSON without PEP 691's
``meta.api-version`` and ``files``) is a :class:`NotAnIndex` naming the URL and what was found,
never "the index holds nothing"; only a 404 means "no such project". What a valid page is
(docs/release/invariants.md, "What mlrelease assumes of the index"):

- JSON (``application/vnd.pypi.simple.v1+json``): an object with ``meta.api-version`` 1.x, the
  project's ``name`` and a ``files`` list whose entries have a ``filename``, a ``url`` and a
  ``hashes`` object;
- HTML (``text/html``): a page declaring PEP 629's ``pypi:repository-version`` 1.x (it may list
  no file), or, without it (pypiserver 2.x serves none), a page of at least one link whose every
  link is a distribution file (wheel, sdist or a legacy format).

Yanked files (``data-yanked``, JSON ``yanked``) are read, not dropped: an installer still
picks a yanked file for an exact pin, so a yanked foreign file of a release is still foreign.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse

from packaging.utils import canonicalize_name

from mlrelease.edges import web
from mlrelease.edges.digests import sha256
from mlrelease.edges.distnames import distribution, is_distribution, of_release
from mlrelease.errors import UserError

__all__ = ["IndexFile", "NotAnIndex", "distribution", "is_distribution", "of_release"]

PYPI_SIMPLE = "https://pypi.org/simple"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPES = ("text/html", "application/vnd.pypi.simple.v1+html")
ACCEPT = f"{JSON_TYPE}, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"
_UPLOAD_TO_SIMPLE = {
    "upload.pypi.org": "https://pypi.org/simple/",
    "test.pypi.org": "https://test.pypi.org/simple/",
}


class NotAnIndex(UserError):
    """A server answered 200 with something that is not a simple index page."""


@dataclass(frozen=True)
class IndexFile:
    """One distribution file of a project on an index or in a folder (the one type)."""

    filename: str
    url: str
    """``https://...`` or ``file:///...``."""
    sha256: str = ""
    """"" when the index gives none (see :func:`hashed`)."""
    yanked: bool = False
    downloaded: bool = False
    """The SHA-256 was computed here, from a download (the index gave none)."""

    @property
    def version(self) -> Any:
        """The file's :class:`~packaging.version.Version` from its name (None: not a wheel or
        sdist name)."""
        found = distribution(self.filename)
        return found[1] if found else None

    @property
    def is_sdist(self) -> bool:
        return self.filename.endswith((".tar.gz", ".zip"))

    def of_release(self, project: str, version: Any) -> bool:
        return of_release(self.filename, project, version)


def simple_url(repository_url: str) -> str:
    """The simple index of an upload URL (PyPI's, TestPyPI's, or ``URL/simple/`` for a
    pypiserver-style index that takes uploads at its root)."""
    host = urlparse(repository_url).hostname or ""
    if host in _UPLOAD_TO_SIMPLE:
        return _UPLOAD_TO_SIMPLE[host]
    return repository_url.rstrip("/") + "/simple/"


def page_url(index_url: str, project: str) -> str:
    """The project page of ``project`` on the simple index at ``index_url``."""
    return index_url.rstrip("/") + "/" + canonicalize_name(project) + "/"


class _Page(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base
        self.files: list[IndexFile] = []
        self.others: list[str] = []
        """Links that are no distribution file."""
        self.repository_version: str | None = None
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and found.get("name") == "pypi:repository-version":
            self.repository_version = found.get("content") or ""
        self._in_title = tag == "title"
        href = found.get("href") if tag == "a" else None
        if tag != "a":
            return
        url, _, fragment = urljoin(self.base, href or "").partition("#")
        name = urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]
        if not href or not is_distribution(name):
            self.others.append(href or "(a link without href)")
            return
        algo, _, digest = fragment.partition("=")
        sha = digest.lower() if algo == "sha256" and len(digest) == 64 else ""
        self.files.append(IndexFile(name, url, sha, "data-yanked" in found))

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data.strip()


def _major_1(version: object) -> bool:
    return isinstance(version, str) and version.split(".")[0] == "1"


def _not_index(url: str, found: str) -> NotAnIndex:
    return NotAnIndex(
        f"{url} answered 200 with {found}: not a simple index page (PEP 503 HTML or PEP 691 "
        "JSON), so what the index holds is unknown (it is not taken as 'no files'). Check the "
        "index URL (its simple index, not a web page or an upload endpoint) and the server."
    )


def _from_html(url: str, text: str) -> list[IndexFile]:
    page = _Page(url)
    page.feed(text)
    title = f" titled {page.title[:80]!r}" if page.title else ""
    declared = page.repository_version
    if declared is not None and not _major_1(declared):
        raise _not_index(url, f"an HTML page of pypi:repository-version {declared!r} (1.x read)")
    if page.others:
        shown = ", ".join(repr(o[:80]) for o in page.others[:3])
        raise _not_index(url, f"an HTML page{title} linking to {shown}, no distribution files")
    if declared is None and not page.files:
        raise _not_index(
            url, f"an HTML page{title} that lists no file and declares no pypi:repository-version"
        )
    return page.files


def _json_file(url: str, item: object) -> IndexFile:
    if not isinstance(item, dict) or not all(
        isinstance(item.get(k), t) for k, t in (("filename", str), ("url", str), ("hashes", dict))
    ):
        shown = str(item)[:120]
        raise _not_index(url, f"PEP 691 JSON whose file entry {shown!r} lacks filename/url/hashes")
    sha = str(item["hashes"].get("sha256", "")).lower()
    yanked = item.get("yanked", False)
    return IndexFile(item["filename"], urljoin(url, item["url"]), sha, bool(yanked))


def _from_json(url: str, body: bytes, project: str) -> list[IndexFile]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _not_index(url, f"{JSON_TYPE} that does not parse ({exc})") from None
    meta = data.get("meta") if isinstance(data, dict) else None
    version = meta.get("api-version") if isinstance(meta, dict) else None
    if not _major_1(version) or not isinstance(data.get("files"), list):
        shown = body[:120].decode("utf-8", errors="replace")
        raise _not_index(url, f"JSON without PEP 691's meta.api-version 1.x and files ({shown!r})")
    name = data.get("name")
    if isinstance(name, str) and canonicalize_name(name) != canonicalize_name(project):
        raise _not_index(url, f"the PEP 691 page of another project ({name!r})")
    return [_json_file(url, item) for item in data["files"]]


def project_page(url: str, project: str) -> list[IndexFile] | None:
    """Every file the project page at ``url`` lists (None: 404, no such project); a page that
    is not a simple index raises :class:`NotAnIndex`."""
    answer = web.get(url, accept=ACCEPT)
    if answer.status == 404:
        return None
    kind = answer.content_type
    if kind in (JSON_TYPE, "application/json"):
        return _from_json(url, answer.body, project)
    if kind in HTML_TYPES:
        return _from_html(url, answer.text)
    shown = answer.body[:80].decode("utf-8", errors="replace")
    raise _not_index(url, f"{kind or 'no Content-Type'} ({shown!r})")


def project_files(index_url: str, project: str) -> list[IndexFile]:
    """Every file of ``project`` on the simple index at ``index_url`` (empty: no such
    project, a 404)."""
    return project_page(page_url(index_url, project), project) or []


def folder_files(folder: Path, project: str) -> list[IndexFile]:
    """The files of ``project`` in a find-links folder (no hashes: they are read when used)."""
    if not folder.is_dir():
        return []
    wanted = canonicalize_name(project)
    found = []
    for path in sorted(folder.iterdir()):
        parsed = distribution(path.name, project)
        if parsed is not None and parsed[0] == wanted:
            found.append(IndexFile(path.name, path.resolve().as_uri()))
    return found


def files(
    project: str, *, index_url: str = "", find_links: tuple[str, ...] = ()
) -> list[IndexFile]:
    """Files of ``project`` in the find-links folders, then on the index (when given)."""
    found: list[IndexFile] = []
    for link in find_links:
        parsed = urlparse(link)
        if parsed.scheme in ("http", "https"):
            continue  # a find-links page: the index below is asked instead
        found += folder_files(Path(parsed.path if parsed.scheme == "file" else link), project)
    if index_url:
        found += project_files(index_url, project)
    return found


def hashed(file: IndexFile) -> IndexFile:
    """``file`` with its SHA-256 proven: the index's own, else downloaded and hashed here."""
    if file.sha256:
        return file
    with tempfile.TemporaryDirectory(prefix="mlrelease-hash-") as tmp:
        got = download(file, Path(tmp))
        return replace(file, sha256=sha256(got), downloaded=True)


def download(file: IndexFile, folder: Path) -> Path:
    """``file`` into ``folder`` (atomically), its SHA-256 checked when the index gave one."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / file.filename
    if target.is_file() and file.sha256 and sha256(target) == file.sha256:
        return target
    handle, partial = tempfile.mkstemp(dir=folder, prefix=".partial-")
    try:
        with open(handle, "wb") as out:
            if file.url.startswith("file:"):
                with open(Path(urlparse(file.url).path), "rb") as source:
                    shutil.copyfileobj(source, out)
            else:
                web.copy(file.url, out)
        got = sha256(Path(partial))
        if file.sha256 and got != file.sha256:
            raise UserError(
                f"{file.url}: SHA-256 {got} differs from the index's {file.sha256}; the "
                "download was corrupted or the file was replaced. Nothing was kept."
            )
        Path(partial).replace(target)
        return target
    except OSError as exc:
        raise UserError(f"cannot download {file.url} ({exc}).") from None
    finally:
        Path(partial).unlink(missing_ok=True)
