"""PNG plots of a results document: latency against batch size, speedup over PyTorch eager."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mlrelease.perf import history as store
from mlrelease.perf.results import Results
from mlrelease.perf.stats import round_medians
from mlrelease.perf.tables import speedups
from mlrelease.perf.verdict import CLOCKS, Test


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on CI or in a nox session
    import matplotlib.pyplot as plt

    return plt


def _scalar_formatter() -> Any:
    from matplotlib.ticker import ScalarFormatter

    return ScalarFormatter()


def latency(results: Results, path: Path) -> Path:
    """One panel per model and shape: median latency (p10-p90 bars) per framework, by batch."""
    plt = _pyplot()
    groups = list(dict.fromkeys((r.model, r.shape) for r in results.rows))
    columns = min(2, len(groups)) or 1
    lines = math.ceil(len(groups) / columns) or 1
    figure, axes = plt.subplots(
        lines,
        columns,
        figsize=(6 * columns, 3.6 * lines + 0.6),
        squeeze=False,
        layout="constrained",
    )
    cpu_clock = results.settings.get("clock") == "cpu"
    for index, (model, shape) in enumerate(groups):
        ax = axes[index // columns][index % columns]
        mine = [r for r in results.rows if (r.model, r.shape) == (model, shape)]
        notes = []
        for framework in dict.fromkeys(r.framework for r in mine):
            points = [(r.batch, r.summary()) for r in mine if r.framework == framework]
            ok = [(b, s) for b, s in points if s is not None]
            failed = sorted({r.status for r in mine if r.framework == framework and r.failing})
            if failed:
                notes.append(f"{framework}: {', '.join(failed)}")
            if not ok:
                continue
            xs = [b for b, _ in ok]
            ys = [s.median_ms for _, s in ok]
            low = [s.median_ms - s.min_ms for _, s in ok]
            high = [s.p90_ms - s.median_ms for _, s in ok]
            ax.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, label=framework)
        ax.set_title(f"{model} {shape}")
        batches = sorted({r.batch for r in mine})
        ax.set_xlabel("batch size")
        ax.set_ylabel(f"median {'CPU time' if cpu_clock else 'latency'} (ms)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(batches, [str(b) for b in batches])
        ax.set_xlim(batches[0] / 1.5, batches[-1] * 1.5)
        ax.yaxis.set_major_formatter(_scalar_formatter())
        ax.yaxis.set_minor_formatter(_scalar_formatter())
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
        if notes:
            ax.text(
                0.02,
                0.02,
                "\n".join(notes),
                transform=ax.transAxes,
                fontsize="small",
                color="firebrick",
                va="bottom",
            )
    for index in range(len(groups), lines * columns):
        axes[index // columns][index % columns].axis("off")
    figure.suptitle(
        f"{results.device_name} ({results.profile}): latency by batch size (bars: min to p90)",
        wrap=True,
    )
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def speedup(results: Results, path: Path) -> Path:
    """Bars: median speedup of each framework over PyTorch eager, per model, shape and batch."""
    plt = _pyplot()
    ratios = speedups(results.rows)
    labels = list(dict.fromkeys(f"{r.model}\n{r.shape}\nb{r.batch}" for r in results.rows))
    frameworks = [f for f in dict.fromkeys(r.framework for r in results.rows) if f != "pytorch"]
    figure, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(labels) + 2), 4.4), layout="constrained")
    width = 0.8 / max(1, len(frameworks))
    for i, framework in enumerate(frameworks):
        values = []
        for label in labels:
            model, shape, batch = label.split("\n")
            values.append(ratios.get(f"{model}/{shape}/{batch}/{framework}", 0.0))
        positions = [x + i * width for x in range(len(labels))]
        ax.bar(positions, values, width, label=framework)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([x + width * (len(frameworks) - 1) / 2 for x in range(len(labels))])
    ax.set_xticklabels(labels, fontsize="small")
    ax.set_ylabel("speedup over PyTorch eager (x)")
    ax.set_title(
        f"{results.device_name} ({results.profile}): speedup over PyTorch eager (no bar: not ok)",
        wrap=True,
    )
    if frameworks:
        ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write(results: Results, folder: Path) -> dict[str, Path]:
    """Write latency.png and speedup.png into ``folder``."""
    return {
        "latency": latency(results, folder / "latency.png"),
        "speedup": speedup(results, folder / "speedup.png"),
    }


VERDICT_COLOURS = {
    "regressed": "firebrick",
    "improved": "seagreen",
    "same": "steelblue",
    "inconclusive": "darkorange",
    "not_measured": "grey",
}


def comparison(
    baseline: Results, candidate: Results, tests: Sequence[Test], threshold: float, path: Path
) -> Path:
    """Baseline against candidate, one line per row and clock: each side's round medians
    (relative to the baseline's median), and the ratio's estimate with its simultaneous
    interval, coloured by verdict; dashed lines at the threshold."""
    plt = _pyplot()
    measured = [t for t in tests if t.estimate is not None]
    height = max(2.5, 0.45 * len(measured) + 1.6)
    figure, ax = plt.subplots(figsize=(9, height), layout="constrained")
    base_rows = {r.key: r for r in baseline.rows}
    cand_rows = {r.key: r for r in candidate.rows}
    base_clock = str(baseline.settings.get("clock", "wall"))
    cand_clock = str(candidate.settings.get("clock", "wall"))
    labels = []
    for y, test in enumerate(measured):
        b = round_medians(base_rows[test.key].rounds_of(test.clock, base_clock))
        c = round_medians(cand_rows[test.key].rounds_of(test.clock, cand_clock))
        centre = statistics.median(b)
        ax.plot([v / centre for v in b], [y - 0.18] * len(b), "o", color="grey", ms=3)
        ax.plot([v / centre for v in c], [y + 0.18] * len(c), "o", color="black", ms=3)
        assert test.estimate is not None
        low = test.low if test.low is not None else test.estimate
        high = test.high if test.high is not None else test.estimate
        ax.errorbar(
            [test.estimate],
            [y],
            xerr=[[test.estimate - low], [high - test.estimate]],
            fmt="D",
            color=VERDICT_COLOURS.get(test.verdict, "black"),
            capsize=4,
        )
        labels.append(f"{test.key} ({test.clock}): {test.verdict.replace('_', ' ')}")
    for x in (1 + threshold, 1 / (1 + threshold)):
        ax.axvline(x, linestyle="--", color="firebrick", linewidth=0.8)
    ax.axvline(1.0, color="black", linewidth=0.6)
    ax.set_yticks(range(len(measured)), labels, fontsize="small")
    ax.set_xlabel(
        "time relative to the baseline's median (grey: baseline rounds, black: candidate "
        "rounds, diamond: ratio and interval)"
    )
    ax.set_title(
        f"{candidate.device_name} ({candidate.profile}): candidate against baseline",
        wrap=True,
    )
    ax.grid(True, axis="x", alpha=0.3)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def history(entries: Sequence[dict[str, Any]], title: str, threshold: float, path: Path) -> Path:
    """One panel per row: its median per run on each clock, a vertical line at each step."""
    plt = _pyplot()
    keys = list(dict.fromkeys((str(e.get("profile")), k) for e in entries for k in e["rows"]))
    panels = [
        (profile, key)
        for profile, key in keys
        if any(store.series(entries, key, c, profile) for c in CLOCKS)
    ]
    columns = min(2, len(panels)) or 1
    lines = math.ceil(len(panels) / columns) or 1
    figure, axes = plt.subplots(
        lines, columns, figsize=(6.5 * columns, 3.2 * lines), squeeze=False, layout="constrained"
    )
    for index, (profile, key) in enumerate(panels):
        ax = axes[index // columns][index % columns]
        for clock in CLOCKS:
            points = store.series(entries, key, clock, profile)
            if not points:
                continue
            ax.plot(range(len(points)), [p.value_ms for p in points], "o-", label=clock, ms=3)
            for step in store.steps(points, threshold=threshold):
                ax.axvline(step.index - 0.5, color="firebrick", linestyle=":", linewidth=1)
            ax.set_xticks(
                range(len(points)), [p.commit[:7] for p in points], rotation=45, fontsize="x-small"
            )
        ax.set_title(f"{profile}: {key}", fontsize="small", wrap=True)
        ax.set_ylabel("median (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    for index in range(len(panels), lines * columns):
        axes[index // columns][index % columns].axis("off")
    figure.suptitle(f"{title}: per-row medians by commit (dotted: a step)", wrap=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
