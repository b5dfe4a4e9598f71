"""Fixtures of the invariant regression tests (helpers: :mod:`helpers.invariants`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from helpers.release import Repo

from mlrelease.cli import main


@pytest.fixture
def mlr_at(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``mlrelease --root CLONE ARGS...`` in-process in any clone (the colleague's)."""

    def run(clone: Repo, *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--root", str(clone.path), *args])
        out, err = capsys.readouterr()
        sys.stdout.write(out)
        sys.stderr.write(err)
        return code, out, " ".join(err.split())

    return run
