"""The refs of both sides, read once per command: this clone's and origin's (read-only).

Origin's refs are listed with ``ls-remote`` and their objects fetched by SHA, without creating
or moving a local ref: a dry run changes nothing. A remote set to run other programs, or to push
everything (``uploadpack``, ``receivepack``, ``mirror``), is refused here: its refs would not be
what a push reaches.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

from mlrelease.edges import git
from mlrelease.errors import PreconditionError
from mlrelease.release.world.snapshot import BOUND_PREFIX, Refs, Remote, Tag

_LISTED = ("refs/heads/", "refs/tags/", BOUND_PREFIX)


def objects(root: Path, shas: list[str]) -> dict[str, tuple[str, str]]:
    """sha -> (type, raw content) for the objects present here (``git cat-file --batch``)."""
    if not shas:
        return {}
    proc = git.run_bytes(
        root, "cat-file", "--batch", input="".join(f"{s}\n" for s in shas).encode()
    )
    if proc.returncode != 0:
        raise git.GitError(f"git cat-file --batch failed: {proc.stderr.decode(errors='replace')}")
    out, pos, found = proc.stdout, 0, {}
    for sha in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split()
        pos = end + 1
        if len(header) < 3 or header[1] == "missing":
            continue
        size = int(header[2])
        found[sha] = (header[1], out[pos : pos + size].decode("utf-8", errors="replace"))
        pos += size + 1
    return found


def _tag_from(name: str, obj: str, peeled: str | None, seen: tuple[str, str] | None) -> Tag:
    kind, content = seen or ("", "")
    if kind != "tag":
        return Tag(name, obj, obj if kind == "commit" else peeled, False)
    head, _, message = content.partition("\n\n")
    target = next((ln[7:] for ln in head.splitlines() if ln.startswith("object ")), None)
    return Tag(name, obj, peeled or target, True, message.split("-----BEGIN PGP")[0])


Seen = dict[str, tuple[str, str]]
"""sha -> (type, raw content) of the objects read so far (:func:`objects`): an object's
content is its SHA's, so one read serves both sides."""


def _refs(root: Path, listed: dict[str, str], peeled: dict[str, str], seen: Seen) -> Refs:
    """Refs from ref -> object and ref -> peeled commit (tags' objects not in ``seen`` read in
    one batch, and added to it)."""
    tagged = {o for r, o in listed.items() if r.startswith("refs/tags/")}
    seen.update(objects(root, sorted(tagged - seen.keys())))
    heads: dict[str, str] = {}
    tags: dict[str, Tag] = {}
    bindings: dict[str, dict[str, str]] = {}
    for ref, obj in listed.items():
        if ref.startswith("refs/heads/"):
            heads[ref[len("refs/heads/") :]] = obj
        elif ref.startswith("refs/tags/"):
            name = ref[len("refs/tags/") :]
            tags[name] = _tag_from(name, obj, peeled.get(ref), seen.get(obj))
        elif ref.startswith(BOUND_PREFIX):
            rc, _, digest = ref[len(BOUND_PREFIX) :].rpartition("/")
            if rc:
                bindings.setdefault(rc, {})[digest] = obj
    return Refs(heads, tags, bindings)


def read_local(root: Path, seen: Seen | None = None) -> Refs:
    """The local branches, tags (with type and annotation) and bindings (``seen``: the objects
    already read, :func:`read_origin`'s)."""
    out = git.run(
        root,
        "for-each-ref",
        "--format=%(refname) %(objectname) %(*objectname)",
        *(p.rstrip("/") for p in _LISTED),
    )
    listed: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in out.splitlines():
        ref, obj, *rest = line.split(" ")
        listed[ref] = obj
        if rest and rest[0]:
            peeled[ref] = rest[0]
    return _refs(root, listed, peeled, {} if seen is None else seen)


def read_origin(root: Path, name: str, seen: Seen | None = None) -> Remote | None:
    """Origin's refs, with their objects fetched (by SHA; no local ref moves); None when no
    remote is configured. An unreachable remote is refused: its tags must count. The objects
    read on the way are added to ``seen``."""
    if not name or name not in git.run(root, "remote").split():
        return None
    overrides = git.remote_overrides(root, name)
    if overrides:
        unset = " && ".join(f"git config --unset {o.split(' = ')[0]}" for o in overrides)
        raise PreconditionError(
            f"remote {name!r} is set to run other programs or push everything "
            f"({'; '.join(overrides)}): its refs would not be read, or a push would not go, "
            f"where mlrelease checks. Unset them (`{unset}`), then re-run."
        )
    proc = git.call_git(root, "ls-remote", name)
    if proc.returncode != 0:
        raise PreconditionError(
            f"cannot list the refs of remote {name!r}: {proc.stderr.strip()}. Fix the connection, "
            'or set [tool.mlrelease.release] remote = "" to work on local refs only.'
        )
    listed, peeled = _listing(proc.stdout, _LISTED)
    seen = {} if seen is None else seen
    seen.update(fetch_objects(root, name, sorted(set(listed.values()))))
    fetch_url, push_urls = git.remote_urls(root, name)
    return Remote(name, _refs(root, listed, peeled, seen), fetch_url, push_urls)


def _listing(out: str, prefixes: tuple[str, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """(ref -> object, ref -> peeled commit) of ``git ls-remote`` output, for the refs under
    ``prefixes``."""
    listed: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.endswith("^{}"):
            peeled[ref[:-3]] = sha
        elif ref.startswith(prefixes):
            listed[ref] = sha
    return listed, peeled


def fetch_objects(root: Path, source: str, wanted: list[str], *options: str) -> Seen:
    """Fetch the objects ``wanted`` this repository lacks from ``source``, by SHA (no ref
    moves); the objects that were present (read to know which lack)."""
    present = objects(root, wanted)  # once: per sha it was one batch per ref (25 s on 1000 refs)
    lacking = [s for s in wanted if s not in present]
    if not lacking:
        return present
    fetched = git.call_git(
        root, "fetch", "-q", "--no-tags", "--no-write-fetch-head", *options, source, *lacking
    )
    if fetched.returncode != 0:
        raise PreconditionError(
            f"cannot fetch the objects of {source}'s refs ({fetched.stderr.strip()}); did "
            f"someone move them while this command read them? Re-run it."
        )
    return present


def ls_remote(
    store: Path, url: str, prefixes: tuple[str, ...] = _LISTED
) -> tuple[dict[str, str], dict[str, str]]:
    """(ref -> object, ref -> peeled commit) of the refs under ``prefixes`` of the repository at
    ``url`` (another project's origin); a :class:`PreconditionError` naming ``url`` when it
    cannot be listed."""
    proc = git.call_git(store, "ls-remote", url)
    if proc.returncode != 0:
        raise PreconditionError(f"cannot list the refs of {url}: {proc.stderr.strip()}")
    return _listing(proc.stdout, prefixes)


def from_listing(
    store: Path, listed: dict[str, str], peeled: dict[str, str], seen: Seen | None = None
) -> Refs:
    """The refs of a listing, the objects of its tags not in ``seen`` read from ``store``."""
    return _refs(store, listed, peeled, {} if seen is None else seen)


def read_url(store: Path, url: str, prefixes: tuple[str, ...] = _LISTED) -> Refs:
    """The refs under ``prefixes`` of the repository at ``url`` (a train member's upstream),
    their objects fetched into ``store`` by SHA, one commit deep (:func:`store_for`: never a
    clone's own history); a :class:`PreconditionError` naming ``url`` when it cannot be read."""
    listed, peeled = ls_remote(store, url, prefixes)
    seen = fetch_objects(store, url, sorted(set(listed.values())), "--depth=1")
    return _refs(store, listed, peeled, seen)


def store_for(folder: Path) -> Path:
    """A bare repository at ``folder`` (made on first use) holding other repositories'
    objects, fetched shallow: the tags and bindings of a train member's upstream.

    Made whole or not at all, so that commands sharing a cache may start together (two CI jobs
    on one machine): the repository is made in a new folder beside ``folder`` and renamed onto
    it, and a process that loses the race uses the winner's. ``git init`` run by several
    processes in the same folder fails ("cannot copy ... File exists")."""
    if (folder / "HEAD").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    made = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        git.run(made, "init", "-q", "--bare", "--template=")
        _settle(made, folder)
    finally:
        shutil.rmtree(made, ignore_errors=True)  # gone when renamed; else the loser's
    return folder


def _settle(made: Path, folder: Path) -> None:
    """Rename the repository ``made`` onto ``folder``, unless another process's is there."""
    with contextlib.suppress(OSError):
        folder.rmdir()  # an empty folder left by an older mlrelease (it made the folder first)
    try:
        made.rename(folder)
    except OSError as exc:
        if not (folder / "HEAD").is_file():
            raise PreconditionError(
                f"{folder} exists and is not a git repository ({exc.strerror}): the train's "
                "object store is made there. Remove the folder, or set "
                "[tool.mlrelease.train] cache-dir to another one."
            ) from exc
