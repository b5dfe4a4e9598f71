"""Every command the release checklist names exists: nox sessions, invoke tasks, CLI commands.

A checklist that points at a session nobody registered fails at release time, the worst moment;
this test fails at commit time instead.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REPO_ROOT

from mlrelease.cli import build_parser
from mlrelease.registry import load_config
from mlrelease.release.config import ReleaseConfig

REPO = REPO_ROOT
KINDS = ("nox", "invoke", "mlrelease")
PLACEHOLDERS = {
    "series": "1.4",
    "version": "1.4.0",
    "rc_tag": "v1.4.0-rc1",
    "index": "https://upload.pypi.org/legacy/",
}


def _nox_sessions() -> set[str]:
    out = subprocess.run(
        # -k True: every session, not only the default ones.
        [sys.executable, "-m", "nox", "--list", "--json", "-k", "True"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {entry["session"] for entry in json.loads(out)}


def _invoke_tasks() -> set[str]:
    out = subprocess.run(
        [sys.executable, "-m", "invoke", "--list", "--list-format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    names: set[str] = set()

    def walk(collection: dict, prefix: str) -> None:  # type: ignore[type-arg]
        for task in collection.get("tasks", []):
            names.add(prefix + task["name"])
        for sub in collection.get("collections", []):
            walk(sub, f"{prefix}{sub['name']}.")

    walk(data, "")
    return names


def _commands() -> list[list[str]]:
    steps = load_config(REPO).table(ReleaseConfig).checklist
    commands = []
    for step in steps:  # one argv per step: what runs is what the page shows
        if step.run and step.run[0] in KINDS:
            commands.append([a.format(**PLACEHOLDERS) for a in step.run])
    return commands


def test_the_checklist_names_commands() -> None:
    kinds = {argv[0] for argv in _commands()}
    assert kinds == {"nox", "invoke", "mlrelease"}


@pytest.mark.parametrize("argv", _commands(), ids=lambda argv: " ".join(argv))
def test_checklist_command_exists(argv: list[str]) -> None:
    if argv[0] == "nox":
        assert argv[1] == "-s" and argv[2] in _nox_sessions(), f"no nox session {argv[2]!r}"
    elif argv[0] == "invoke":
        assert argv[1] in _invoke_tasks(), f"no invoke task {argv[1]!r}"
    else:
        build_parser().parse_args(argv[1:])  # argparse exits on an unknown command or option
