"""Compare a perf run with a baseline: status changes, then timing verdicts (pure).

Rules, per combination:

* status and timing are separate verdicts. Status: a row failing now that was not failing in
  the baseline (or is new) **fails**; one that was already failing is a known failure and does
  not; a row ``unavailable`` here (the machine lacks the framework: a module, a device, a
  compiler) is an environment gap, ``not_measured`` with the reason and never a verdict on the
  code;
* timing: a row timed on both sides (``ok``, or ``parity_failed``: a row that runs is timed
  whatever its parity) is timed on each clock it has (process CPU time, and wall time less
  run-queue delay) with :func:`mlrelease.perf.verdict.judge`: one family of tests for the whole
  comparison (Holm), verdicts ``regressed`` (fails), ``improved``, ``same``, ``inconclusive``
  or ``not_measured`` with the reason, its status written beside. A row's word is its worst
  clock's. A known failure timed on neither side (or one) is never passed on timing: its timing
  is ``inconclusive``, and so is the whole comparison's word. Timings are compared only with a
  baseline of the same device class (:func:`mlrelease.perf.device.device_class`).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from mlrelease import markdown
from mlrelease.perf import sensitivity
from mlrelease.perf import verdict as verdicts
from mlrelease.perf.results import FAILING, OK, UNAVAILABLE, Results, Row
from mlrelease.perf.stats import round_medians
from mlrelease.perf.verdict import (
    CLOCKS,
    IMPROVED,
    INCONCLUSIVE,
    NOT_MEASURED,
    REGRESSED,
    SAME,
    Design,
    Family,
    Sample,
    Test,
)

FAILS = frozenset({"new_failure", REGRESSED})
TIMING_KINDS = frozenset({REGRESSED, IMPROVED, SAME, INCONCLUSIVE, NOT_MEASURED})
MIN_ROUNDS = verdicts.MIN_ROUNDS


@dataclass(frozen=True)
class RowVerdict:
    """The comparison of one combination."""

    key: str
    kind: str
    """Status: new_failure, known_failure, fixed, new_row, dropped_row, not_applicable,
    unavailable; timing: regressed, improved, same, inconclusive, not_measured."""
    message: str
    tests: tuple[Test, ...] = ()
    timing: str = ""
    """The timing word of a row that should have been timed and was not (``inconclusive``: a
    known failure timed on neither side); empty otherwise (see ``tests``)."""

    @property
    def fails(self) -> bool:
        return self.kind in FAILS

    @property
    def timed(self) -> bool:
        return any(t.verdict != NOT_MEASURED for t in self.tests)


@dataclass
class Comparison:
    """All verdicts, and what was compared."""

    verdicts: list[RowVerdict]
    timing: bool
    note: str = ""
    notes: list[str] = field(default_factory=list)
    family: Family | None = None
    baseline: Results | None = None
    """The baseline compared with (set by the session, for plots)."""

    @property
    def failed(self) -> list[RowVerdict]:
        return [v for v in self.verdicts if v.fails]

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def timed(self) -> list[RowVerdict]:
        return [v for v in self.verdicts if v.timed]

    @property
    def untimed(self) -> list[RowVerdict]:
        return [v for v in self.verdicts if not v.timed and v.kind not in {"dropped_row"}]

    @property
    def blind(self) -> list[RowVerdict]:
        """Rows that should have been timed and were not (never passed on timing)."""
        return [v for v in self.verdicts if v.timing == INCONCLUSIVE]

    @property
    def word(self) -> str:
        """The whole comparison's timing word (see :func:`mlrelease.perf.verdict.gate_verdict`):
        ``inconclusive`` at best while a row is :attr:`blind`."""
        word = verdicts.gate_verdict(self.family.tests if self.family else [])
        return INCONCLUSIVE if self.blind and word != REGRESSED else word

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.verdicts:
            counts[v.kind] = counts.get(v.kind, 0) + 1
        return counts

    def summary(self) -> str:
        """One line that says what was timed and what was not, never "no regression" alone."""
        counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(self.counts().items()))
        failed = len(self.failed)
        timed, total = len(self.timed), len(self.verdicts)
        head = f"{failed} of {total} combinations fail" if failed else "no failing combination"
        if timed or self.blind:
            timing = f"timing: {self.word.replace('_', ' ')} ({timed} of {total} rows timed)"
        else:
            timing = f"timing: not measured (0 of {total} rows timed)"
        if self.blind:
            keys = ", ".join(f"`{v.key}`" for v in self.blind[:3])
            more = f" and {len(self.blind) - 3} more" if len(self.blind) > 3 else ""
            timing += (
                f"; {len(self.blind)} failing row(s) not timed on both sides, so not passed on "
                f"timing: {keys}{more}"
            )
        return f"{head}; {timing}; ({counts})" + (f"; {self.note}" if self.note else "")

    def to_markdown(self) -> str:
        lines = [self.summary(), ""]
        if self.family and self.family.tests:
            lines += [f"Design: {self.family.design.statement(self.family.measured)}.", ""]
        order = {"new_failure": 0, REGRESSED: 1, INCONCLUSIVE: 2, NOT_MEASURED: 3}
        lines += markdown.table(
            ["combination", "verdict", "detail"],
            [
                (f"`{v.key}`", ("❌ " if v.fails else "") + v.kind.replace("_", " "), v.message)
                for v in sorted(self.verdicts, key=lambda v: order.get(v.kind, 4))
            ],
        )
        if self.family:
            threshold = self.family.design.threshold
            blind = sensitivity.blind_rows(self.family.tests, threshold)
            lines += sensitivity.blind_section(blind, threshold)
        return "\n".join(lines) + "\n"


def samples_of(key: str, base: Row, cand: Row, base_clock: str, cand_clock: str) -> list[Sample]:
    """The tests of one row: one per clock both sides have, disturbed rounds dropped by rule."""
    out: list[Sample] = []
    for clock in CLOCKS:
        b, c = base.rounds_of(clock, base_clock), cand.rounds_of(clock, cand_clock)
        if not b or not c:
            continue
        every = (round_medians(b), round_medians(c))
        bm, cm, dropped = verdicts.clean(*every, base.runqueue_shares(), cand.runqueue_shares())
        out.append(Sample(key, clock, bm, cm, dropped, every_round=every if any(dropped) else None))
    return out


def _timing_verdict(key: str, tests: Sequence[Test], ratio: float | None) -> RowVerdict:
    if not tests:
        return RowVerdict(key, NOT_MEASURED, "no clock recorded on both sides")
    word = verdicts.gate_verdict(tests)
    parts = [f"{t.clock}: {t.verdict.replace('_', ' ')} {t.interval()} {t.reason}" for t in tests]
    message = "; ".join(p.replace("  ", " ") for p in parts)
    if word == NOT_MEASURED and ratio is not None:
        message = f"median x{ratio:.3f}, not gated: " + message
    return RowVerdict(key, word, message, tuple(tests))


def _status(row: Row, base: Row | None, timing: bool) -> RowVerdict | None:
    """The status verdict of one row; None for a row ``ok`` on both sides (timing alone)."""
    key = row.key
    if row.failing:
        if base is not None and base.failing:
            return RowVerdict(key, "known_failure", f"{row.status} (baseline: {base.status})")
        was = f"baseline: {base.status}" if base else "no baseline row"
        return RowVerdict(key, "new_failure", f"{row.status} ({was}): {_last_line(row.error)}")
    if row.status == UNAVAILABLE:
        was = f" (baseline: {base.status})" if base is not None else ""
        return RowVerdict(
            key, NOT_MEASURED, f"not measured here, an environment gap{was}: {row.error}"
        )
    if row.status != OK:
        return RowVerdict(key, row.status, row.error)
    if base is None:
        return RowVerdict(key, "new_row", "ok; no baseline row, nothing to time against")
    if base.status in FAILING:
        return RowVerdict(key, "fixed", f"ok now; baseline: {base.status}")
    if base.status != OK:
        return RowVerdict(key, NOT_MEASURED, f"ok; baseline: {base.status}")
    if not timing:
        return RowVerdict(key, NOT_MEASURED, "ok; timings not compared (see the note)")
    return None


def _untimed(status: RowVerdict, row: Row, base: Row | None) -> RowVerdict:
    """A known failure that is not timed on both sides: never passed on timing."""
    if status.kind != "known_failure" or base is None:
        return status
    sides = [name for name, r in (("baseline", base), ("this run", row)) if r.timing]
    where = f"timed in the {sides[0]} only" if sides else "timed on neither side"
    return dataclasses.replace(
        status, message=f"{status.message}; timing inconclusive: {where}", timing=INCONCLUSIVE
    )


def _beside(status: RowVerdict | None, timed: RowVerdict) -> RowVerdict:
    """A timed row's verdict with its status beside: a new failure still fails."""
    if status is None or status.kind in TIMING_KINDS:
        return timed
    kind = status.kind if status.fails else timed.kind
    message = f"{status.kind.replace('_', ' ')}: {status.message}; timing: {timed.message}"
    return RowVerdict(timed.key, kind, message, timed.tests)


def compare(
    current: Results,
    baseline: Results | None,
    *,
    threshold: float,
    alpha: float,
    looks: int = 1,
    timing: bool = True,
    note: str = "",
) -> Comparison:
    """Verdicts for every row of ``current`` (and rows the baseline had that are gone).

    ``baseline`` None means there is none: every failing row is a new failure. ``timing`` False
    compares statuses only (a baseline of another device class). ``looks``: the planned looks
    of an adaptive run (the error rate is split over them).
    """
    status: dict[str, RowVerdict | None] = {}
    timed_rows: list[tuple[str, Row, Row]] = []
    base_rows = {r.key: r for r in baseline.rows} if baseline else {}
    for row in current.rows:
        base = base_rows.get(row.key)
        status[row.key] = verdict = _status(row, base, timing)
        both = base is not None and row.timing and base.timing
        if base is not None and (verdict is None or (timing and both)):
            timed_rows.append((row.key, base, row))
        elif verdict is not None and timing:
            status[row.key] = _untimed(verdict, row, base)
    design = Design(threshold=threshold, alpha=alpha, looks=looks)
    base_clock = str(baseline.settings.get("clock", "wall")) if baseline else "wall"
    cand_clock = str(current.settings.get("clock", "wall"))
    samples = [s for key, b, c in timed_rows for s in samples_of(key, b, c, base_clock, cand_clock)]
    family = verdicts.judge(samples, design) if timing else None
    for key, b, c in timed_rows:
        ratio = None
        if b.flat_samples and c.flat_samples:
            ratio = statistics.median(c.flat_samples) / statistics.median(b.flat_samples)
        timed = _timing_verdict(key, family.of(key) if family else [], ratio)
        status[key] = _beside(status[key], timed)
    ordered = [v for r in current.rows if (v := status[r.key]) is not None]
    current_keys = {r.key for r in current.rows}
    for key, base in base_rows.items():
        if key not in current_keys:
            ordered.append(
                RowVerdict(key, "dropped_row", f"in the baseline ({base.status}), not in this run")
            )
    return Comparison(ordered, timing=timing, note=note, family=family)


def choose_baseline(
    device_key: str, profile: str, candidates: Sequence[Results]
) -> tuple[Results | None, bool, str]:
    """The baseline to compare with: (results, compare timings?, note for the report).

    A baseline of the same profile and the same device class
    (:func:`mlrelease.perf.device.device_class`: CPU vendor, family and core count, or GPU
    model) compares statuses and timings, the exact device first. Without one, another class's
    baseline of the profile compares statuses only (statuses rarely depend on the CPU; timings
    always do). Without any, there is nothing to compare with.
    """
    from mlrelease.perf.device import device_class

    same_profile = [c for c in candidates if c.profile == profile]
    mine = device_class(device_key)
    for candidate in sorted(same_profile, key=lambda c: c.device_key != device_key):
        if device_class(candidate.device_key) == mine:
            note = (
                ""
                if candidate.device_key == device_key
                else f"baseline from `{candidate.device_key}`, same device class `{mine}`"
            )
            return candidate, True, note
    if same_profile:
        other = same_profile[0]
        return (
            other,
            False,
            (
                f"no baseline for device class `{mine}` (this device: `{device_key}`): "
                f"statuses compared with `{other.device_key}`'s baseline, timings not measured"
            ),
        )
    return (
        None,
        False,
        (
            f"no baseline for profile `{profile}`: any failing row is a new "
            "failure, timings not measured"
        ),
    )


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(no message)"
