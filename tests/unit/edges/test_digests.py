"""The one file digest: the SHA-256 of the whole content, read in blocks."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mlrelease.edges.digests import sha256
from mlrelease.edges.journal import digest_if_present


def test_the_digest_covers_every_block_of_a_large_file(tmp_path: Path) -> None:
    data = bytes(range(256)) * 8193  # a little over 2 MiB: three blocks, the last one partial
    path = tmp_path / "demo-1.0-py3-none-any.whl"
    path.write_bytes(data)
    assert sha256(path) == hashlib.sha256(data).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert sha256(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()


def test_the_journal_digest_of_a_missing_file_is_none(tmp_path: Path) -> None:
    path = tmp_path / "VERSION"
    assert digest_if_present(path) is None
    path.write_bytes(b"1.4.0\n")
    assert digest_if_present(path) == hashlib.sha256(b"1.4.0\n").hexdigest()
