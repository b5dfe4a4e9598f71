"""Per-model, per-step verdicts and their rendering (Markdown, rich table, JSON). Pure."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from mlrelease import markdown as md
from mlrelease.models.escaping import console, md_code, md_text


class StepStatus(str, enum.Enum):
    """The verdict of one step. ``warn`` passes but says what looked wrong."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


STEPS: dict[str, str] = {
    "integrity": "0 integrity",
    "checker": "1 checker",
    "shape_inference": "2 shapes",
    "opset_imports": "3 opsets",
    "compat": "4 compat",
    "inference": "5 inference",
    "version_conversion": "6 convert",
    "performance": "perf",
}
"""Step ids in order, with their column titles. ``integrity`` guards every other step: it
checks the untrusted file (containment, checksums, protobuf, tensor sizes, recursion) before
anything parses, allocates or runs it. ``performance`` runs only when a baseline is declared."""

DEFAULT_STEPS = [s for s in STEPS if s != "performance"]

STYLE = {
    StepStatus.PASS: "green",
    StepStatus.WARN: "yellow",
    StepStatus.FAIL: "bold red",
    StepStatus.SKIP: "dim",
}


@dataclass
class StepVerdict:
    """What one step found for one model."""

    step: str
    outcome: StepStatus
    summary: str
    details: list[str] = field(default_factory=list)
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "outcome": self.outcome.value,
            "summary": self.summary,
            "details": list(self.details),
            "duration_s": round(self.duration_s, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StepVerdict:
        return cls(
            step=str(data["step"]),
            outcome=StepStatus(data["outcome"]),
            summary=str(data["summary"]),
            details=[str(d) for d in data.get("details", [])],
            duration_s=float(data.get("duration_s", 0.0)),
        )


@dataclass
class ModelVerdict:
    """Every step's verdict for one model, and what the sandbox measured."""

    name: str
    path: str
    steps: list[StepVerdict] = field(default_factory=list)
    duration_s: float = 0.0
    peak_rss_mb: float | None = None
    """The verifier worker's own peak resident memory (None where the platform cannot say)."""
    notes: list[str] = field(default_factory=list)
    """Sandbox remarks (limits not enforceable on this platform, worker output on a crash)."""
    external_files: list[str] = field(default_factory=list)
    """External data files step 0 cleared (what a cached verdict also depends on)."""
    cached: bool = False
    """True when this verdict was read from the verdict cache instead of measured now."""
    limits: dict[str, int] = field(default_factory=dict)
    """What the verdict was reached under: ``memory_limit_mb``, ``time_limit_s`` and the
    budget (``max_nodes``, ``max_model_bytes``)."""

    @property
    def ok(self) -> bool:
        return all(s.outcome is not StepStatus.FAIL for s in self.steps)

    def step(self, name: str) -> StepVerdict | None:
        return next((s for s in self.steps if s.step == name), None)

    def failures(self) -> list[StepVerdict]:
        return [s for s in self.steps if s.outcome is StepStatus.FAIL]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "ok": self.ok,
            "duration_s": round(self.duration_s, 3),
            "peak_rss_mb": None if self.peak_rss_mb is None else round(self.peak_rss_mb, 1),
            "notes": list(self.notes),
            "external_files": list(self.external_files),
            "cached": self.cached,
            "limits": dict(self.limits),
            "steps": [s.to_dict() for s in self.steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelVerdict:
        return cls(
            name=data["name"],
            path=data["path"],
            steps=[StepVerdict.from_dict(s) for s in data["steps"]],
            duration_s=float(data.get("duration_s", 0.0)),
            peak_rss_mb=data.get("peak_rss_mb"),
            notes=list(data.get("notes", [])),
            external_files=[str(f) for f in data.get("external_files", [])],
            cached=bool(data.get("cached", False)),
            limits={str(k): int(v) for k, v in data.get("limits", {}).items()},
        )


def columns(verdicts: Sequence[ModelVerdict]) -> list[str]:
    """Step ids that appear in any verdict, in step order."""
    seen = {s.step for v in verdicts for s in v.steps}
    return [step for step in STEPS if step in seen]


def _cell(verdict: StepVerdict | None) -> str:
    return "" if verdict is None else verdict.outcome.value


def markdown_table(verdicts: Sequence[ModelVerdict]) -> str:
    """One row per model, one column per step, then the time; Markdown."""
    steps = columns(verdicts)
    head = ["model", *(STEPS[s] for s in steps), "verdict", "time"]
    rows = [
        [
            md_code(v.name),  # its pipes are escaped as a cell's
            *(_cell(v.step(s)) for s in steps),
            "**ok**" if v.ok else "**FAIL**",
            f"{v.duration_s:.1f} s",
        ]
        for v in verdicts
    ]
    return "\n".join(md.table(head, rows))


def findings(
    verdicts: Iterable[ModelVerdict],
    outcomes: Sequence[StepStatus] = (StepStatus.FAIL, StepStatus.WARN),
) -> list[str]:
    """Markdown bullets: each failed or warned step with its summary and details."""
    lines: list[str] = []
    for v in verdicts:
        for s in v.steps:
            if s.outcome in outcomes:
                lines.append(
                    f"- {md_code(v.name)} {STEPS.get(s.step, s.step)}: **{s.outcome.value}**: "
                    f"{md_text(s.summary)}"
                )
                extra = s.details[1:] if s.details and s.details[0] == s.summary else s.details
                lines.extend(f"  - {md_text(d)}" for d in extra[:20])
                if len(extra) > 20:
                    lines.append(f"  - ... and {len(extra) - 20} more")
        lines.extend(f"- {md_code(v.name)}: {md_text(n)}" for n in v.notes)
    return lines


def limits_line(verdicts: Sequence[ModelVerdict]) -> str:
    """One sentence: the memory and time limits and the budget each model was verified under,
    and the largest peak resident memory measured (empty when no verdict says)."""
    seen = {tuple(sorted(v.limits.items())) for v in verdicts if v.limits}
    if not seen:
        return ""
    parts = []
    for limits in map(dict, sorted(seen)):
        nodes = f"{limits['max_nodes']:,} nodes" if limits.get("max_nodes") else "no node budget"
        size = limits.get("max_model_bytes", 0)
        size_text = f"{size / 2**20:,.0f} MiB" if size else "no size budget"
        parts.append(
            f"memory limit {limits.get('memory_limit_mb', 0):,} MB, time limit "
            f"{limits.get('time_limit_s', 0)} s, budget {nodes} and {size_text}"
        )
    peaks = [v.peak_rss_mb for v in verdicts if v.peak_rss_mb is not None]
    peak = f"; largest verifier peak RSS {max(peaks):,.0f} MB" if peaks else ""
    return f"Per model: {'; '.join(parts)} (`[tool.mlrelease.models]`){peak}."


def markdown(verdicts: Sequence[ModelVerdict], title: str = "Model verification") -> str:
    """A full Markdown report: the table, the limits it was reached under, every finding."""
    failed = sum(not v.ok for v in verdicts)
    verdict = "PASS" if not failed else f"FAIL ({failed} of {len(verdicts)} models)"
    parts = [f"## {title}: {verdict}", "", markdown_table(verdicts)]
    line = limits_line(verdicts)
    if line:
        parts += ["", line]
    found = findings(verdicts)
    if found:
        parts += ["", "### Findings", "", *found]
    return "\n".join(parts) + "\n"


def rich_table(verdicts: Sequence[ModelVerdict], title: str = "model verification") -> Table:
    steps = columns(verdicts)
    failed = sum(not v.ok for v in verdicts)
    table = Table(
        title=f"{console(title)}: {'PASS' if not failed else 'FAIL'}", title_justify="left"
    )
    table.add_column("model")
    for step in steps:
        table.add_column(STEPS[step])
    table.add_column("time", justify="right")
    for v in verdicts:
        cells = []
        for step in steps:
            sv = v.step(step)
            cells.append("" if sv is None else f"[{STYLE[sv.outcome]}]{sv.outcome.value}[/]")
        table.add_row(console(v.name), *cells, f"{v.duration_s:.1f} s")
    return table


def summary(verdicts: Sequence[ModelVerdict]) -> str:
    """One line: how many models passed, and the first failure (inert Markdown)."""
    failed = [v for v in verdicts if not v.ok]
    warned = sum(any(s.outcome is StepStatus.WARN for s in v.steps) for v in verdicts)
    head = f"{len(verdicts) - len(failed)}/{len(verdicts)} models pass every step"
    if warned:
        head += f" ({warned} with warnings)"
    if failed:
        first = failed[0].failures()[0]
        step = STEPS.get(first.step, first.step)
        head += f"; first failure: {md_text(failed[0].name)} {step}: {md_text(first.summary)}"
    cached = sum(v.cached for v in verdicts)
    if cached:
        head += f"; {cached} verdict(s) from the cache (same files, same tool versions)"
    return head
