"""Part of ``scripts/bench_perf_bisect.py``: each bisect's answer judged against what its
history hides, the acceptance figures over every bisect, and the tables docs/perf/bisect.md
quotes."""

from __future__ import annotations

import dataclasses
import statistics
import sys
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers import bisect_history as histories  # type: ignore[import-not-found]


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    planted: histories.Planted
    axis: str
    truth: int | None
    """The 1-based commit the answer must name (the culprit, or the lock's bump)."""
    version: str = ""


def judge(
    scenario: Scenario, made: histories.Generated, answer: dict[str, Any], seconds: float
) -> dict[str, Any]:
    """The answer against the truth: exact, a range holding it, wrong, or no answer."""
    truth = made.commit(scenario.truth) if scenario.truth is not None else None
    positions = {made.commit(p): p for p in range(len(made.commits) + 1)}
    found = answer["verdict"] == "culprit"
    exact = found and answer["culprit"] == truth
    if scenario.axis == "dependency":
        exact = exact and (answer["dependency"] or {}).get("version") == scenario.version
    span = answer["range"] or {}
    after, through = (
        positions.get(span.get("after") or ""),
        positions.get(span.get("through") or ""),
    )
    versions = version_range(span)
    holds = answer["verdict"] == "range" and (
        _holds_version(versions, scenario.version)
        if versions
        else after is not None
        and through is not None
        and scenario.truth is not None
        and after < scenario.truth <= through
    )
    return {
        "scenario": scenario.name,
        "truth": scenario.truth,
        "axis": scenario.axis,
        "version": scenario.version,
        "verdict": answer["verdict"],
        "answered": positions.get(answer["culprit"] or ""),
        "range": [after, through] if span and not versions else None,
        "versions": versions,
        "dependency": answer.get("dependency"),
        "exact": exact,
        "range_holds": holds,
        "wrong": found and not exact,
        "axis_right": answer["axis"] == scenario.axis,
        "builds": answer["builds"],
        "budget": answer["build_budget"],
        "steps": len(answer["steps"]),
        "pairs": sum(step["pairs"] or 0 for step in answer["steps"]),
        "workers": sum(_workers(step) for step in answer["steps"]),
        "seconds": round(seconds, 1),
        "reason": answer["reason"],
        "commits": answer["commits"],
        "regression": answer["regression"],
        "trail": [
            [
                s["axis"],
                s["verdict"],
                s["ratio"],
                s["low"],
                s["high"],
                s["pairs"],
                s["label"],
                s.get("bad_over_subject"),
            ]
            for s in answer["steps"]
        ],
    }


def _workers(step: dict[str, Any]) -> int:
    """Worker processes a step's rounds ran: two a round for the endpoints (and a step timed
    against the good side alone), three for a step timed against both sides."""
    return (step["pairs"] or 0) * (3 if step.get("bad_over_subject") else 2)


def version_range(span: dict[str, Any]) -> dict[str, str] | None:
    """A dependency answer's range of one package's versions (both ends ``name==version``)
    as ``{"name", "after", "through"}``; None for a range of commits or of packages."""
    name, pinned, low = (span.get("after") or "").partition("==")
    other, pinned_too, high = (span.get("through") or "").partition("==")
    if not (pinned and pinned_too) or name != other:
        return None
    return {"name": name, "after": low, "through": high}


def _holds_version(versions: dict[str, str] | None, planted: str) -> bool:
    """Whether the planted version is after the range's first end and at or before its last."""
    if not versions or not planted:
        return False
    try:
        return Version(versions["after"]) < Version(planted) <= Version(versions["through"])
    except InvalidVersion:
        return False


def shown(entry: dict[str, Any]) -> str:
    """The table's answer cell: the culprit commit (and the dependency version it brought), the
    range of commits or of a package's versions (and whether it holds the truth), or unknown."""
    if entry["verdict"] == "culprit":
        dependency = entry.get("dependency") or {}
        found = f"culprit {entry['answered']}"
        return found + (f" ({dependency['name']} {dependency['version']})" if dependency else "")
    if entry["verdict"] != "range":
        return "unknown"
    holds = " holds it" if entry["range_holds"] else ""
    versions = entry.get("versions")
    if versions:
        holds = f" holds {entry['version']}" if entry["range_holds"] else ""
        return f"range {versions['name']} ({versions['after']}, {versions['through']}]{holds}"
    if entry["range"]:
        return f"range ({entry['range'][0]}, {entry['range'][1]}]{holds}"
    return "range"


def summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The acceptance figures over every bisect run."""
    big = [e for e in entries if e["scenario"].startswith(("c05", "c10"))]
    seconds = sorted(e["seconds"] for e in entries)
    return {
        "bisects": len(entries),
        "exact_of_planted_5_plus": [sum(e["exact"] for e in big), len(big)],
        "wrong_culprits": sum(e["wrong"] for e in entries),
        "over_budget": sum(e["builds"] > e["budget"] for e in entries),
        "axis_right": [sum(e["axis_right"] for e in entries), len(entries)],
        "median_seconds": round(statistics.median(seconds), 1) if seconds else None,
        "max_seconds": seconds[-1] if seconds else None,
    }


def table(entries: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| scenario | planted at | answer | exact | builds / budget | steps | pairs | workers "
        "| seconds |",
        "|---|---:|---|:-:|---:|---:|---:|---:|---:|",
    ]
    for e in entries:
        lines.append(
            f"| {e['scenario']} | {e['truth']} of {e['commits']} | {shown(e)} | "
            f"{'yes' if e['exact'] else 'WRONG' if e['wrong'] else 'no'} | "
            f"{e['builds']} / {e['budget']} | {e['steps']} | {e['pairs']} | "
            f"{e.get('workers', '')} | {e['seconds']:.0f} |"
        )
    return lines


def steps_table(entries: list[dict[str, Any]]) -> list[str]:
    """Each bisect's steps: the endpoints' interval, then each step's verdict, ratio, interval
    and pairs (a step of the environment axis named by what it tested)."""
    width = max((len(e["trail"]) for e in entries), default=1)
    lines = [
        "| scenario | endpoints | " + " | ".join(f"step {n}" for n in range(1, width)) + " |",
        "|---" * (width + 1) + "|",
    ]
    for e in entries:
        cells = [_step_cell(step, at == 0) for at, step in enumerate(e["trail"])]
        cells = cells or ["not regressed: nothing bisected"]  # the comparison's own verdict
        cells += [""] * (width - len(cells))
        lines.append(f"| {e['scenario']} | " + " | ".join(cells) + " |")
    return lines


def _step_cell(step: list[Any], endpoints: bool) -> str:
    """``[axis, verdict, ratio, low, high, pairs, label, bad_over_subject]`` (runs before the
    label was kept have six, before three-way steps seven) as ``DIFFERENT x1.106 [1.065,
    1.151] (24)``, with ``bad x1.002 [0.97, 1.03]`` (the bad side over the subject) when the
    step was timed against both sides."""
    axis, verdict, ratio, low, high, pairs = step[:6]
    label = step[6] if len(step) > 6 else ""
    behind = step[7] if len(step) > 7 else None
    if ratio is None:
        return str(verdict)
    interval = _interval(ratio, low, high)
    if endpoints:
        return interval
    subject = {"commit": "", "environment": "environment "}.get(axis)
    if subject is None:  # a package or a version: what it installed
        subject = (label.replace("==", " ") if label else axis) + " "
    if behind:
        interval += ", bad " + _interval(behind["ratio"], behind["low"], behind["high"])
    return f"{subject}{verdict} {interval} ({pairs})"


def _interval(ratio: float, low: float | None, high: float | None) -> str:
    shown = f"x{ratio:.3f} [{0 if low is None else low:.3f}, "
    return shown + ("inf]" if high is None else f"{high:.3f}]")
