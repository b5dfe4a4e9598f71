"""The SHA-256 of a file's content, read in blocks: the one digest mlrelease takes of a file,
whatever it proves (a release file against its manifest or index, a download, a cached model,
a file the edit journal left)."""

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
