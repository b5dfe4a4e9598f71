"""A bisect's answer as JSON (``--json``, ``bisect.json``), as a page (``bisect.md``) and on
the terminal (pure, but for :func:`write` and the console)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from mlrelease import markdown
from mlrelease.perf.bisect.paired import StepDesign
from mlrelease.perf.bisect.state import CULPRIT, RANGE, BisectAnswer, BisectHistory
from mlrelease.perf.config import BisectConfig

SCHEMA = "mlrelease-perf-bisect/1"


def header(
    console: Console,
    history: BisectHistory,
    profile: str,
    design: StepDesign,
    resumed: int,
    journal: Path,
    two_way: int = 0,
) -> None:
    console.print(
        escape(
            f"perf bisect: {history.good[:12]} (good) .. {history.bad[:12]} (bad), "
            f"{len(history.commits)} commit(s), profile {profile}; {design.statement()}"
        )
    )
    if resumed:
        console.print(escape(f"resumed: {resumed} journal entries from {journal}"))
    if two_way:
        console.print(
            escape(
                f"the journal holds {two_way} round(s) timed against the good side alone (a "
                "bisect from before steps were timed against both sides): its builds and "
                "endpoints are used, those steps are timed again against both sides"
            )
        )


def reproduce(answer: BisectAnswer, history: BisectHistory, profile: str) -> str | None:
    """The command that times the answer's comparison again (the culprit against its parent,
    or the range's two ends)."""
    if answer.verdict == CULPRIT and answer.culprit in history.commits:
        at = history.commits.index(answer.culprit)
        good, bad = (history.commits[at - 1] if at else history.good), answer.culprit
    elif answer.verdict == RANGE and answer.after and answer.through and answer.axis == "commit":
        good, bad = answer.after, answer.through
    else:
        return None
    words = ["mlrelease", "perf", "bisect", "--good", good, "--bad", bad, "--profile", profile]
    return shlex.join(words + (["--row", answer.row] if answer.row else []))


def document(
    answer: BisectAnswer,
    history: BisectHistory,
    profile: str,
    design: StepDesign,
    settings: BisectConfig,
) -> dict[str, Any]:
    """The ``--json`` object: ``verdict`` is culprit, range or unknown; ``culprit`` the full sha
    when one is found; ``steps`` every step with its ratio and interval."""
    shown = answer.regression
    return {
        "schema": SCHEMA,
        "verdict": answer.verdict,
        "culprit": answer.culprit,
        "axis": answer.axis,
        "dependency": dict(answer.dependency) if answer.dependency else None,
        "range": (
            {
                "after": answer.after,
                "through": answer.through,
                "skipped": [{"subject": s.subject, "error": s.reason} for s in answer.skipped],
            }
            if answer.after or answer.through
            else None
        ),
        "reason": answer.reason,
        "refused": answer.refused,
        "good": history.good,
        "bad": history.bad,
        "commits": len(history.commits),
        "profile": profile,
        "row": answer.row,
        "clock": answer.clock,
        "regression": None
        if shown is None
        else {"ratio": shown.estimate, "low": shown.low, "high": shown.high, "pairs": shown.pairs},
        "builds": answer.builds,
        "build_budget": answer.budget,
        "design": {
            "confidence": design.confidence,
            "steps": design.steps,
            "tail": design.tail,
            "looks": design.schedule(),
            "max_pairs": design.max_pairs,
            "builder": settings.builder,
        },
        "steps": [step.to_dict() for step in answer.steps],
        "reproduce": reproduce(answer, history, profile),
    }


def lines(data: dict[str, Any]) -> list[str]:
    """The answer on the terminal: the verdict, each step, the command to reproduce."""
    out = [f"{data['verdict'].upper()}: {data['reason']}"]
    if data["culprit"]:
        out.append(f"culprit: {data['culprit']}")
    for skipped in (data["range"] or {}).get("skipped", []):
        out.append(f"  skipped {skipped['subject']}: {headline(skipped['error'])}")
    for number, step in enumerate(data["steps"], 1):
        out.append(f"  step {number} [{step['axis']}] {step['label']}: {_step_text(step)}")
    out.append(f"builds: {data['builds']} of at most {data['build_budget']}")
    if data["reproduce"]:
        out.append(f"reproduce: {data['reproduce']}")
    return out


def headline(error: str) -> str:
    """The telling line of a build's or an install's error: the first line a tool's own output
    box holds (pip's ``╰─> [N lines of output]``), else the first line."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    for at, line in enumerate(lines[:-1]):
        if line.startswith("╰─>"):
            return lines[at + 1][:200]
    return lines[0][:200] if lines else ""


def _step_text(step: dict[str, Any]) -> str:
    if step["ratio"] is None:
        return f"{step['verdict']}" + (f" ({headline(step['error'])})" if step["error"] else "")
    low = "0" if step["low"] is None else f"{step['low']:.3f}"
    high = "inf" if step["high"] is None else f"{step['high']:.3f}"
    beyond = f", {step['beyond']}" if step["beyond"] else ""
    behind = step.get("bad_over_subject")
    if behind:
        b_low = "0" if behind["low"] is None else f"{behind['low']:.3f}"
        b_high = "inf" if behind["high"] is None else f"{behind['high']:.3f}"
        beyond = f"; bad x{behind['ratio']:.3f} [{b_low}, {b_high}] of it{beyond}"
    return (
        f"{step['verdict']} x{step['ratio']:.3f} [{low}, {high}] over {step['pairs']} "
        f"rounds{beyond}"
    )


def page(data: dict[str, Any]) -> str:
    """``bisect.md``: the answer, the design, every step with its interval."""
    parts = [
        f"# perf bisect: {data['verdict']}",
        "",
        f"{data['reason']}.",
        "",
        f"Good `{data['good']}`, bad `{data['bad']}`, {data['commits']} commit(s), profile "
        f"`{data['profile']}`, row `{data['row']}` ({data['clock']} clock). Builds: "
        f"{data['builds']} of at most {data['build_budget']}.",
        "",
    ]
    rows = [
        (str(n), s["axis"], s["label"], s["verdict"], _step_text(s).partition(" ")[2])
        for n, s in enumerate(data["steps"], 1)
    ]
    parts += markdown.table(["step", "axis", "subject", "verdict", "ratio [bounds]"], rows)
    skipped = (data["range"] or {}).get("skipped", [])
    if skipped:
        parts += ["", "Skipped:", ""]
        parts += [f"- `{s['subject']}`: {headline(s['error'])}" for s in skipped]
    if data["reproduce"]:
        parts += ["", "Reproduce:", "", "```console", f"$ {data['reproduce']}", "```"]
    return "\n".join(parts) + "\n"


def write(data: dict[str, Any], folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"json": folder / "bisect.json", "markdown": folder / "bisect.md"}
    paths["json"].write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    paths["markdown"].write_text(page(data), encoding="utf-8")
    return paths
