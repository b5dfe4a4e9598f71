"""The train's object store (a bare repository in the user cache, made on first use) when
several commands share the cache: two CI jobs on one machine, or test workers with one
``MLRELEASE_CACHE_DIR``. Real ``git init`` in real processes started together."""

from __future__ import annotations

import multiprocessing
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mlrelease.errors import PreconditionError
from mlrelease.release.world.refs import store_for

PROCESSES = 8


def _make(barrier: Any, folder: Path, out: Any) -> None:
    barrier.wait()  # every process asks for the store at once
    try:
        store_for(folder)
    except Exception as exc:  # the test counts every failure, of any kind
        out.put(f"{type(exc).__name__}: {exc}")
    else:
        out.put("")


def test_commands_started_together_share_one_store(tmp_path: Path) -> None:
    # Before the store was made whole and renamed into place, 8 processes started together
    # failed about half the time (47 of 80, then 16 of 40): `git init` copying its templates
    # found another's files.
    context = multiprocessing.get_context("fork")
    failures = []
    for run in range(5):
        folder = tmp_path / f"cache{run}" / "train" / "objects.git"
        barrier, out = context.Barrier(PROCESSES), context.Queue()
        started = [
            context.Process(target=_make, args=(barrier, folder, out)) for _ in range(PROCESSES)
        ]
        for process in started:
            process.start()
        said = [out.get(timeout=60) for _ in started]
        for process in started:
            process.join(timeout=60)
        assert [p.exitcode for p in started] == [0] * PROCESSES
        failures += [s for s in said if s]
        bare = subprocess.run(
            ["git", "rev-parse", "--is-bare-repository"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
        assert bare.stdout.strip() == "true"
        assert [p.name for p in folder.parent.iterdir()] == ["objects.git"]  # nothing left over
    assert failures == []


def test_a_folder_in_the_way_is_named_with_the_fix(tmp_path: Path) -> None:
    folder = tmp_path / "objects.git"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a repository\n", encoding="utf-8")
    with pytest.raises(PreconditionError, match="not a git repository") as raised:
        store_for(folder)
    assert str(folder) in str(raised.value) and "cache-dir" in str(raised.value)
    assert [p.name for p in tmp_path.iterdir()] == ["objects.git"]
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "not a repository\n"


def test_an_empty_folder_left_by_an_older_run_becomes_the_store(tmp_path: Path) -> None:
    folder = tmp_path / "objects.git"
    folder.mkdir()  # an older mlrelease made the folder, then was killed before `git init`
    assert store_for(folder) == folder
    assert (folder / "HEAD").is_file()
