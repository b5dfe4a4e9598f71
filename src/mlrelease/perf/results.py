"""Rows, statuses and the results document: JSON (raw samples), CSV and Markdown (pure).

Every combination of the matrix gets a row with a status, so a framework that failed to convert
a model shows as failing instead of silently missing (the seed's scripts dropped such rows).
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease import __version__, markdown
from mlrelease.errors import UserError
from mlrelease.perf.stats import Summary, summarize

SCHEMA_VERSION = 1

OK = "ok"
EXPORT_FAILED = "export_failed"
BUILD_FAILED = "build_failed"
PARITY_FAILED = "parity_failed"
RUNTIME_ERROR = "runtime_error"
OOM = "oom"
TIMEOUT = "timeout"
NOT_APPLICABLE = "not_applicable"
UNAVAILABLE = "unavailable"

STATUSES = (
    OK,
    EXPORT_FAILED,
    BUILD_FAILED,
    PARITY_FAILED,
    RUNTIME_ERROR,
    OOM,
    TIMEOUT,
    NOT_APPLICABLE,
    UNAVAILABLE,
)
FAILING = frozenset({EXPORT_FAILED, BUILD_FAILED, PARITY_FAILED, RUNTIME_ERROR, OOM, TIMEOUT})
"""Statuses that mean the framework could not run the model (a release may care)."""

ERROR_EXCERPT = 600
"""Characters of an error message kept in a row (the head of the last line that says why)."""


def excerpt(text: str, limit: int = ERROR_EXCERPT) -> str:
    """The informative part of an error output: its last non-empty lines, at most ``limit``."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) > limit and kept:
            break
        kept.insert(0, line[-limit:])
        size += len(line) + 1
    return "\n".join(kept)


@dataclass
class Row:
    """One combination's outcome."""

    model: str
    shape: str
    batch: int
    framework: str
    status: str
    error: str = ""
    """Why it is not ``ok`` (an error excerpt, or the not_applicable / unavailable reason)."""
    samples_ns: list[list[int]] = field(default_factory=list)
    """Timed-iteration latencies, one list per round."""
    build_s: float | None = None
    """Model build / session creation / compilation (see the methodology)."""
    first_s: float | None = None
    """The first inference after the build, apart from the steady state."""
    export_s: float | None = None
    """ONNX export of this model and shape (shared by the ONNX frameworks)."""
    parity: float | None = None
    """Relative error of the output against PyTorch eager (L2 norm of difference / of reference)."""
    warmup_iters: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    """Framework facts (providers in use, ONNX IR / opset, compile mode)."""
    wall_ns: list[list[int]] = field(default_factory=list)
    """Wall time less run-queue delay of the same iterations, one list per round (the gated
    wall clock; empty in results written before it was recorded)."""
    round_facts: list[dict[str, Any]] = field(default_factory=list)
    """Per round: pinned CPU, load, other tenants' share of that CPU, run-queue share."""

    @property
    def key(self) -> str:
        return f"{self.model}/{self.shape}/b{self.batch}/{self.framework}"

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    @property
    def flat_samples(self) -> list[int]:
        return [s for r in self.samples_ns for s in r]

    def summary(self) -> Summary | None:
        samples = self.flat_samples
        return summarize(samples, self.batch) if self.status == OK and len(samples) >= 2 else None

    def rounds_of(self, clock: str, sample_clock: str) -> list[list[int]]:
        """Rounds of samples on ``clock`` (``cpu`` or ``wall``) given the clock the samples were
        taken on (the profile's ``clock``): empty when this row has none."""
        if clock == "cpu":
            return self.samples_ns if sample_clock == "cpu" else []
        if self.wall_ns:
            return self.wall_ns
        return self.samples_ns if sample_clock == "wall" else []

    def runqueue_shares(self) -> list[float | None]:
        return [f.get("runqueue_share") for f in self.round_facts]

    def unstable(self, cov_limit: float) -> bool:
        summary = self.summary()
        return summary is not None and summary.cov > cov_limit

    def to_dict(self) -> dict[str, Any]:
        summary = self.summary()
        return {
            "key": self.key,
            "model": self.model,
            "shape": self.shape,
            "batch": self.batch,
            "framework": self.framework,
            "status": self.status,
            "error": self.error,
            "build_s": _round(self.build_s),
            "first_s": _round(self.first_s),
            "export_s": _round(self.export_s),
            "parity": self.parity,
            "warmup_iters": self.warmup_iters,
            "extra": self.extra,
            "summary": summary.to_dict() if summary else None,
            "samples_ns": self.samples_ns,
            "wall_ns": self.wall_ns,
            "round_facts": self.round_facts,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Row:
        return cls(
            model=data["model"],
            shape=data["shape"],
            batch=int(data["batch"]),
            framework=data["framework"],
            status=data["status"],
            error=data.get("error", ""),
            samples_ns=[list(map(int, r)) for r in data.get("samples_ns", [])],
            build_s=data.get("build_s"),
            first_s=data.get("first_s"),
            export_s=data.get("export_s"),
            parity=data.get("parity"),
            warmup_iters=int(data.get("warmup_iters", 0)),
            extra=dict(data.get("extra", {})),
            wall_ns=[list(map(int, r)) for r in data.get("wall_ns", [])],
            round_facts=[dict(f) for f in data.get("round_facts", [])],
        )


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class Results:
    """One profile run on one device: settings, environment and rows."""

    profile: str
    device_key: str
    device_name: str
    settings: dict[str, Any]
    environment: dict[str, Any]
    rows: list[Row]
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )
    duration_s: float = 0.0

    @property
    def cov_limit(self) -> float:
        return float(self.settings.get("unstable_cov", 0.10))

    def counts(self) -> dict[str, int]:
        return {s: n for s in STATUSES if (n := sum(r.status == s for r in self.rows))}

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "mlrelease", "version": __version__},
            "profile": self.profile,
            "device": {"key": self.device_key, "name": self.device_name},
            "created": self.created,
            "duration_s": round(self.duration_s, 1),
            "settings": self.settings,
            "environment": self.environment,
            "counts": self.counts(),
            "rows": [r.to_dict() for r in self.rows],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "results") -> Results:
        if data.get("schema_version") != SCHEMA_VERSION:
            raise UserError(
                f"{source}: schema_version {data.get('schema_version')!r} is not supported "
                f"(expected {SCHEMA_VERSION}); produce it with `mlrelease perf run` "
                f"(mlrelease {__version__})."
            )
        return cls(
            profile=data["profile"],
            device_key=data["device"]["key"],
            device_name=data["device"]["name"],
            settings=dict(data["settings"]),
            environment=dict(data["environment"]),
            rows=[Row.from_dict(r) for r in data["rows"]],
            created=data.get("created", ""),
            duration_s=float(data.get("duration_s", 0.0)),
        )


def read(path: Path) -> Results:
    """Read a results.json (or a baseline), with a clear error for a missing or foreign file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such results file; run `mlrelease perf run` first.") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not a JSON results file ({exc}).") from None
    if not isinstance(data, dict) or "rows" not in data:
        raise UserError(f"{path}: expected a perf results object with 'rows'.")
    return Results.from_dict(data, source=str(path))


def to_json(results: Results) -> str:
    return json.dumps(results.to_dict(), indent=1) + "\n"


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
    return f"{summary.median_ms:.2f} ms{flag}"


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
    ]
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
