"""The content-addressed store of a clone (``.git/mlrelease/store/<sha256>``): the bytes of the
files a release binds, filled at bind time (or imported from downloaded assets in a fresh
clone), published from here and never from ``dist/``.

A file is hashed from the very bytes that are written into the store (one read), named after
that hash, made read-only and renamed into place: an object is complete or absent. Reading an
object hashes it again; one that does not match its name is refused, never published.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from mlrelease.edges import git
from mlrelease.errors import PreconditionError
from mlrelease.release.promotion.manifest import Entry

BLOCK = 1 << 20


def folder(root: Path) -> Path:
    return home(git.common_dir(root)) / "store"


def home(common_dir: Path) -> Path:
    """This clone's mlrelease folder in the repository's common git folder ``common_dir``
    (:func:`mlrelease.edges.git.folders`): the store, the publish records."""
    return common_dir / "mlrelease"


def objects(home: Path) -> dict[str, int]:
    """SHA-256 -> size of every object in the store of ``home`` (this clone's mlrelease folder,
    :func:`home`)."""
    here = home / "store"
    if not here.is_dir():
        return {}
    return {p.name: p.stat().st_size for p in here.iterdir() if len(p.name) == 64}


def put(root: Path, path: Path) -> Entry:
    """Copy ``path`` into the store, hashing exactly the bytes written; its entry (the name
    of ``path``, the size and SHA-256 of what was stored)."""
    here = folder(root)
    here.mkdir(parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    fd, partial = tempfile.mkstemp(dir=here, prefix=".partial-")
    try:
        with path.open("rb") as source, os.fdopen(fd, "wb") as target:
            for block in iter(lambda: source.read(BLOCK), b""):
                digest.update(block)
                target.write(block)
                size += len(block)
            target.flush()
            os.fsync(target.fileno())
        os.chmod(partial, 0o444)
        os.replace(partial, here / digest.hexdigest())
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return Entry(path.name, size, digest.hexdigest())


def _missing(root: Path, entry: Entry) -> PreconditionError:
    return PreconditionError(
        f"{entry.name} ({entry.sha256[:16]}...) is not in this clone's store ({folder(root)}): "
        "bind the candidate here (`mlrelease release bind`), or pass --artifacts with the "
        "candidate's downloaded files to import them."
    )


def _changed(root: Path, entry: Entry, found: str, size: int) -> PreconditionError:
    return PreconditionError(
        f"the store object {folder(root) / entry.sha256} holds {found[:16]}... ({size} bytes), "
        f"not {entry.name} ({entry.sha256[:16]}..., {entry.size} bytes): it was changed on "
        "disk. Nothing was published; remove it and import the candidate's files again."
    )


def check(root: Path, entry: Entry) -> None:
    """Refuse unless the store holds ``entry``'s exact bytes (hashed again, as they are read)."""
    digest, size = hashlib.sha256(), 0
    try:
        with (folder(root) / entry.sha256).open("rb") as handle:
            for block in iter(lambda: handle.read(BLOCK), b""):
                digest.update(block)
                size += len(block)
    except FileNotFoundError:
        raise _missing(root, entry) from None
    if digest.hexdigest() != entry.sha256 or size != entry.size:
        raise _changed(root, entry, digest.hexdigest(), size)


def stage(root: Path, entry: Entry, into: Path) -> Path:
    """Copy ``entry``'s object to ``into/<its name>``, hashing exactly the bytes written; the
    copy is refused (and removed) unless they are the entry's."""
    target = into / entry.name
    digest, size = hashlib.sha256(), 0
    try:
        with (folder(root) / entry.sha256).open("rb") as source, target.open("xb") as copy:
            for block in iter(lambda: source.read(BLOCK), b""):
                digest.update(block)
                copy.write(block)
                size += len(block)
    except FileNotFoundError:
        raise _missing(root, entry) from None
    if digest.hexdigest() != entry.sha256 or size != entry.size:
        target.unlink()
        raise _changed(root, entry, digest.hexdigest(), size)
    os.chmod(target, 0o444)
    return target
