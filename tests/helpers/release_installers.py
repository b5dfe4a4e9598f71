"""The release machine's rules for #48, kept apart from the others: the index as installers
read it, and a fork's tags in this clone. The rules do not run mlrelease; :func:`before` and
:func:`after`, around every maintainer step, judge what mlrelease did.

- ``index_entry_url``: from now on the index (its one URL, the proxy in front of pypiserver)
  serves its page as PEP 691 JSON with an entry installers read otherwise than it is named: a
  foreign wheel whose entry is named ``demo-1.4.0.asc`` (#48 as filed), the bound wheel's name
  on foreign bytes stating the bound SHA-256, a ``payload.tar.gz#egg=demo-1.4.0``, or the bound
  wheel's PEP 658 metadata file requiring another package; or it stops. pypiserver cannot
  serve these: the proxy of :mod:`helpers.error_index` does (``"pep691"`` mode).
- ``index_states``: from now on the index (the same proxy, PEP 691 JSON) states something of
  the bound wheel that its bytes or its metadata contradict (the fifth adversary): a wrong
  ``#sha512=`` in its URL (pip refuses the file), a wrong MD5 beside the right SHA-256 in its
  ``hashes`` (an installer checking every hash it knows refuses it), or a ``requires-python``
  of ``<3`` (pip skips it); or it stops. Installers then get no bound wheel from it.
- ``fork_rc_tag``: an RC tag of a fork (annotated as ``release rc`` writes it, ``Made-by``
  line and all), on the fork's own commit or on origin's release branch tip, pushed to the
  fork and fetched into this clone; ``drop_fork_tags``: the maintainer deletes them, as
  mlrelease advises.

The oracle (invariant (a) read as installers read it, and the fork's tags): nothing is
uploaded while the index serves installers something that is no bound file (before the
step), the final tag is pushed only while it serves exactly one binding's files, a fork's tag
object never reaches origin, and mlrelease never advises pushing one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import rule

from helpers import release_oracle as oracle
from helpers.release_adversary import _other_files
from helpers.release_environment import fork_of

WHEEL, SDIST = "demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"
TAGGED = "demo-1.4.0-1-py3-none-any.whl"
EGG = "payload.tar.gz#egg=demo-1.4.0"
EVIL_METADATA = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.4.0\nRequires-Dist: evil-dep\n"
HOSTILE = ("asc", "lying-hash", "egg", "metadata")
STATEMENTS = ("sha512", "md5", "requires-python")
RC_TAGS = ("v1.4.0-rc1", "v1.4.0-rc2")
BINARY = "application/octet-stream"


def _sh(root: Path, *args: str) -> Any:
    from helpers.release_machine import sh

    return sh(root, *args)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reset(self: Any) -> None:
    """A new example: an honest index, no fork tags."""
    self.hostile = None
    self.statement = None
    self.fork_objects = set()
    self.foreign = {}


@rule(kind=st.sampled_from([None, *HOSTILE]))
def index_entry_url(self: Any, kind: str | None) -> None:
    """The index serves an entry installers read otherwise than it is named, or stops."""
    self.hostile = kind


@rule(kind=st.sampled_from([None, *STATEMENTS]))
def index_states(self: Any, kind: str | None) -> None:
    """The index states a hash or a Python for the bound wheel that it does not have, or
    stops."""
    self.statement = kind


def _state(self: Any, folder: dict[str, str], served: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Amend the bound wheel's entry with the statement of :func:`index_states` (the proxy in
    ``"pep691"`` mode); what installers get then: no bound wheel."""
    kind, proxy = self.statement, self.harness.proxy
    if kind is None or WHEEL not in folder:
        return served
    proxy.mode = "pep691"
    entry = proxy.amend.setdefault(WHEEL, {})
    if kind == "sha512":
        url = str(entry.get("url", f"/packages/{WHEEL}")).partition("#")[0]
        entry["url"] = f"{url}#sha512={'0' * 128}"
    elif kind == "md5":
        entry["hashes"] = {"sha256": folder[WHEEL], "md5": "0" * 32}
    else:
        entry["requires-python"] = "<3"
    return {p for p in served if p[0] != WHEEL}


@rule(own_commit=st.booleans())
def fork_rc_tag(self: Any, own_commit: bool) -> None:
    """The next RC tag origin lacks, made in a fork (the annotation ``release rc`` writes),
    fetched here."""
    work, origin = Path(self.work), Path(self.origin)
    theirs = oracle.refs(origin, "refs/tags")
    mine = oracle.refs(work, "refs/tags")
    name = next((t for t in RC_TAGS if f"refs/tags/{t}" not in {**theirs, **mine}), None)
    if name is None:
        return
    fork = fork_of(self)
    clone = Path(self.base) / "fork-clone"
    if not clone.exists():
        _sh(Path(self.base), "clone", "-q", str(fork), str(clone))
    _sh(clone, "fetch", "-q", str(origin), "+refs/heads/*:refs/remotes/upstream/*")
    if _sh(clone, "checkout", "-q", "--detach", "upstream/release/1.4").returncode:
        return
    if own_commit:
        (clone / "FORK.md").write_text("the fork's own work\n")
        _sh(clone, "add", "FORK.md")
        _sh(clone, "commit", "-q", "-m", "feat: the fork's own work")
    number = name.rsplit("rc", 1)[1]
    message = ("-m", f"1.4.0 release candidate {number}", "-m", "Made-by: mlrelease release rc")
    _sh(clone, "tag", "-f", "-a", name, *message)
    _sh(clone, "push", "-q", "-f", "origin", f"refs/tags/{name}:refs/tags/{name}")
    _sh(work, "fetch", "-q", str(fork), f"+refs/tags/{name}:refs/tags/{name}")
    found = oracle.refs(work, "refs/tags").get(f"refs/tags/{name}")
    if found:
        self.fork_objects.add(found)


@rule()
def drop_fork_tags(self: Any) -> None:
    """The maintainer deletes the fork's tags from this clone (``git tag -d``, as advised)."""
    for ref, obj in oracle.refs(Path(self.work), "refs/tags").items():
        if obj in self.fork_objects:
            _sh(Path(self.work), "tag", "-d", ref[len("refs/tags/") :])


def _foreign(self: Any) -> dict[str, bytes]:
    """A foreign wheel and sdist of 1.4.0 (a build of another tree), made once per example."""
    if not getattr(self, "foreign", None):
        folder = _other_files(self)
        self.foreign = {n: (folder / n).read_bytes() for n in (WHEEL, SDIST)}
    return dict(self.foreign)


def _bound_wheel(self: Any) -> str | None:
    """The SHA-256 of the wheel the maintainer bound (its newest binding), if any."""
    found = [files.get(WHEEL) for _, files in self.genuine.bindings.values()]
    return next((s for s in reversed(found) if s), None)


def serve(self: Any) -> set[tuple[str, str]]:
    """Set the index's one URL for the step; what it serves installers now: (the name they
    read, the SHA-256 of what they get)."""
    proxy = self.harness.proxy
    folder = oracle.index_files(Path(self.harness.index))
    served = set(folder.items())
    if proxy is not None:
        proxy.files, proxy.amend, proxy.extra = {}, {}, []
    if proxy is None or self.error_pages:
        return served
    served = _served(self, self.hostile, folder, served)
    return _state(self, folder, served)


def _served(
    self: Any, kind: str | None, folder: dict[str, str], served: set[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Set the proxy for the hostile entry of :func:`index_entry_url`; what installers get."""
    proxy = self.harness.proxy
    if kind is None:
        return served
    proxy.mode = "pep691"
    theirs = _foreign(self)
    url = f"/hostile/{TAGGED}"
    proxy.files[url] = (BINARY, theirs[WHEEL])
    if kind == "asc":
        proxy.extra.append({"filename": "demo-1.4.0.asc", "url": url, "hashes": {}})
        return served | {(TAGGED, _sha(theirs[WHEEL]))}
    if kind == "lying-hash":
        lie = {"url": f"/hostile/{WHEEL}", "hashes": {"sha256": _bound_wheel(self) or "0" * 64}}
        proxy.files[f"/hostile/{WHEEL}"] = (BINARY, theirs[WHEEL])
        proxy.amend[WHEEL] = lie
        if WHEEL not in folder:
            proxy.extra.append({"filename": WHEEL, **lie})
        return {p for p in served if p[0] != WHEEL} | {(WHEEL, _sha(theirs[WHEEL]))}
    if kind == "egg":
        proxy.files["/hostile/payload.tar.gz"] = (BINARY, theirs[SDIST])
        proxy.extra.append({"filename": "payload.tar.gz", "url": f"/hostile/{EGG}", "hashes": {}})
        return served | {(EGG, _sha(theirs[SDIST]))}
    if WHEEL in folder:  # metadata: the bound wheel's metadata file requires another package
        proxy.files[f"/packages/{WHEEL}.metadata"] = ("text/plain", EVIL_METADATA)
        proxy.amend[WHEEL] = {"core-metadata": {"sha256": _sha(EVIL_METADATA)}}
        served.add((f"{WHEEL}.metadata", _sha(EVIL_METADATA)))
    return served


@dataclass(frozen=True)
class Seen:
    """The world before a maintainer step, as this oracle reads it."""

    served: frozenset[tuple[str, str]]
    index: dict[str, str]
    origin_tags: dict[str, str]


def before(self: Any) -> Seen:
    """Before a maintainer step: the index set for it, and what installers get from it."""
    served = frozenset(serve(self))
    index = oracle.index_files(Path(self.harness.index))
    return Seen(served, index, oracle.refs(Path(self.origin), "refs/tags"))


def after(self: Any, seen: Seen, out: str) -> list[str]:
    """What the step broke: an upload while the index served installers something unbound,
    the final tag pushed while it served other than one binding's files, a fork's tag pushed
    to origin or advised to be."""
    found: list[str] = []
    bindings = [set(files.items()) for _, files in self.genuine.bindings.values()]
    bound = set().union(*bindings) if bindings else set()
    unbound = sorted(n for n, s in seen.served if (n, s) not in bound)
    uploaded = oracle.index_files(Path(self.harness.index)) != seen.index
    if uploaded and unbound:
        found.append(f"(a) uploaded while the index served installers {unbound}")
    origin_tags = oracle.refs(Path(self.origin), "refs/tags")
    final = f"refs/tags/{oracle.FINAL}"
    if origin_tags.get(final) not in (None, seen.origin_tags.get(final)):
        served = serve(self)
        if served not in bindings:
            found.append(f"(a) {oracle.FINAL} was pushed while installers got {sorted(served)}")
    for ref, obj in origin_tags.items():
        if obj in self.fork_objects and seen.origin_tags.get(ref) != obj:
            found.append(f"a fork's tag {ref} was pushed to origin")
    local = oracle.refs(Path(self.work), "refs/tags")
    for name in re.findall(r"git push \S+ refs/tags/([^\s:`]+):", out):
        if local.get(f"refs/tags/{name}") in self.fork_objects:
            found.append(f"pushing the fork's tag {name} was advised")
    return found
