"""Compare one consumer's two side runs, test by test (pure).

The classification follows crater (regressed / fixed / spurious / broken) and Debian's
autopkgtest migration policy (a failure is a regression only when the reference run, the same
test against the released version, passes; a test that always failed is "always failed",
here ``broken both``):

- passed on the baseline, failed (or an error) on the candidate: ``regressed`` when every re-run
  agrees, else ``spurious``;
- failed on the baseline, passed on the candidate: ``fixed`` when every re-run agrees, else
  ``spurious``;
- failed on both: ``broken both``; passed on both: ``passed``; skipped on either: ``skipped``;
- present on the candidate only: ``new``; on the baseline only: ``gone``, or ``not run`` when
  the candidate's run was killed before it.

A test missing on one side because its module failed to import there inherits that collection
error (a removed API that breaks an import is a regression of every test of the module), and
a test missing on a side whose run failed before any test ran inherits the run's failure. The
run itself is the pseudo test :data:`RUN` (passed when the test process finished, failed on a
timeout, a crash, or pytest's own errors), so a candidate that hangs is judged as well. Modules
and the run are *levels*, not tests: :func:`counts` counts tests only, :func:`levels` the rest.

A difference is re-run on both sides, adaptively (:func:`still_agrees` after each round drops
the tests that flipped), for :func:`rounds` rounds: ``regressed`` and ``fixed`` need every run of
each side to agree, so a test failing half the time on both sides comes out ``regressed`` or
``fixed`` with probability ``1/2 * (1/4)**rounds`` (0.05% at the default confidence 0.999).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

RUN = "<run>"
"""The pseudo test standing for the whole test process of a side."""
COMMAND = "command"
"""The one test of a smoke command."""


def is_test(nodeid: str) -> bool:
    """A test (``module::test``, or a smoke command's one result), not a module or the run."""
    return nodeid == COMMAND or "::" in nodeid


class CaseOutcome(str, enum.Enum):
    """One test's result on one side (xfail counts as skipped, xpass as passed)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"

    @property
    def bad(self) -> bool:
        return self in (CaseOutcome.FAILED, CaseOutcome.ERROR)


class PairVerdict(str, enum.Enum):
    """What the pair of outcomes (and the re-runs) say about one test."""

    REGRESSED = "regressed"
    SPURIOUS = "spurious"
    FIXED = "fixed"
    BROKEN = "broken both"
    PASSED = "passed"
    SKIPPED = "skipped"
    NEW = "new"
    GONE = "gone"
    NOT_RUN = "not run"


@dataclass(frozen=True)
class SideResult:
    """One test on one side: its outcome and the first lines of its failure."""

    nodeid: str
    outcome: CaseOutcome
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"nodeid": self.nodeid, "outcome": self.outcome.value, "message": self.message}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SideResult:
        return cls(str(data["nodeid"]), CaseOutcome(data["outcome"]), str(data.get("message", "")))


@dataclass
class SideRun:
    """One run of a consumer's selection in one environment."""

    tests: dict[str, SideResult] = field(default_factory=dict)
    """By node id, :data:`RUN` included."""
    collect_errors: dict[str, str] = field(default_factory=dict)
    """Node id prefix (a module, a folder) -> why it could not be collected."""
    duration_s: float = 0.0
    problem: str = ""
    """Why this side's tests did not run (a crash, pytest's usage error, a collection error,
    no tests); empty when they ran."""
    reproduce: str = ""
    """The command that runs this side's tests again by hand."""

    @property
    def finished(self) -> bool:
        run = self.tests.get(RUN)
        return run is None or run.outcome is CaseOutcome.PASSED

    def outcome(self, nodeid: str) -> SideResult | None:
        """The test's result; for a module or folder (no ``::``), its collection: an error
        where it did not import, else passed; a test of a module that did not import inherits
        that error."""
        found = self.tests.get(nodeid)
        if found is not None:
            return found
        if nodeid in self.collect_errors:
            return SideResult(
                nodeid, CaseOutcome.ERROR, f"collection error: {self.collect_errors[nodeid]}"
            )
        for prefix, message in self.collect_errors.items():
            if nodeid.startswith(prefix.rstrip("/") + "::") or nodeid.startswith(prefix + "/"):
                return SideResult(nodeid, CaseOutcome.ERROR, f"collection error: {message}")
        if "::" not in nodeid and nodeid != RUN and self.finished:
            return SideResult(nodeid, CaseOutcome.PASSED)
        if is_test(nodeid) and self.ran_nothing:
            why = self.tests[RUN].message.splitlines()[0] if self.tests[RUN].message else "?"
            return SideResult(nodeid, CaseOutcome.ERROR, f"the run failed before any test: {why}")
        return None

    @property
    def ran_nothing(self) -> bool:
        """The test process failed before any test ran (a conftest that does not import, an
        ``addopts`` pytest refuses, a crash at start): every test inherits that failure."""
        return not self.finished and not any(is_test(n) for n in self.tests)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": [t.to_dict() for t in self.tests.values()],
            "collect_errors": dict(self.collect_errors),
            "duration_s": round(self.duration_s, 3),
            "problem": self.problem,
            "reproduce": self.reproduce,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SideRun:
        tests = [SideResult.from_dict(t) for t in data.get("tests", [])]
        return cls(
            {t.nodeid: t for t in tests},
            {str(k): str(v) for k, v in data.get("collect_errors", {}).items()},
            float(data.get("duration_s", 0.0)),
            str(data.get("problem", "")),
            str(data.get("reproduce", "")),
        )


@dataclass(frozen=True)
class CaseVerdict:
    """One test's verdict with both sides' results and what the re-runs saw."""

    nodeid: str
    verdict: PairVerdict
    baseline: CaseOutcome | None
    candidate: CaseOutcome | None
    message: str = ""
    """The candidate's failure (a regression), or the baseline's (a fix)."""
    note: str = ""
    """What the re-runs found (for ``spurious``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "verdict": self.verdict.value,
            "baseline": None if self.baseline is None else self.baseline.value,
            "candidate": None if self.candidate is None else self.candidate.value,
            "message": self.message,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseVerdict:
        def side(value: Any) -> CaseOutcome | None:
            return None if value is None else CaseOutcome(value)

        return cls(
            str(data["nodeid"]),
            PairVerdict(data["verdict"]),
            side(data.get("baseline")),
            side(data.get("candidate")),
            str(data.get("message", "")),
            str(data.get("note", "")),
        )


def _pair(nodeid: str, baseline: SideRun, candidate: SideRun) -> CaseVerdict:
    b, c = baseline.outcome(nodeid), candidate.outcome(nodeid)
    bo = None if b is None else b.outcome
    co = None if c is None else c.outcome
    if b is None or c is None:
        if b is None:
            return CaseVerdict(nodeid, PairVerdict.NEW, bo, co, c.message if c else "")
        kind = PairVerdict.GONE if candidate.finished else PairVerdict.NOT_RUN
        return CaseVerdict(nodeid, kind, bo, co)
    if CaseOutcome.SKIPPED in (bo, co):
        return CaseVerdict(nodeid, PairVerdict.SKIPPED, bo, co)
    if b.outcome.bad and c.outcome.bad:
        return CaseVerdict(nodeid, PairVerdict.BROKEN, bo, co, c.message)
    if c.outcome.bad:
        return CaseVerdict(nodeid, PairVerdict.REGRESSED, bo, co, c.message)
    if b.outcome.bad:
        return CaseVerdict(nodeid, PairVerdict.FIXED, bo, co, b.message)
    return CaseVerdict(nodeid, PairVerdict.PASSED, bo, co)


def compare(baseline: SideRun, candidate: SideRun) -> list[CaseVerdict]:
    """First verdicts, before re-runs: ``regressed``/``fixed`` here are suspects."""
    ids = sorted(
        {*baseline.tests, *candidate.tests, *baseline.collect_errors, *candidate.collect_errors},
        key=lambda n: (n != RUN, n),
    )
    found = [_pair(n, baseline, candidate) for n in ids]
    if not baseline.finished or not candidate.finished:
        return found
    # Both runs finished: the run itself passed on both sides, which says nothing.
    return [v for v in found if v.nodeid != RUN or v.verdict is not PairVerdict.PASSED]


def suspects(verdicts: Iterable[CaseVerdict]) -> list[str]:
    """Node ids to re-run: the differences (regressed or fixed), the run itself included."""
    return [v.nodeid for v in verdicts if v.verdict in (PairVerdict.REGRESSED, PairVerdict.FIXED)]


def rounds(confidence: float, at_least: int = 0) -> int:
    """Re-run rounds a difference needs. A round runs both sides again; a test failing half the
    time on both sides repeats its pair of outcomes in one round with probability 1/4, so after
    ``r`` agreeing rounds the chance that such a test got that far is ``4**-r``, kept at or
    under ``1 - confidence``."""
    needed = math.ceil(math.log(1.0 - confidence) / math.log(0.25) - 1e-9)
    return max(1, needed, at_least)


def _outcome_is(run: SideRun, nodeid: str, *, bad: bool) -> bool:
    found = run.outcome(nodeid)
    return (
        found is not None and found.outcome is not CaseOutcome.SKIPPED and found.outcome.bad is bad
    )


def still_agrees(v: CaseVerdict, baseline: SideRun, candidate: SideRun) -> bool:
    """Whether one more round of both sides repeats the first pair of outcomes."""
    regressed = v.verdict is PairVerdict.REGRESSED
    return _outcome_is(baseline, v.nodeid, bad=not regressed) and _outcome_is(
        candidate, v.nodeid, bad=regressed
    )


def _tally(runs: Sequence[SideRun], nodeid: str, *, bad: bool) -> tuple[int, int]:
    """(runs that repeated the first outcome, runs that held the test)."""
    held = [r for r in runs if r.outcome(nodeid) is not None]
    return sum(1 for r in held if _outcome_is(r, nodeid, bad=bad)), len(held)


def confirm(
    verdicts: Sequence[CaseVerdict],
    baseline_reruns: Sequence[SideRun],
    candidate_reruns: Sequence[SideRun],
    needed: int = 1,
) -> list[CaseVerdict]:
    """Final verdicts: a regression (or fix) stands only when ``needed`` re-runs of both sides
    each gave the same pair of outcomes again; otherwise it is ``spurious``, with how often
    each side repeated its first outcome."""
    out = []
    for v in verdicts:
        if v.verdict not in (PairVerdict.REGRESSED, PairVerdict.FIXED):
            out.append(v)
            continue
        regressed = v.verdict is PairVerdict.REGRESSED
        cand = _tally(candidate_reruns, v.nodeid, bad=regressed)
        base = _tally(baseline_reruns, v.nodeid, bad=not regressed)
        agreeing = sum(
            1
            for b, c in zip(baseline_reruns, candidate_reruns, strict=True)
            if still_agrees(v, b, c)
        )
        if agreeing >= needed and cand[0] == cand[1] and base[0] == base[1]:
            chance = 0.5 * 0.25**agreeing
            note = (
                f"confirmed by {agreeing} re-run{'s' if agreeing != 1 else ''} of both sides "
                f"(a test failing half the time: {chance:.2g} chance)"
            )
            out.append(_replace(v, note=note))
            continue
        first = ("failed", "passed") if regressed else ("passed", "failed")
        note = (
            f"flaky: the candidate {first[0]} {cand[0] + 1} of {cand[1] + 1} runs, the baseline "
            f"{first[1]} {base[0] + 1} of {base[1] + 1}"
        )
        out.append(_replace(v, verdict=PairVerdict.SPURIOUS, note=note))
    return out


def _replace(v: CaseVerdict, **changes: Any) -> CaseVerdict:
    data = {**v.to_dict(), **{k: getattr(val, "value", val) for k, val in changes.items()}}
    return CaseVerdict.from_dict(data)


def counts(verdicts: Iterable[CaseVerdict]) -> dict[PairVerdict, int]:
    """How many tests got each verdict (every verdict present, zeros included); modules and
    the run itself are not tests (see :func:`levels`)."""
    found = {v: 0 for v in PairVerdict}
    for v in verdicts:
        if is_test(v.nodeid):
            found[v.verdict] += 1
    return found


def levels(verdicts: Iterable[CaseVerdict]) -> list[CaseVerdict]:
    """The module- and run-level verdicts that are not ``passed``: reported apart from tests."""
    return [v for v in verdicts if not is_test(v.nodeid) and v.verdict is not PairVerdict.PASSED]
