"""The safe-file layer's copy (:meth:`mlrelease.models.safefile.Root.copy`): the bytes of the
checked descriptor, holes kept as holes, digests of exactly what was copied."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mlrelease.models import safefile

pytestmark = pytest.mark.skipif(not safefile.WALK, reason="descriptor-relative opening is POSIX")


def test_a_sparse_file_is_copied_exactly_and_stays_sparse(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    size = 64 * 2**20
    with open(folder / "w.bin", "wb") as handle:  # data, a 32 MiB hole, data, a hole at the end
        handle.write(b"head" * 1000)
        handle.seek(32 * 2**20)
        handle.write(os.urandom(3 * 2**20 + 7))
        handle.truncate(size)
    original = (folder / "w.bin").read_bytes()
    with safefile.Root.open(folder) as root:
        copy = root.copy("w.bin", "external data file", tmp_path / "private" / "w.bin",
                         digests=["sha1", "sha256"])  # fmt: skip
    assert copy.size == size and (tmp_path / "private" / "w.bin").read_bytes() == original
    assert copy.digests == {
        "sha1": hashlib.sha1(original, usedforsecurity=False).hexdigest(),
        "sha256": hashlib.sha256(original).hexdigest(),
    }
    if (folder / "w.bin").stat().st_blocks * 512 < size // 2:  # the file system keeps holes
        assert (tmp_path / "private" / "w.bin").stat().st_blocks * 512 < size // 2


def test_a_copy_never_writes_through_an_existing_name(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "w.bin").write_bytes(b"weights")
    target = tmp_path / "private" / "w.bin"
    target.parent.mkdir()
    target.symlink_to(tmp_path / "elsewhere")
    with safefile.Root.open(folder) as root, pytest.raises(FileExistsError):
        root.copy("w.bin", "external data file", target)
    assert not (tmp_path / "elsewhere").exists()
