"""The SHA-256 of a file on disk, read in blocks (wheels and models are large, so never whole).

The commands that prove a file on disk by its content ask here: a release file against its
manifest or an index, a download, a cached model, a file the edit journal left, the
configuration a report is bound to, a changed file of the tree a reused verdict fingerprints.
Code that hashes bytes it already holds (a git object, a page it read) or while it copies them
(the content store, the safe-file layer) hashes them itself, with :mod:`hashlib` too."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256(path: Path) -> str:
    """The hex SHA-256 of the file at ``path`` (read 1 MiB at a time: wheels and models are
    large)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
