"""The promote walk of ``scripts/code_figures.py`` (``scripts/code_figures_trace.py``) on a real
project: a repository with a bare origin, made, tagged, built, bound and verified by mlrelease's
own commands, then ``release promote`` traced in this process."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from helpers import load_script

from mlrelease import cli
from mlrelease.edges import git


def test_the_promote_walk_starts_in_its_handler_and_reaches_git(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = load_script("code_figures_trace.py", monkeypatch)
    walk = trace.promote_walk()
    assert walk.exit_code == 0, walk
    assert walk.command == (
        "mlrelease --root WORK release promote --version 1.4.0 --published-elsewhere --push"
    )
    handler = cli.build_parser().parse_args(["release", "promote", "--version", "1.4.0"]).func
    start = Path(inspect.getfile(handler)).resolve().relative_to(trace.PACKAGE).as_posix()
    assert walk.entries[0] == start == "release/cli.py"
    assert "cli.py" not in walk.modules  # the command line's main parsed before the walk began
    edge = Path(git.__file__).resolve().relative_to(trace.PACKAGE).as_posix()
    assert edge in walk.modules  # the planned tag and push
    assert len(walk.modules) > 2 and walk.reentries > 0
    assert all(walk.floors[m] >= 0 for m in walk.modules)  # every module on a declared floor
