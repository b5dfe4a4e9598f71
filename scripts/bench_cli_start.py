"""The CPU time of one ``mlrelease`` child process, for a few commands: the start every
child-process call of the suite (and of a user's script) pays.

Each command runs ``--runs`` times in a child process, stdout and stderr discarded; the figure
is its median CPU time (user + system, from ``getrusage(RUSAGE_CHILDREN)``), which a busy
machine inflates less than the wall clock. The commands: ``--version`` (the start alone),
``--help`` (every command's parser), ``release status --help`` (one feature's parser) and two
real commands on a tiny project made in a temporary folder (``version``, which loads the
configuration, and ``release status``, which also reads git). A first run of each writes the
bytecode caches (``PYTHONDONTWRITEBYTECODE`` is left out of the children's environment: with
it, every run compiles every module it imports again, which is not what CI does).

    python scripts/bench_cli_start.py [--runs 5] [--python .venv/bin/python]

Prints one row per command; the figures are quoted in docs/development.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PYPROJECT = """\
[project]
name = "tiny"
version = "0.1.0"

[tool.bumpversion]
current_version = "0.1.0"

[[tool.bumpversion.files]]
filename = "pyproject.toml"
search = 'version = "{current_version}"'
replace = 'version = "{new_version}"'
"""


def tiny_project(folder: Path) -> Path:
    """A one-commit git repository with a pyproject.toml and mlrelease's defaults."""
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (folder / "CHANGELOG.md").write_text("# Changelog\n", encoding="utf-8")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=folder, check=True)
    subprocess.run([*git, "add", "-A"], cwd=folder, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "chore: start"], cwd=folder, check=True)
    return folder


def cpu_seconds(command: list[str], cwd: Path) -> float:
    """The CPU time (user + system) of one run of ``command``, which may write bytecode."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    quiet = subprocess.DEVNULL
    subprocess.run(command, cwd=cwd, env=env, stdout=quiet, stderr=quiet, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to time")
    options = parser.parse_args()
    commands = (
        ("--version",),
        ("--help",),
        ("release", "status", "--help"),
        ("version",),
        ("release", "status"),
    )
    with tempfile.TemporaryDirectory() as tmp:
        project = tiny_project(Path(tmp))
        print(f"{'command':40} {'median CPU s':>12}  runs")
        for words in commands:
            line = [options.python, "-m", "mlrelease", *words]
            cpu_seconds(line, project)  # a first run writes the bytecode caches
            times = [cpu_seconds(line, project) for _ in range(options.runs)]
            runs = " ".join(f"{t:.3f}" for t in times)
            print(f"{'mlrelease ' + ' '.join(words):40} {statistics.median(times):12.3f}  {runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
