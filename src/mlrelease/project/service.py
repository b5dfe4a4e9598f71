"""What the project's commands and gates both call: the generated exit-criteria page and the
regenerated changelog, each a :class:`~mlrelease.edges.files.Generated` file that a command
writes or checks and a gate compares."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.edges.proc import call
from mlrelease.errors import UserError
from mlrelease.gates import Context, Gate
from mlrelease.project import changelog, exit_criteria, suite
from mlrelease.project.config import TestsOptions


def exit_criteria_page(config: Config, gates: Sequence[Gate]) -> files.Generated:
    """The exit-criteria page of the configured ``gates``, as it should be on disk."""
    page = config.exit_criteria_doc
    return files.Generated(config.path(page), exit_criteria.render(gates), page)


def changelog_file(config: Config, bump: str | None) -> files.Generated:
    """The changelog regenerated from the commits (``bump``: the title of the unreleased
    section, ``auto`` to infer it)."""
    text = changelog.generate(
        config.root,
        config.changelog,
        bump=changelog.bump_tag(bump, config.names.tag_of),
        repository_url=changelog.repository_url(config.pyproject),
        other_changes=config.changelog_other_changes,
        write=False,
    )
    return files.Generated(config.path(config.changelog), text, config.changelog)


def tests_options(config: Config) -> TestsOptions:
    """``[tool.mlrelease.gate-options.tests]``, as the ``tests`` gate reads it."""
    return Context(config).options("tests", TestsOptions)


@dataclass(frozen=True)
class SuiteOutcome:
    """What ``mlrelease tests run`` did: ran the suite, or reused an identical passing run."""

    returncode: int
    reused: bool
    summary: str


def run_suite(
    root: Path, command: Sequence[str], programs: Sequence[str], *, reuse: bool
) -> SuiteOutcome:
    """Run ``command`` in ``root`` (output to this process's own), or reuse the pass of an
    identical run (:mod:`.suite`); a pass is remembered."""
    if not command:
        raise UserError(
            "tests run: no command (give one after `--`, or set "
            "[tool.mlrelease.gate-options.tests] command)"
        )
    found = suite.lookup(root, command, programs)
    if reuse and found.last:
        note = found.note("`mlrelease tests run --rerun`")
        return SuiteOutcome(0, True, f"`{shlex.join(command)}` passed {note}")
    try:
        proc = call(command, cwd=root, capture=False)
    except OSError as exc:
        raise UserError(f"tests run: cannot run `{shlex.join(command)}`: {exc}") from None
    if proc.returncode == 0:
        found.remember(f"`{shlex.join(command)}` passed")
    return SuiteOutcome(proc.returncode, False, f"`{shlex.join(command)}`: exit {proc.returncode}")
