"""Acceptance benchmark of the perf verdicts, on real measurements, quiet and under load.

Each repetition runs one model of the ``cpu`` profile (PyTorch eager and ONNX Runtime CPU rows)
in several builds of the same environment whose rounds interleave (A B C ..., ... C B A):

* ``A``: the reference; ``same1``, ``same2``: the same build again (same-build comparisons);
* ``cpu05``, ``cpu10``, ``cpu25``: ONNX Runtime only, each measured iteration burns 5/10/25% more
  CPU time (a busy wait inside the timed region);
* ``wait05``, ``wait10``, ``wait25``: ONNX Runtime only, each iteration sleeps 5/10/25% more
  (no CPU time: only the wall-time verdict can see it).

Every build is compared with ``A`` exactly as ``mlrelease perf compare`` does: all rows, both
clocks (CPU time, and wall time less run-queue delay), one Holm family, adaptive rounds. Under
``loaded`` a background load generator keeps ``--busy`` processes spinning for the whole
repetition. Reported per condition: the slowed row's verdict on the clock that can see the
injection, whether the untouched framework was ever ``regressed``, and whole-gate false alarms
(any ``regressed`` in a same-build comparison).

    python scripts/bench_regression_gate.py                  # the full design (hours)
    python scripts/bench_regression_gate.py --repetitions 3 --conditions loaded \\
        --builds same1,same2,cpu10,wait25                     # what fits a short budget

Writes build/bench/regression_gate.json (every verdict) and regression_gate.md (the table
quoted in docs/perf/methodology.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from mlrelease.perf import compare, runner
from mlrelease.perf.config import PerfConfig
from mlrelease.perf.progress import ProfileBar
from mlrelease.perf.verdict import REGRESSED
from mlrelease.perf.worker import INJECT_ENV
from mlrelease.registry import load_config

ALL_BUILDS = "same1,same2,cpu05,cpu10,cpu25,wait05,wait10,wait25"
SLOWED = "onnxruntime_cpu"


def injection(build: str) -> tuple[str, float] | None:
    """``cpu10`` -> ("cpu", 0.10); ``same1`` -> None."""
    for kind in ("cpu", "wait"):
        if build.startswith(kind):
            return kind, int(build[len(kind) :]) / 100
    return None


def _burn() -> None:
    while True:
        pass


@contextmanager
def background(busy: int) -> Iterator[None]:
    """``busy`` processes spinning on the CPU while the block runs (another tenant)."""
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_burn, daemon=True) for _ in range(busy)]
    for proc in procs:
        proc.start()
    try:
        yield
    finally:
        for proc in procs:
            proc.terminate()
            proc.join()


def judge_all(out: dict[str, Any], profile: Any) -> dict[str, Any]:
    """Every build against ``A``: per row and clock, the verdict and its numbers."""
    judged: dict[str, Any] = {}
    for name, results in out.items():
        if name == "A":
            continue
        comparison = compare.compare(
            results,
            out["A"],
            threshold=profile.threshold,
            alpha=profile.alpha,
            looks=profile.looks if (profile.max_rounds or 0) > profile.rounds else 1,
        )
        judged[name] = {
            "word": comparison.word,
            "tests": [t.to_dict() for t in (comparison.family.tests if comparison.family else [])],
            "rounds": {r.key: len(r.samples_ns) for r in results.rows},
            "statuses": {r.key: r.status for r in results.rows},
        }
    return judged


def facts(out: dict[str, Any]) -> dict[str, float | None]:
    """Median load and other tenants' share of the pinned CPU over every round."""
    rounds = [f for res in out.values() for row in res.rows for f in row.round_facts]

    def med(name: str) -> float | None:
        values = [f[name] for f in rounds if f.get(name) is not None]
        return round(statistics.median(values), 3) if values else None

    return {k: med(k) for k in ("load_1m", "others_share", "runqueue_share", "steal_share")}


def table(entries: list[dict[str, Any]], builds: list[str]) -> list[str]:
    """The Markdown table: one line per condition and build."""
    lines = [
        "| condition | build | comparisons | slowed row (clock): regressed / inconclusive / "
        "same / not measured | untouched framework regressed | whole gate regressed | "
        "median rounds a side |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    groups: dict[str, list[str]] = {}
    for build in builds:  # the same-build copies are one line
        groups.setdefault("same" if injection(build) is None else build, []).append(build)
    for condition in dict.fromkeys(e["condition"] for e in entries):
        mine = [e for e in entries if e["condition"] == condition]
        for members in groups.values():
            judged = [e["judged"][b] for e in mine for b in members if b in e["judged"]]
            if not judged:
                continue
            inj = injection(members[0])
            clock = "wall" if inj and inj[0] == "wait" else "cpu"
            counts = {"regressed": 0, "inconclusive": 0, "same": 0, "not_measured": 0}
            other, whole = 0, 0
            for j in judged:
                if inj:
                    for t in j["tests"]:
                        if t["key"].endswith("/" + SLOWED) and t["clock"] == clock:
                            kind = "same" if t["verdict"] == "improved" else t["verdict"]
                            counts[kind] = counts.get(kind, 0) + 1
                other += any(
                    t["verdict"] == REGRESSED and not t["key"].endswith("/" + SLOWED)
                    for t in j["tests"]
                )
                whole += j["word"] == REGRESSED
            rounds = statistics.median(min(j["rounds"].values()) for j in judged)
            label = f"{inj[0]} +{inj[1]:.0%}" if inj else "same build"
            slowed = (
                f"{counts['regressed']} / {counts['inconclusive']} / {counts['same']} / "
                f"{counts['not_measured']} ({clock})"
                if inj
                else "-"
            )
            lines.append(
                f"| {condition} | {label} | {len(judged)} | {slowed} | {other} | {whole} | "
                f"{rounds:g} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--conditions", default="quiet,loaded", help="quiet, loaded or both")
    parser.add_argument("--builds", default=ALL_BUILDS, help=f"subset of {ALL_BUILDS}")
    parser.add_argument("--busy", type=int, default=2, help="busy processes when loaded")
    parser.add_argument("--model", default="efficientnet_b0")
    parser.add_argument("--rounds", type=int, default=5, help="rounds a side at the first look")
    parser.add_argument("--max-rounds", type=int, default=10, help="adaptive rounds, at most")
    parser.add_argument("--looks", type=int, default=2)
    parser.add_argument("--budget-s", type=float, default=1800.0, help="per repetition")
    parser.add_argument("--output", type=Path, default=Path("build/bench/regression_gate.json"))
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the table from --output's JSON"
    )
    args = parser.parse_args(argv)
    if args.report_only:
        data = json.loads(args.output.read_text(encoding="utf-8"))
        design = data["design"]
        names = list(dict.fromkeys(b for e in data["entries"] for b in e["judged"]))
        args.model, args.busy = design["model"], design["busy_when_loaded"]
        recorded = argparse.Namespace(
            threshold=design["threshold"],
            alpha=design["alpha"],
            rounds=design["rounds"][0],
            max_rounds=design["rounds"][1],
            looks=design["looks"],
            frameworks=design["frameworks"],
        )
        _write(args, recorded, data["entries"], names, time.perf_counter() - design["duration_s"])
        print(args.output.with_suffix(".md").read_text(encoding="utf-8"))
        return 0

    console = Console(stderr=True)
    config = load_config(Path.cwd())
    profile = dataclasses.replace(
        config.table(PerfConfig).profile("cpu"),
        models=[args.model],
        batch_sizes=[1],
        rounds=args.rounds,
        max_rounds=args.max_rounds,
        looks=args.looks,
        budget_s=args.budget_s,
    )
    names = [b for b in args.builds.split(",") if b]
    builds = [runner.Build("A")]
    for name in names:
        inj = injection(name)
        env = ((INJECT_ENV, f"{SLOWED}={inj[1]}:{inj[0]}"),) if inj else ()
        builds.append(runner.Build(name, env=env, model_from="A"))
    entries: list[dict[str, Any]] = []
    started = time.perf_counter()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for index in range(args.repetitions):
        for condition in args.conditions.split(","):
            console.print(f"repetition {index + 1}/{args.repetitions}, {condition}")
            begun = time.perf_counter()
            with background(args.busy if condition == "loaded" else 0):
                out = runner.execute(
                    "cpu",
                    profile,
                    root=config.root,
                    work=args.output.parent / "regression-gate-work",
                    builds=builds,
                    progress=ProfileBar(console),
                )
            entry = {
                "condition": condition,
                "repetition": index + 1,
                "seconds": round(time.perf_counter() - begun),
                "machine": facts(out),
                "judged": judge_all(out, profile),
            }
            entries.append(entry)
            summary = {b: j["word"] for b, j in entry["judged"].items()}
            console.print(f"{condition}: {summary} machine {entry['machine']}")
            _write(args, profile, entries, names, started)
    _write(args, profile, entries, names, started)
    print(args.output.with_suffix(".md").read_text(encoding="utf-8"))
    return 0


def _write(
    args: argparse.Namespace,
    profile: Any,
    entries: list[dict[str, Any]],
    names: list[str],
    started: float,
) -> None:
    """Write the JSON and the table after every repetition (a long run can be stopped)."""
    design = {
        "model": args.model,
        "frameworks": profile.frameworks,
        "slowed": SLOWED,
        "threshold": profile.threshold,
        "alpha": profile.alpha,
        "rounds": [profile.rounds, profile.max_rounds],
        "looks": profile.looks,
        "busy_when_loaded": args.busy,
        "duration_s": round(time.perf_counter() - started),
    }
    args.output.write_text(
        json.dumps({"design": design, "entries": entries}, indent=1), encoding="utf-8"
    )
    machine = {
        c: {
            k: round(
                statistics.median(
                    v for e in entries if e["condition"] == c and (v := e["machine"][k]) is not None
                ),
                3,
            )
            for k in ("load_1m", "others_share", "runqueue_share")
            if any(e["machine"][k] is not None for e in entries if e["condition"] == c)
        }
        for c in dict.fromkeys(e["condition"] for e in entries)
    }
    text = [
        f"Model `{args.model}` batch 1, rows PyTorch eager and ONNX Runtime CPU, threshold "
        f"{profile.threshold:.0%}, alpha {profile.alpha}, rounds {profile.rounds} to "
        f"{profile.max_rounds} ({profile.looks} looks), {design['duration_s']} s in all.",
        "",
        *table(entries, names),
        "",
        "Machine during the rounds (medians): "
        + "; ".join(f"{c}: {m}" for c, m in machine.items()),
    ]
    args.output.with_suffix(".md").write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
