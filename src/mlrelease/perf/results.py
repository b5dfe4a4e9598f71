"""Rows, statuses and the results document: JSON with the raw samples (pure; the CSV and
Markdown renderings are :mod:`mlrelease.perf.tables`).

Every combination of the matrix gets a row with a status, so a framework that failed to convert
a model shows as failing instead of silently missing (the seed's scripts dropped such rows).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease import __version__
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
RUNS = frozenset({OK, PARITY_FAILED})
"""Statuses of a row that runs, so is timed: a parity failure is reported beside the timing."""

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
    def timing(self) -> bool:
        """Whether this row has timed rounds (an ``ok`` row, or one that ran and failed its
        parity check)."""
        return bool(self.samples_ns)

    @property
    def flat_samples(self) -> list[int]:
        return [s for r in self.samples_ns for s in r]

    def summary(self) -> Summary | None:
        samples = self.flat_samples
        return summarize(samples, self.batch) if self.status in RUNS and len(samples) >= 2 else None

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
