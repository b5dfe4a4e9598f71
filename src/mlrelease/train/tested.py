"""The verdict of a train member's own tests against an upstream candidate (pure).

The downstream feature's result of one paired run
(:class:`~mlrelease.downstream.results.ConsumerResult`), read as train invariant T6 reads it,
into the record ``train bind`` binds (:class:`~mlrelease.release.promotion.manifest.Verdict`).

- The candidate side must have run: an environment that could not be made, a crash, a timeout,
  a collection error, pytest's own error, no tests at all: ``not run``, with why and the
  command that runs it again by hand.
- Compared with the upstream's previous release (both sides ran): only a confirmed regression
  counts, a test that passed against the previous release and failed against the candidate,
  again on every re-run; a test that fails on both sides is the member's own, not the
  upstream's (``broken both``), and one that flipped is ``spurious``.
- Not compared (the upstream has no previous release, or it could not be installed, or the
  member's tests did not run against it): every test that failed against the candidate counts,
  and the record says that no regression comparison was possible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from mlrelease.downstream.results import ERROR, ConsumerResult
from mlrelease.downstream.verdicts import CaseOutcome, CaseVerdict, PairVerdict, is_test
from mlrelease.release.promotion.manifest import FAILED, NOT_RUN, PASSED, Verdict


@dataclass(frozen=True)
class Installed:
    """What one run of the member's tests installed, and what it compared with."""

    upstream_file: str = ""
    upstream_sha256: str = ""
    member_file: str = ""
    member_sha256: str = ""
    baseline: str = ""
    """The upstream's previous release the tests also ran against; "" when none."""
    python: str = ""
    note: str = ""
    """Why no regression comparison was possible (with :attr:`baseline` empty)."""
    folder: str = ""
    """The tests' folder in the member's repository (their node ids are read from it)."""


def not_run(installed: Installed, why: str) -> Verdict:
    """The record of tests that could not be run at all (no wheel for the interpreter, no
    tests folder, a file the staging index no longer serves as recorded)."""
    return _record(installed, NOT_RUN, 0, (), why)


def _record(
    installed: Installed, verdict: str, tests: int, failing: tuple[str, ...], why: str
) -> Verdict:
    return Verdict(
        verdict=verdict,
        upstream_file=installed.upstream_file,
        upstream_sha256=installed.upstream_sha256,
        member_file=installed.member_file,
        member_sha256=installed.member_sha256,
        baseline=installed.baseline,
        python=installed.python,
        tests=tests,
        note=installed.note,
        failing=failing,
        why=why,
    )


def _unrun(result: ConsumerResult) -> str:
    """Why the candidate side's tests did not run (and how to run them by hand), "" when they
    ran."""
    if result.status == ERROR:
        return result.error
    side = result.unverified.get("candidate", {})
    if "candidate" in result.install:
        why = side.get("why", "").removeprefix("could not install: ")
        text = f"the environment could not be made: {why or result.install['candidate']}"
    elif side:
        text = side["why"]
    else:
        return ""
    again = side.get("reproduce", "")
    return f"{text.rstrip('.')} (to reproduce: {again})" if again else text.rstrip(".")


def _line(v: CaseVerdict, folder: str) -> str:
    """``tests/test_x.py::test_y: AssertionError: ...``: the node id from the repository's
    root, and the first line of the failure without pytest's ``E`` margin."""
    lines = [line.strip() for line in v.message.strip().splitlines()]
    first = re.sub(r"^E\s+", "", next((line for line in lines if line.startswith("E ")), ""))
    first = first or (lines[0] if lines else "")
    where = f"{folder.strip('/')}/{v.nodeid}" if folder and folder != "." else v.nodeid
    return f"{where}: {first}" if first else where


def failing(result: ConsumerResult, compared: bool, folder: str = "") -> tuple[str, ...]:
    """The tests that count against the candidate (see the module docstring); their node ids
    are read from ``folder`` (the tests' folder in the repository)."""
    if compared:
        found = [v for v in result.verdicts if v.verdict is PairVerdict.REGRESSED]
    else:
        found = [v for v in result.verdicts if v.candidate is not None and v.candidate.bad]
    return tuple(_line(v, folder) for v in found)


def verdict(installed: Installed, result: ConsumerResult) -> Verdict:
    """The record of one run (compared when :attr:`Installed.baseline` names what the other
    side installed, and that side's tests ran)."""
    why = _unrun(result)
    if why:
        return _record(installed, NOT_RUN, 0, (), why)
    ran = sum(
        1
        for v in result.verdicts
        if is_test(v.nodeid) and v.candidate not in (None, CaseOutcome.SKIPPED)
    )
    baseline_why = result.unverified.get("baseline", {}).get("why", "")
    if installed.baseline and baseline_why:
        note = (
            f"no regression comparison was possible: the tests did not run against "
            f"{installed.baseline} ({baseline_why}); every failure counts"
        )
        installed = replace(installed, baseline="", note=note)
    found = failing(result, compared=bool(installed.baseline), folder=installed.folder)
    return _record(installed, FAILED if found else PASSED, ran, found, "")
