"""The project's test suite, run once per tree and environment: what ``mlrelease tests run`` and
the ``tests`` gate both call.

A passing run leaves a stamp (:mod:`mlrelease.edges.reuse`) keyed by the HEAD commit, the working
tree's changes, the command, the environment (the interpreter, the platform, every installed
distribution), the programs the suite declares it uses (each one's resolved path and the digest
of its file: a browser test that was skipped for want of ``chromium`` is not a pass once it is
installed) and the variables that change what tests do (the locale, the time zone). Only an
identical run reuses it; a failing run removes it. A stamp lives in its own file per command, so
running a subset does not forget the whole suite's verdict.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges import digests, installed, reuse

STAMPS = Path("build") / "tests"
"""Where ``mlrelease tests run`` keeps its stamps, under the project root."""

VARIABLES = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LOCPATH", "TZ")
"""Environment variables whose values are part of a run's key: they change what tests see."""


@dataclass(frozen=True)
class Reuse:
    """A run's key, and the passing run with that key when there is one."""

    key: reuse.Key | None
    last: reuse.Stamp | None
    path: Path

    def note(self, opt_out: str) -> str:
        """The words a reused verdict adds to its summary."""
        assert self.key is not None and self.last is not None
        return self.last.note(self.key, opt_out)

    def remember(self, summary: str) -> None:
        """Record a passing run with this key."""
        reuse.remember(self.path, self.key, summary)


def program_inputs(programs: Sequence[str]) -> list[str]:
    """Each declared program as the suite would find it: its path and its file's digest, or
    that it is absent."""
    found = []
    for name in programs:
        path = installed.program(name)
        if path is None:
            found.append(f"{name}: absent")
        else:
            found.append(f"{name}: {path} {digests.sha256(Path(path).resolve())}")
    return found


def variable_inputs() -> list[str]:
    """The values of :data:`VARIABLES` in this process's environment."""
    return [f"{name}={os.environ.get(name, '')}" for name in VARIABLES]


def stamp_file(root: Path, command: Sequence[str]) -> Path:
    """The stamp of ``command`` under ``root``: one file per command."""
    name = hashlib.sha256(shlex.join(command).encode()).hexdigest()[:16]
    return root / STAMPS / f"passed-{name}.json"


def lookup(
    root: Path, command: Sequence[str], programs: Sequence[str], path: Path | None = None
) -> Reuse:
    """The key of running ``command`` in ``root`` now, and the passing run it matches."""
    where = path or stamp_file(root, command)
    now = reuse.key(root, *command, *program_inputs(programs), *variable_inputs())
    return Reuse(now, reuse.recall(where, now), where)
