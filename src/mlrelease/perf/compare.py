"""Compare a perf run with a baseline: status changes, then significant slowdowns (pure).

Rules, per combination:

* a row failing now that was not failing in the baseline (or is new) **fails**; one that was
  already failing is a known failure and does not; an ``ok`` row that became ``unavailable``
  fails too (a framework went missing);
* a row ``ok`` in both, with at least :data:`MIN_ROUNDS` rounds a side, is timed against the
  baseline with :func:`mlrelease.perf.stats.compare` (threshold and alpha of the profile); a
  regression **fails**. With fewer rounds the ratio is reported, not gated. Against a recorded
  baseline, rows flagged unstable on either side are not timed (their spread is over the
  profile's limit); nothing is timed when the baseline comes from another device. Interleaved
  rounds of two builds are timed, unstable or not: the rounds' spread holds the machine's
  drift.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from mlrelease.perf.results import FAILING, OK, UNAVAILABLE, Results, Row
from mlrelease.perf.stats import Slowdown
from mlrelease.perf.stats import compare as compare_samples

FAILS = frozenset({"new_failure", "regression"})

MIN_ROUNDS = 4
"""Rounds (worker processes) a side needs for a timing verdict. The median of one process is
not the build's: measured here, six processes of PyTorch eager on EfficientNet-B0 had medians
from 17.9 to 31.1 ms of CPU time (ONNX Runtime: within 2%), a swing that one process against
one cannot tell from a regression. And with three a side Mann-Whitney U cannot go below
p = 0.05."""


@dataclass(frozen=True)
class Verdict:
    """The comparison of one combination."""

    key: str
    kind: str
    """new_failure, regression, known_failure, fixed, slower, faster, same, not_timed,
    new_row, dropped_row, not_applicable."""
    message: str
    slowdown: Slowdown | None = None

    @property
    def fails(self) -> bool:
        return self.kind in FAILS


@dataclass
class Comparison:
    """All verdicts, and what was compared."""

    verdicts: list[Verdict]
    timing: bool
    note: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.fails]

    @property
    def ok(self) -> bool:
        return not self.failed

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.verdicts:
            counts[v.kind] = counts.get(v.kind, 0) + 1
        return counts

    def summary(self) -> str:
        counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(self.counts().items()))
        head = (
            f"{len(self.failed)} of {len(self.verdicts)} combinations fail"
            if self.failed
            else f"no regression in {len(self.verdicts)} combinations"
        )
        return f"{head} ({counts})" + (f"; {self.note}" if self.note else "")

    def to_markdown(self) -> str:
        lines = [self.summary(), "", "| combination | verdict | detail |", "|---|---|---|"]
        order = {"new_failure": 0, "regression": 1}
        for v in sorted(self.verdicts, key=lambda v: order.get(v.kind, 2)):
            icon = "❌ " if v.fails else ""
            lines.append(
                f"| `{v.key}` | {icon}{v.kind.replace('_', ' ')} | {v.message.replace('|', '/')} |"
            )
        return "\n".join(lines) + "\n"


def _timing(
    key: str,
    base: Row,
    cand: Row,
    *,
    threshold: float,
    alpha: float,
    method: str,
    cov_limit: float | None,
) -> Verdict:
    unstable = [
        name
        for name, row in (("baseline", base), ("this run", cand))
        if cov_limit is not None and row.unstable(cov_limit)
    ]
    if unstable:
        return Verdict(
            key, "not_timed", f"unstable in {' and '.join(unstable)} (CoV over {cov_limit:.0%})"
        )
    rounds = min(len(base.samples_ns), len(cand.samples_ns))
    if rounds < MIN_ROUNDS:
        ratio = statistics.median(cand.flat_samples) / statistics.median(base.flat_samples)
        return Verdict(
            key,
            "not_timed",
            f"median x{ratio:.3f}, not gated: {rounds} round(s) a side, and a verdict needs "
            f"{MIN_ROUNDS} (processes of one build differ: up to 22% for PyTorch eager here); "
            "set the profile's rounds, or compare two builds with `perf compare --python`",
        )
    result = compare_samples(
        base.samples_ns,
        cand.samples_ns,
        threshold=threshold,
        alpha=alpha,
        method=method,
    )
    interval = (
        f"median x{result.ratio:.3f}, {1 - alpha:.0%} CI [{result.ci_low:.3f}, "
        f"{result.ci_high:.3f}], {result.method}"
    )
    if result.regression:
        return Verdict(
            key, "regression", f"slower beyond the {threshold:.0%} threshold: {interval}", result
        )
    if result.significant:
        return Verdict(
            key, "slower", f"significantly slower, but under {threshold:.0%}: {interval}", result
        )
    if result.ci_high < 1.0:
        return Verdict(key, "faster", interval, result)
    return Verdict(key, "same", interval, result)


def compare(
    current: Results,
    baseline: Results | None,
    *,
    threshold: float,
    alpha: float,
    method: str = "mannwhitney",
    timing: bool = True,
    interleaved: bool = False,
    note: str = "",
) -> Comparison:
    """Verdicts for every row of ``current`` (and rows the baseline had that are gone).

    ``baseline`` None means there is none: every failing row is a new failure. ``timing`` False
    compares statuses only (e.g. a baseline recorded on another device). ``interleaved``: the
    two sides' rounds ran interleaved (``perf compare --python``): unstable rows are timed too,
    the rounds' spread holding the machine's drift; a baseline recorded at another time has no
    such protection.
    """
    verdicts: list[Verdict] = []
    base_rows = {r.key: r for r in baseline.rows} if baseline else {}
    cov_limit = None if interleaved else current.cov_limit
    for row in current.rows:
        base = base_rows.get(row.key)
        key = row.key
        if row.failing:
            if base is not None and base.failing:
                verdicts.append(
                    Verdict(key, "known_failure", f"{row.status} (baseline: {base.status})")
                )
            else:
                was = f"baseline: {base.status}" if base else "no baseline row"
                verdicts.append(
                    Verdict(key, "new_failure", f"{row.status} ({was}): {_last_line(row.error)}")
                )
        elif row.status == UNAVAILABLE:
            if base is not None and base.status == OK:
                verdicts.append(
                    Verdict(key, "new_failure", f"ok in the baseline, now unavailable: {row.error}")
                )
            else:
                verdicts.append(Verdict(key, "not_timed", f"unavailable: {row.error}"))
        elif row.status != OK:
            verdicts.append(Verdict(key, row.status, row.error))
        elif base is None:
            verdicts.append(Verdict(key, "new_row", "ok; no baseline row"))
        elif base.status in FAILING:
            verdicts.append(Verdict(key, "fixed", f"ok now; baseline: {base.status}"))
        elif base.status != OK or not timing:
            verdicts.append(
                Verdict(key, "not_timed", "ok" + ("" if timing else "; timings not compared"))
            )
        else:
            verdicts.append(
                _timing(
                    key,
                    base,
                    row,
                    threshold=threshold,
                    alpha=alpha,
                    method=method,
                    cov_limit=cov_limit,
                )
            )
    current_keys = {r.key for r in current.rows}
    for key, base in base_rows.items():
        if key not in current_keys:
            verdicts.append(
                Verdict(key, "dropped_row", f"in the baseline ({base.status}), not in this run")
            )
    return Comparison(verdicts, timing=timing, note=note)


def choose_baseline(
    device_key: str, profile: str, candidates: Sequence[Results]
) -> tuple[Results | None, bool, str]:
    """The baseline to compare with: (results, compare timings?, note for the report).

    The same device's baseline of the same profile compares statuses and timings. Without one,
    another device's baseline of the profile compares statuses only (statuses rarely depend on
    the CPU model; timings always do). Without any, there is nothing to compare with.
    """
    same_profile = [c for c in candidates if c.profile == profile]
    for candidate in same_profile:
        if candidate.device_key == device_key:
            return candidate, True, ""
    if same_profile:
        other = same_profile[0]
        return (
            other,
            False,
            (
                f"no baseline for device `{device_key}`: statuses compared with "
                f"`{other.device_key}`'s baseline, timings not compared"
            ),
        )
    return (
        None,
        False,
        (
            f"no baseline for profile `{profile}`: any failing row is a new "
            "failure, timings not compared"
        ),
    )


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(no message)"
