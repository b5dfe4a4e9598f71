"""PNG plots of a results document: latency against batch size, speedup over PyTorch eager."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from mlrelease.perf.results import Results, speedups


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
    figure, axes = plt.subplots(lines, columns, figsize=(6 * columns, 3.6 * lines), squeeze=False)
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
        f"{results.device_name} ({results.profile}): latency by batch size (bars: min to p90)"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def speedup(results: Results, path: Path) -> Path:
    """Bars: median speedup of each framework over PyTorch eager, per model, shape and batch."""
    plt = _pyplot()
    ratios = speedups(results.rows)
    labels = list(dict.fromkeys(f"{r.model}\n{r.shape}\nb{r.batch}" for r in results.rows))
    frameworks = [f for f in dict.fromkeys(r.framework for r in results.rows) if f != "pytorch"]
    figure, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(labels) + 2), 4))
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
        f"{results.device_name} ({results.profile}): speedup over PyTorch eager (no bar: not ok)"
    )
    if frameworks:
        ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write(results: Results, folder: Path) -> dict[str, Path]:
    """Write latency.png and speedup.png into ``folder``."""
    return {
        "latency": latency(results, folder / "latency.png"),
        "speedup": speedup(results, folder / "speedup.png"),
    }
