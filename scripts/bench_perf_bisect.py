"""Acceptance benchmark of ``mlrelease perf bisect`` on generated histories (issue 51).

Every scenario is a real git repository (``tests/helpers/bisect_history.py``): a small
package whose perf row does real work (matrix products) and a regression planted at a hidden
commit, bisected by the real command path (builds, environments, perf workers). The noise is
the machine's own: the cpu profile's BERT rows are timed here first, in interleaved rounds, and
each worker of a scenario scales its work by one of their rounds' relative medians, drawn at
random (the workload's own variation comes on top).

Scenarios (``--scenarios`` picks some by name):

* ``c03-*``, ``c05-*``, ``c10-*``: a 3%, 5% or 10% slowdown at a random commit, some with an
  unbuildable commit elsewhere;
* ``unb-*``: the culprit and the commit before it do not build (the answer must be a range);
* ``pair-*``: a commit that slows the row by 20% and a later one that undoes it, beside a 10%
  culprit;
* ``dep-*``: the lock moves ``slowlib`` from 1.0 to 1.3, and 1.2 (hidden) is 10% slower; its
  four versions are wheels served by pypiserver on 127.0.0.1.

    python scripts/bench_perf_bisect.py                         # everything (hours on 2 cores)
    python scripts/bench_perf_bisect.py --scenarios c10-1,dep-1 # a subset
    python scripts/bench_perf_bisect.py --single --profile gpu --slowdown device --fraction 1.0
        # one bisect of the built-in BERT on the GPU profile, a device-time slowdown planted

Writes ``build/bench/perf_bisect.json`` (every answer) and ``perf_bisect.md`` (the table quoted
in docs/perf/bisect.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bench_perf_bisect_judge import Scenario, judge, steps_table, summary, table  # noqa: E402
from bench_perf_bisect_single import SINGLE_PROFILES, request_for, single  # noqa: E402
from helpers import bisect_history as histories  # type: ignore[import-not-found]  # noqa: E402

from mlrelease.perf import runner  # noqa: E402
from mlrelease.perf.bisect import service as bisect  # noqa: E402
from mlrelease.perf.config import PerfConfig  # noqa: E402
from mlrelease.perf.progress import ProfileBar  # noqa: E402
from mlrelease.perf.stats import round_medians  # noqa: E402
from mlrelease.registry import load_config  # noqa: E402

BENCH_PROFILE = """\
[tool.mlrelease.perf.profiles.bench]
models = ["bisectee.models:WORK"]
frameworks = ["pytorch"]
batch-sizes = [1]
threads = 1
clock = "cpu"
iters = 200
warmup-iters = 10
warmup-s = 0.05
threshold = 0.02
rounds = 4
"""
"""The benchmark's row: about 0.2 s timed a round (200 iterations of about a millisecond), as
long as a real row's, so the workload's own round-to-round variation stays small beside the
real rows' it is given."""

LIBRARY_REPS = 30
"""``slowlib``'s matrix products per call at 1.0 and 1.1 (1.2 and 1.3 add 10% of the row)."""


def scenarios(commits: int, seed: int) -> list[Scenario]:
    """The benchmark's histories (positions drawn from ``seed``), the ones the goals count
    most first: a long run that is stopped still has them."""
    draw = random.Random(seed)
    out: list[Scenario] = []
    for size, count in ((0.10, 5), (0.05, 5)):
        out += _planted(draw, commits, size, count)
    for i in (1, 2):
        bump = draw.randint(1, commits)
        planted = histories.Planted(commits, lock_bump=(bump, "1.3"), lock_start="1.0")
        out.append(Scenario(f"dep-{i}", planted, "dependency", bump, version="1.2"))
    for i in (1, 2):
        culprit = draw.randint(3, commits - 1)
        broken = frozenset({culprit - 1, culprit})
        planted = histories.Planted(commits, culprit, 0.10, unbuildable=broken)
        out.append(Scenario(f"unb-{i}", planted, "commit", culprit))
    for i in (1, 2):
        culprit = draw.randint(1, commits)
        first = draw.choice([p for p in range(1, commits - 1) if p != culprit])
        second = draw.choice([p for p in range(first + 1, commits + 1) if p != culprit])
        planted = histories.Planted(commits, culprit, 0.10, cancel=(first, second, 0.20))
        out.append(Scenario(f"pair-{i}", planted, "commit", culprit))
    return out + _planted(draw, commits, 0.03, 4)


def _planted(draw: random.Random, commits: int, size: float, count: int) -> list[Scenario]:
    """``count`` histories with a ``size`` slowdown at a drawn commit, every other one with an
    unbuildable commit elsewhere."""
    out = []
    for i in range(1, count + 1):
        culprit = draw.randint(1, commits)
        others = [p for p in range(2, commits) if abs(p - culprit) > 1]
        broken = frozenset({draw.choice(others)}) if i % 2 == 0 and others else frozenset()
        planted = histories.Planted(commits, culprit, size, unbuildable=broken)
        out.append(Scenario(f"c{round(size * 100):02d}-{i}", planted, "commit", culprit))
    return out


def measure_noise(rounds: int, path: Path, console: Console) -> dict[str, Any]:
    """Round-to-round noise of real rows on this machine: the cpu profile's BERT at batch 1
    (PyTorch eager and ONNX Runtime), two builds of this environment interleaved."""
    config = load_config(ROOT)
    profile = dataclasses.replace(
        config.table(PerfConfig).profile("cpu"), models=["bert"], batch_sizes=[1], rounds=rounds
    )
    builds = (runner.Build("A"), runner.Build("B", model_from="A"))
    with tempfile.TemporaryDirectory(prefix="bisect-noise-") as work:
        out = runner.execute(
            "cpu", profile, root=ROOT, work=Path(work), builds=builds, progress=ProfileBar(console)
        )
    factors: list[float] = []
    rows: dict[str, list[float]] = {}
    for row in out["A"].rows:
        other = out["B"].row(row.key)
        medians = round_medians(row.samples_ns) + round_medians(other.samples_ns if other else [])
        if len(medians) < 2:
            continue
        centre = sorted(medians)[len(medians) // 2]
        rows[row.key] = [round(m / 1e6, 4) for m in medians]
        factors += [m / centre for m in medians]
    if not factors:  # a benchmark with no measured noise would claim what it did not test
        failed = [f"{row.key}: {row.error or row.status}" for row in out["A"].rows]
        raise SystemExit(
            "the noise measurement timed no row, so the machine's noise is unknown: "
            + ("; ".join(failed) or "the profile has no rows")
            + " (install the perf group: `pip install -e . --group test-perf`)"
        )
    logs = [math.log(f) for f in factors]
    spread = (sum(x * x for x in logs) / max(len(logs) - 1, 1)) ** 0.5
    data = {"factors": factors, "rows_ms": rows, "rounds": rounds, "spread": spread}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def slowlib_index(folder: Path) -> Path:
    """Wheels of slowlib 1.0 to 1.3 in ``folder`` (from 1.2 on, 10% of the row slower)."""
    from mlrelease.edges import proc

    slow = LIBRARY_REPS + round(0.10 * (WORK_REPS + LIBRARY_REPS))
    versions = (("1.0", LIBRARY_REPS), ("1.1", LIBRARY_REPS), ("1.2", slow), ("1.3", slow))
    for version, reps in versions:
        with tempfile.TemporaryDirectory() as tmp:
            source = histories.slowlib_project(Path(tmp) / "slowlib", version, reps)
            options = [
                "--isolated",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                str(folder),
            ]
            done = proc.call(proc.python_module("pip", "wheel", *options, str(source)))
            if done.returncode != 0:
                raise SystemExit(f"building slowlib {version} failed: {done.stderr}")
    return folder


WORK_REPS = 150
"""The workload's matrix products per iteration at the good side (about 1 ms here)."""


def run_one(
    scenario: Scenario, base: Path, index_url: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Generate the scenario's history, bisect it, and judge the answer."""
    table = ""
    if scenario.axis == "dependency":
        table = f'[tool.mlrelease.perf.bisect]\nlock = "perf.lock"\nindex-url = "{index_url}"\n'
    made = histories.make(
        base / scenario.name, scenario.planted, profiles=BENCH_PROFILE, bisect=table, reps=WORK_REPS
    )
    request = request_for(made, "bench", args)
    started = time.monotonic()
    with open(base / f"{scenario.name}.log", "w", encoding="utf-8") as log:
        outcome = bisect.run(load_config(made.root), request, console=Console(file=log, width=200))
    return judge(scenario, made, outcome.document, time.monotonic() - started)


def _write(args: argparse.Namespace, entries: list[dict[str, Any]], design: dict[str, Any]) -> None:
    figures = summary(entries)
    data = {"design": design, "summary": figures, "entries": entries}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    lines = [
        *table(entries),
        "",
        *steps_table(entries),
        "",
        f"Exact culprit in {figures['exact_of_planted_5_plus'][0]} of "
        f"{figures['exact_of_planted_5_plus'][1]} planted regressions of 5% or more; "
        f"{figures['wrong_culprits']} wrong culprit(s) in {figures['bisects']}; "
        f"{figures['over_budget']} bisect(s) over the build budget; right axis in "
        f"{figures['axis_right'][0]} of {figures['axis_right'][1]}; wall time per bisect: "
        f"median {figures['median_seconds']} s, at most {figures['max_seconds']} s.",
    ]
    args.output.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scenarios", default="", help="names to run, in this order (default: all)"
    )
    parser.add_argument("--commits", type=int, default=12, help="commits after the good side")
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--max-pairs", type=int, default=24)
    parser.add_argument("--looks", type=int, default=3)
    parser.add_argument("--build", choices=("reference", "pip"), default="reference")
    parser.add_argument("--noise", type=Path, default=Path("build/bench/bisect_noise.json"))
    parser.add_argument("--noise-rounds", type=int, default=5, help="real rounds a side")
    parser.add_argument("--no-noise", action="store_true", help="the workload's own noise only")
    parser.add_argument("--output", type=Path, default=Path("build/bench/perf_bisect.json"))
    parser.add_argument("--resume", action="store_true", help="keep --output's finished ones")
    parser.add_argument("--single", action="store_true", help="one BERT bisect (the GPU check)")
    parser.add_argument("--profile", default="gpu", choices=sorted(SINGLE_PROFILES))
    parser.add_argument("--slowdown", default="device", choices=("device", "cpu", "wait"))
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--culprit", type=int, default=0, help="--single: where (default: drawn)")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="--single: where the history goes (its journal and bisect.md stay there)",
    )
    args = parser.parse_args(argv)
    if args.single:
        return single(args)
    chosen = _chosen(args)
    console = Console(stderr=True)
    noise = None if args.no_noise else _noise(args, console)
    done: list[dict[str, Any]] = []
    if args.resume and args.output.is_file():
        done = json.loads(args.output.read_text(encoding="utf-8"))["entries"]
    design = {
        "commits": args.commits,
        "confidence": args.confidence,
        "max_pairs": args.max_pairs,
        "looks": args.looks,
        "build": args.build,
        "noise_spread": noise["spread"] if noise else None,
        "noise_rounds": len(noise["factors"]) if noise else 0,
        "cores": os.cpu_count(),
    }
    todo = [s for s in chosen if not any(e["scenario"] == s.name for e in done)]
    if todo:  # else every one is kept: the tables are written again, nothing is run
        _run_all(args, todo, done, design, console)
    _write(args, done, design)
    print(args.output.with_suffix(".md").read_text(encoding="utf-8"))
    return 0


def _chosen(args: argparse.Namespace) -> list[Scenario]:
    """``--scenarios`` in the order given (a stopped run has the first ones), or every one."""
    every = {s.name: s for s in scenarios(args.commits, args.seed)}
    names = [n for n in args.scenarios.split(",") if n] or list(every)
    unknown = [n for n in names if n not in every]
    if unknown:
        raise SystemExit(
            f"bench_perf_bisect --scenarios: no scenario {', '.join(unknown)}; "
            f"the names are {', '.join(every)}."
        )
    return [every[n] for n in names]


def _noise(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    """This machine's measured rounds (``--noise``, measured first when it is missing), named
    to the workers through ``BISECTEE_NOISE``."""
    noise: dict[str, Any] = (
        json.loads(args.noise.read_text(encoding="utf-8"))
        if args.noise.is_file()
        else measure_noise(args.noise_rounds, args.noise, console)
    )
    if not noise["factors"]:
        raise SystemExit(f"{args.noise}: no measured rounds; delete it to measure them again")
    os.environ["BISECTEE_NOISE"] = str(args.noise.resolve())
    console.print(f"noise: {len(noise['factors'])} real rounds, spread {noise['spread']:.3f}")
    return noise


def _run_all(
    args: argparse.Namespace,
    todo: list[Scenario],
    done: list[dict[str, Any]],
    design: dict[str, Any],
    console: Console,
) -> None:
    """Bisect each scenario of ``todo``, slowlib's wheels served on 127.0.0.1; each answer is
    written as soon as it is judged (``--resume`` keeps it)."""
    base = Path(tempfile.mkdtemp(prefix="bisect-bench-"))
    from helpers.index import serve  # type: ignore[import-not-found]

    with serve(slowlib_index(base / "index")) as url:
        for scenario in todo:
            entry = run_one(scenario, base, url + "simple/", args)
            logs = args.output.parent / "perf_bisect_logs"
            logs.mkdir(parents=True, exist_ok=True)
            shutil.copy(base / f"{scenario.name}.log", logs / f"{scenario.name}.log")
            done.append(entry)
            console.print(
                f"{scenario.name}: {entry['verdict']} ({entry['reason'][:160]}), "
                f"{entry['seconds']} s"
            )
            _write(args, done, design)
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
