"""What a run or a comparison cannot see, named row by row (pure).

Two statements the pages make instead of staying silent:

* **unstable rows** of a run: a row whose iterations vary more than the profile's stability
  threshold (``unstable-cov``), with its coefficient of variation, its median iteration and how
  many iterations it timed. Short iterations (batch 1 on a GPU is launch-bound) are named as
  such: the timer's and the launch's jitter are then a large share of each iteration;
* **rows blind at the threshold** of a comparison: a timed row whose minimum detectable effect
  (the far bound of its interval, at this noise and number of rounds) is above the threshold, so
  a slowdown of the threshold's size could not be told from none. The statement gives the rounds
  each side had and the rounds that the same noise would need, from the usual ``1 / sqrt(n)``
  narrowing of the interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mlrelease import markdown
from mlrelease.perf.results import Results
from mlrelease.perf.verdict import INCONCLUSIVE, Test

SHORT_ITERATION_MS = 2.0
"""An iteration shorter than this is dominated by launch and timer jitter."""


@dataclass(frozen=True)
class Blind:
    """A row and clock whose interval could not rule out a change of the threshold's size."""

    key: str
    clock: str
    mde: float
    """Minimum detectable effect at this noise (0.42: 42%); ``inf`` with too few rounds."""
    rounds: int
    """Rounds of the smaller side."""

    def rounds_needed(self, threshold: float) -> int | None:
        """Rounds per side that the same noise would need to reach ``threshold`` (None when
        the bound is unbounded: no estimate of the noise yet)."""
        if math.isinf(self.mde) or self.mde <= 0 or self.rounds <= 0:
            return None
        return math.ceil(self.rounds * (self.mde / threshold) ** 2)


def blind_rows(tests: Iterable[Test], threshold: float) -> list[Blind]:
    """The inconclusive tests whose minimum detectable effect is above ``threshold``."""
    found = []
    for test in tests:
        if test.verdict != INCONCLUSIVE:
            continue
        mde = math.inf if test.mde is None else test.mde
        if mde > threshold:
            found.append(Blind(test.key, test.clock, mde, min(test.rounds)))
    return sorted(found, key=lambda b: (-b.mde, b.key, b.clock))


def blind_section(blind: Sequence[Blind], threshold: float) -> list[str]:
    """Markdown naming every blind row, or nothing when there is none."""
    if not blind:
        return []
    rows = []
    for b in blind:
        needed = b.rounds_needed(threshold)
        mde = "unbounded" if math.isinf(b.mde) else f"{b.mde:.0%}"
        rows.append(
            (
                f"`{b.key}`",
                b.clock,
                mde,
                str(b.rounds),
                "more rounds give the first bound" if needed is None else f"about {needed}",
            )
        )
    head = ["row", "clock", "detectable effect", "rounds", "rounds for the threshold"]
    return [
        "",
        f"Rows blind at the threshold ({threshold:.0%}): at this noise and number of rounds a "
        "slowdown of the threshold's size could not be told from none. Their timing is "
        "`inconclusive`, never `same`.",
        "",
        *markdown.table(head, rows),
    ]


def unstable_section(results: Results) -> list[str]:
    """Markdown naming every row over the profile's stability threshold, or nothing."""
    lines = []
    for row in results.rows:
        summary = row.summary()
        if summary is None or summary.cov <= results.cov_limit:
            continue
        why = (
            f"short iterations ({summary.median_ms:.2f} ms): launch and timer jitter are a "
            "large share of each"
            if summary.median_ms < SHORT_ITERATION_MS
            else f"iterations of {summary.median_ms:.2f} ms vary with the machine"
        )
        lines.append(
            f"- `{row.key}`: variation {summary.cov:.1%} over {summary.n} iterations; {why}. "
            "Its comparisons use the rounds' medians, so it is judged on those, with the "
            "detectable effect each comparison states."
        )
    if not lines:
        return []
    head = (
        f"Rows over the profile's stability threshold ({results.cov_limit:.0%} coefficient of "
        "variation):"
    )
    return ["", head, "", *lines]
