"""The results as tables: CSV (one line per combination) and Markdown (the matrix, the
precision, the unstable rows, the rows that are not ok), and the speedups the plots draw
(pure)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from mlrelease import markdown
from mlrelease.perf import sensitivity
from mlrelease.perf.results import OK, Results, Row

CSV_COLUMNS = (
    "model",
    "shape",
    "batch",
    "framework",
    "status",
    "median_ms",
    "mean_ms",
    "p90_ms",
    "p95_ms",
    "p99_ms",
    "min_ms",
    "std_ms",
    "cov",
    "unstable",
    "throughput",
    "n",
    "build_s",
    "first_s",
    "export_s",
    "parity",
    "error",
)


def to_csv(results: Results) -> str:
    """One line per combination, summary statistics in columns."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in results.rows:
        summary = row.summary()
        line: dict[str, Any] = {
            "model": row.model,
            "shape": row.shape,
            "batch": row.batch,
            "framework": row.framework,
            "status": row.status,
            "build_s": _fmt(row.build_s),
            "first_s": _fmt(row.first_s),
            "export_s": _fmt(row.export_s),
            "parity": "" if row.parity is None else f"{row.parity:.3g}",
            "error": row.error.replace("\n", " | "),
        }
        if summary:
            line.update({k: _fmt(v) for k, v in summary.to_dict().items() if k in CSV_COLUMNS})
            line["unstable"] = str(summary.cov > results.cov_limit).lower()
        writer.writerow(line)
    return buffer.getvalue()


def _fmt(value: float | int | None) -> str:
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def _cell(row: Row, cov_limit: float) -> str:
    summary = row.summary()
    if summary is None:
        return f"**{row.status}**" if row.failing else row.status.replace("_", " ")
    flag = " ⚠️" if summary.cov > cov_limit else ""
    parity = f" (**{row.status}**)" if row.status != OK else ""
    return f"{summary.median_ms:.2f} ms{flag}{parity}"


def matrix_table(results: Results, *, speedup_over: str = "pytorch") -> list[str]:
    """Markdown table: a line per model x shape x batch, a column per framework (median ms)."""
    frameworks = list(dict.fromkeys(r.framework for r in results.rows))
    groups: dict[tuple[str, str, int], dict[str, Row]] = {}
    for row in results.rows:
        groups.setdefault((row.model, row.shape, row.batch), {})[row.framework] = row
    others = [f for f in frameworks if f != speedup_over]
    head = ["model", "shape", "batch", *frameworks]
    if speedup_over in frameworks:
        head += [f"{f} speedup" for f in others]
    rows = []
    for (model, shape, batch), cells in groups.items():
        line = [model, shape, str(batch)]
        line += [_cell(cells[f], results.cov_limit) if f in cells else "" for f in frameworks]
        if speedup_over in frameworks:
            reference = cells.get(speedup_over)
            base = reference.summary() if reference else None
            for f in others:
                other = cells[f].summary() if f in cells else None
                line.append(f"{base.median_ms / other.median_ms:.2f}x" if base and other else "")
        rows.append(line)
    return markdown.table(
        head, rows, align=[markdown.LEFT] * 3 + [markdown.RIGHT] * (len(head) - 3)
    )


def failures(rows: Iterable[Row]) -> list[str]:
    """Markdown list of the rows that are not ok, with their error excerpts."""
    lines: list[str] = []
    for row in rows:
        if row.status == OK:
            continue
        message = row.error.strip().splitlines()[-1] if row.error.strip() else "(no message)"
        lines.append(f"- `{row.key}`: **{row.status}**: {message[:300]}")
    return lines


def _precision_line(settings: dict[str, Any]) -> str:
    policy = settings.get("precision")
    if policy is None:
        return "Precision: not recorded (results from before numeric policies)."
    return (
        f"Precision: {policy} (applied explicitly in every framework; see each row's "
        f"`extra.precision`). Parity: relative error against PyTorch eager computed on this "
        f"device under strict fp32, tolerance {settings.get('parity_tolerance')}; a row "
        "failing it is still timed (its status beside its timing)."
    )


def to_markdown(results: Results, *, heading: str = "#") -> str:
    """The results as a Markdown section: what ran, the matrix table, the failures."""
    counts = ", ".join(f"{n} {s}" for s, n in results.counts().items())
    settings = results.settings
    lines = [
        f"{heading} {results.device_name}: profile `{results.profile}`",
        "",
        f"{len(results.rows)} combinations ({counts}); {results.created}, "
        f"{results.duration_s:.0f} s. Median latency per batch "
        f"({'process CPU time' if settings.get('clock') == 'cpu' else 'wall time'}); "
        f"⚠️ marks a coefficient of "
        f"variation over {results.cov_limit:.0%} (unstable). Speedup is over PyTorch eager.",
        "",
        *matrix_table(results),
        "",
        f"Threads: {settings.get('threads') or 'library default'}; opset "
        f"{settings.get('opset')}; at least {settings.get('iters')} timed iterations and "
        f"{settings.get('min_time_s')} s after at least {settings.get('warmup_iters')} warm-up "
        f"iterations and {settings.get('warmup_s')} s."
        + "".join(
            f" {m}: {n} layers (reduced depth)."
            for m, n in sorted((settings.get("layers") or {}).items())
        ),
        "",
        _precision_line(settings),
    ]
    lines += sensitivity.unstable_section(results)
    problems = failures(results.rows)
    if problems:
        lines += ["", "Rows that are not ok:", "", *problems]
    return "\n".join(lines) + "\n"


def speedups(rows: Sequence[Row], over: str = "pytorch") -> dict[str, float]:
    """Key -> median(over) / median(row) for ok rows that have an ok ``over`` row."""
    by_key = {(r.model, r.shape, r.batch, r.framework): r for r in rows}
    out: dict[str, float] = {}
    for row in rows:
        reference = by_key.get((row.model, row.shape, row.batch, over))
        mine, theirs = row.summary(), reference.summary() if reference else None
        if mine and theirs and row.framework != over:
            out[row.key] = theirs.median_ms / mine.median_ms
    return out
