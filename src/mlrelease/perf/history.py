"""The perf history: one line per run and commit, per device class; time series and steps.

``perf run`` appends an entry (commit, date, device key and class, library versions, and per
row its status and the rounds' medians on each clock) to ``<baselines-dir>/history/
<device-class>.jsonl``. The docs render it as per-row time series (``mlrelease perf history``,
a generated page), and :func:`steps` names the first commit of each shift, as airspeed
velocity does for its benchmarks. Pure, except :func:`append` and :func:`read`.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlrelease import markdown
from mlrelease.errors import UserError
from mlrelease.perf.device import device_class
from mlrelease.perf.results import OK, Results
from mlrelease.perf.stats import mann_whitney, round_medians
from mlrelease.perf.verdict import CLOCKS

FOLDER = "history"


def entry(results: Results, commit: str, *, dirty: bool = False) -> dict[str, Any]:
    """The history line of one run."""
    clock = str(results.settings.get("clock", "wall"))
    rows: dict[str, Any] = {}
    for row in results.rows:
        item: dict[str, Any] = {"status": row.status}
        if row.status == OK:
            for name in CLOCKS:
                rounds = row.rounds_of(name, clock)
                if rounds:
                    medians = [round(m / 1e6, 4) for m in round_medians(rounds)]
                    item[f"{name}_ms"] = round(statistics.median(medians), 4)
                    item[f"{name}_rounds_ms"] = medians
        rows[row.key] = item
    return {
        "commit": commit,
        "dirty": dirty,
        "created": results.created,
        "profile": results.profile,
        "device_key": results.device_key,
        "device_class": device_class(results.device_key),
        "versions": dict(results.environment.get("libraries", {})),
        "rows": rows,
    }


def path_for(folder: Path, results: Results) -> Path:
    return folder / FOLDER / f"{device_class(results.device_key)}.jsonl"


def append(path: Path, line: dict[str, Any]) -> Path:
    """Append one entry (a line of JSON) to the history file at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, sort_keys=True) + "\n")
    return path


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry of a history file, oldest first; a clear error naming a bad line."""
    entries: list[dict[str, Any]] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(
                f"{path}:{number}: not a JSON history entry ({exc}); remove the line or restore "
                "the file from git."
            ) from None
        if not isinstance(item, dict) or "rows" not in item or "commit" not in item:
            raise UserError(f"{path}:{number}: expected an object with 'commit' and 'rows'.")
        entries.append(item)
    return entries


@dataclass(frozen=True)
class Point:
    commit: str
    created: str
    value_ms: float


@dataclass(frozen=True)
class Shift:
    """A shift in a row's series: ``commit`` is the first commit after it."""

    key: str
    clock: str
    commit: str
    index: int
    ratio: float
    """median(after) / median(before)."""


def series(entries: Sequence[dict[str, Any]], key: str, clock: str, profile: str) -> list[Point]:
    """The row's median on ``clock`` per entry of ``profile`` (entries without it skipped)."""
    out = []
    for item in entries:
        value = item["rows"].get(key, {}).get(f"{clock}_ms")
        if item.get("profile") == profile and value:
            out.append(Point(str(item["commit"]), str(item.get("created", "")), float(value)))
    return out


def steps(
    points: Sequence[Point],
    *,
    threshold: float,
    alpha: float = 0.05,
    key: str = "",
    clock: str = "",
    min_segment: int = 2,
) -> list[Shift]:
    """Shifts of a series by binary segmentation (log scale): the split that leaves the least
    squared deviation within its two segments is a step when their medians differ by at least
    ``threshold`` and the segments differ (one-sided Mann-Whitney U at ``alpha`` with 3+ points
    a side; all points of one beyond all of the other with 2); then each segment is searched
    again."""
    found: list[Shift] = []

    def sse(values: list[float]) -> float:
        mean = statistics.fmean(values)
        return sum((v - mean) ** 2 for v in values)

    def search(lo: int, hi: int) -> None:
        values = [math.log(p.value_ms) for p in points[lo:hi]]
        cuts = range(min_segment, len(values) - min_segment + 1)
        if not cuts:
            return
        best_at = min(cuts, key=lambda cut: sse(values[:cut]) + sse(values[cut:]))
        best = statistics.median(values[best_at:]) - statistics.median(values[:best_at])
        if abs(best) < math.log(1 + threshold):
            return
        before, after = values[:best_at], values[best_at:]
        if min(len(before), len(after)) >= 3:
            p = mann_whitney(after, before, "greater" if best > 0 else "less")
            if p > alpha:
                return
        elif not (min(after) > max(before) if best > 0 else max(after) < min(before)):
            return
        search(lo, lo + best_at)
        found.append(Shift(key, clock, points[lo + best_at].commit, lo + best_at, math.exp(best)))
        search(lo + best_at, hi)

    search(0, len(points))
    return sorted(found, key=lambda s: s.index)


def render(
    entries: Sequence[dict[str, Any]], name: str, *, threshold: float, plot: str | None = None
) -> str:
    """The Markdown section of one device class: per row and clock the latest value, the
    number of runs, and the steps found (first commit of each shift)."""
    profiles = list(dict.fromkeys(str(e.get("profile")) for e in entries))
    lines = [f"## {name}", ""]
    commits = list(dict.fromkeys(str(e["commit"])[:10] for e in entries))
    lines += [
        f"{len(entries)} run(s) over {len(commits)} commit(s), "
        f"{entries[0].get('created', '?')} to {entries[-1].get('created', '?')}; "
        f"steps: a shift of at least {threshold:.0%} between the medians of two segments.",
        "",
    ]
    if plot:
        lines += [f"![Per-row time series on {name}]({plot})", ""]
    rows: list[tuple[object, ...]] = []
    for profile in profiles:
        keys = list(
            dict.fromkeys(k for e in entries if e.get("profile") == profile for k in e["rows"])
        )
        for key in keys:
            for clock in CLOCKS:
                points = series(entries, key, clock, profile)
                if not points:
                    continue
                found = steps(points, threshold=threshold, key=key, clock=clock)
                text = ", ".join(f"`{s.commit[:10]}` x{s.ratio:.2f}" for s in found) or "none"
                rows.append(
                    (profile, f"`{key}`", clock, len(points), f"{points[-1].value_ms:.2f}", text)
                )
    header = ["profile", "row", "clock", "runs", "latest (ms)", "steps (first commit, ratio)"]
    right = markdown.RIGHT
    lines += markdown.table(header, rows, align=["---", "---", "---", right, right])
    return "\n".join(lines) + "\n"
