"""One ``mlrelease`` process imports the feature of the command it runs, not every feature.

Each test runs the command line in a fresh child process, as users and the suite do, and reads
which of mlrelease's modules it imported: a feature package outside the command's feature and
the features it may import (``Feature.uses``, followed) keeps only what importing
``mlrelease.cli`` imports (the configuration tables of every feature), and no feature's gate or
command module is imported before a command is chosen. The CPU time this saves per process is
measured by ``scripts/bench_cli_start.py`` (docs/development.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers.projects import committed, pure

from mlrelease import registry

PROBE = """
import sys
from mlrelease.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("MODULES", *sorted(m for m in sys.modules if m.startswith("mlrelease")))
"""
"""Runs ``mlrelease ARGS...`` (as ``main`` reads them) and prints the modules it imported."""


def imported(cwd: Path, *args: str) -> set[str]:
    """mlrelease's modules a child process imported to run ``mlrelease ARGS...`` in ``cwd``."""
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    [line] = [line for line in ran.stdout.splitlines() if line.startswith("MODULES ")]
    return set(line.split()[1:])


def reach(feature: str) -> set[str]:
    """``feature`` and the features it may import, followed."""
    arrows, found, todo = registry.arrows(), set(), [feature]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(arrows[name])
    return found


def feature_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in registry.arrows() else None


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """What importing the command line alone imports: ``--version`` chooses no command."""
    return imported(tmp_path_factory.mktemp("version"), "--version")


def test_no_gate_or_command_module_is_imported_before_a_command_is_chosen(
    baseline: set[str],
) -> None:
    assert "mlrelease.cli" in baseline and "mlrelease.release.config" in baseline
    loaded = sorted(m for m in baseline if feature_of(m) and m.endswith((".gate", ".cli")))
    assert loaded == []


@pytest.mark.parametrize(
    ("feature", "args"),
    [
        ("release", ("release", "--help")),
        ("release", ("release", "status")),
        ("project", ("version",)),
        ("models", ("compat", "--help")),
    ],
)
def test_a_command_imports_its_feature_and_what_it_may_import_only(
    baseline: set[str], tmp_path: Path, feature: str, args: tuple[str, ...]
) -> None:
    project = committed(tmp_path, pure.files())
    modules = imported(project, *args)
    assert f"mlrelease.{feature}.cli" in modules
    others = {m for m in modules if feature_of(m) not in {None, *reach(feature)}}
    rooms = sorted(m for m in others if m.rsplit(".", 1)[1] in ("cli", "gate", "service"))
    assert rooms == [], f"mlrelease {' '.join(args)} imported other features' rooms"
    assert sorted(others - baseline) == [], "and other modules of theirs"


def test_help_still_imports_every_command(baseline: set[str], tmp_path: Path) -> None:
    modules = imported(tmp_path, "--help")
    assert {f.commands.module for f in registry.FEATURES if f.commands} <= modules
