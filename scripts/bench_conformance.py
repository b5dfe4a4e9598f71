"""Benchmark: the full onnx node suite on onnxruntime CPU, mlrelease against onnx's own runner.

    python scripts/bench_conformance.py [--repeat 3] [--jobs 2]

Both run as subprocesses on the same machine, alternating, ``--repeat`` times each:

- mlrelease: ``python -m mlrelease ops run --backend onnxruntime-cpu --jobs 2`` (warm case
  cache: the cases are generated once per onnx version, before timing);
- the peer: onnx's ``BackendTest`` with ``onnxruntime.backend`` under pytest, which is how
  onnxruntime runs the node suite (it generates the cases in every run; it has no cache).

It writes the medians, their ratio, and the per-case agreement of the last runs (every
disagreement grouped by its explanation) to ``docs/indices/conformance_benchmark.json``, then
re-renders the supported-operators page, which shows both. It exits 1 when a disagreement has
no explanation.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mlrelease.ops import agreement, policy, service
from mlrelease.ops.verdicts import CaseResult
from mlrelease.registry import load_config

PEER_MODULE = '''\
"""onnx's backend test runner on onnxruntime: the node test cases only."""
import onnx.backend.test
import onnxruntime.backend

backend_test = onnx.backend.test.BackendTest(onnxruntime.backend, __name__)
OnnxBackendNodeModelTest = backend_test.test_cases["OnnxBackendNodeModelTest"]
'''

console = Console(stderr=True, highlight=False)


def machine() -> str:
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{os.cpu_count()} CPU cores ({model}), {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # pytest exits 1 when tests fail, as they do here
        raise SystemExit(
            f"`{' '.join(command)}` exited {proc.returncode}:\n"
            f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return elapsed


PEER_CMD = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_onnx_backend_peer.py"]
"""The peer, run in the folder of :data:`PEER_MODULE` (``--junitxml`` added per run)."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (default: 3)")
    parser.add_argument("--jobs", type=int, default=2, help="mlrelease workers (default: 2)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="results file (default: [tool.mlrelease.ops] benchmark)",
    )
    return parser.parse_args()


def run_both(
    ours_cmd: list[str], repeat: int, root: Path, work: Path, ours_json: Path, peer_xml: Path
) -> dict[str, list[float]]:
    """mlrelease (in ``root``) and the peer (in ``work``), alternating, ``repeat`` times each:
    the seconds each run took."""
    timings: dict[str, list[float]] = {"ours": [], "peer": []}
    for run in range(1, repeat + 1):
        with console.status(f"run {run}/{repeat}: mlrelease"):
            timings["ours"].append(timed([sys.executable, *ours_cmd, "-o", str(ours_json)], root))
        with console.status(f"run {run}/{repeat}: peer (pytest + BackendTest)"):
            timings["peer"].append(
                timed([sys.executable, *PEER_CMD, f"--junitxml={peer_xml}"], work)
            )
        console.print(
            f"run {run}: mlrelease {timings['ours'][-1]:.1f} s, peer {timings['peer'][-1]:.1f} s"
        )
    return timings


def record(
    args: argparse.Namespace,
    ours_cmd: list[str],
    timings: dict[str, list[float]],
    median: dict[str, float],
    cases: int,
    agreed: dict[str, Any],
) -> dict[str, Any]:
    """The results file's content: machine, versions, commands, timings and agreement."""
    import onnx
    import onnxruntime

    return {
        "schema": "mlrelease/conformance-benchmark",
        "measured": dt.date.today().isoformat(),
        "machine": machine(),
        "versions": {
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
            "pytest": importlib.metadata.version("pytest"),
        },
        "cases": cases,
        "repeats": args.repeat,
        "jobs": args.jobs,
        "commands": {
            "ours": "python " + " ".join(ours_cmd),
            "peer": "python " + " ".join(PEER_CMD),
        },
        "timings_s": {k: [round(t, 2) for t in v] for k, v in timings.items()},
        "median_s": {k: round(v, 2) for k, v in median.items()},
        "speedup": round(median["peer"] / median["ours"], 1),
        "agreement": agreed,
    }


def show(
    timings: dict[str, list[float]],
    median: dict[str, float],
    bench: dict[str, Any],
    cases: int,
    output: Path,
) -> int:
    """Print the timings and the agreement; 1 when a disagreement has no explanation."""
    agreed = bench["agreement"]
    table = Table(title=f"Node suite on onnxruntime CPU ({cases} cases, {machine()})")
    table.add_column("runner")
    table.add_column("median (s)", justify="right")
    table.add_column("runs (s)")
    for key, label in (("ours", "mlrelease"), ("peer", "peer")):
        table.add_row(label, f"{median[key]:.1f}", ", ".join(f"{t:.1f}" for t in timings[key]))
    console.print(table)
    console.print(
        f"speedup: {bench['speedup']}x (target: 4x); agreement: {agreed['agree']} of "
        f"{agreed['cases']} cases, {agreed['disagree']} disagreements"
    )
    for group in agreed["explained"]:
        console.print(f"  {group['title']}: {len(group['cases'])}")
    console.print(f"Wrote {output}")
    if agreed["unexplained"]:
        for item in agreed["unexplained"]:
            console.print(f"[bold red]unexplained[/] {item}", soft_wrap=True)
        return 1
    return 0


def main() -> int:
    args = parse_args()
    config = load_config(None)
    ops = service.ops_config(config)
    rules = policy.load(config.root, ops.tolerances, ops.known_failures)
    with console.status("Warming the case cache"):
        cases = {c.name: c for c in service.load_cases(config, ops)}
    work = Path(tempfile.mkdtemp(prefix="bench-conformance-"))
    (work / "test_onnx_backend_peer.py").write_text(PEER_MODULE, encoding="utf-8")
    ours_json, peer_xml = work / "ours.json", work / "peer.xml"
    ours_cmd = [
        "-m",
        "mlrelease",
        "ops",
        "run",
        "--backend",
        "onnxruntime-cpu",
        "--jobs",
        str(args.jobs),
    ]
    timings = run_both(ours_cmd, args.repeat, config.root, work, ours_json, peer_xml)
    median = {k: statistics.median(v) for k, v in timings.items()}

    results = json.loads(ours_json.read_text(encoding="utf-8"))["results"]
    ours = {r["case"]: CaseResult.from_dict(r) for r in results}
    peer = agreement.read_junit(peer_xml.read_text(encoding="utf-8"))
    facts = {name: agreement.CaseFacts(case.random_ops) for name, case in cases.items()}
    agreed = agreement.compare(ours, peer, facts, rules)

    bench = record(args, ours_cmd, timings, median, len(ours), agreed)
    output = args.output or config.path(ops.benchmark)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(bench, indent=1) + "\n", encoding="utf-8")

    committed = service.read_committed(config, ops)
    if committed is not None:
        config.path(ops.page).write_text(
            service.render_page(config, ops, committed), encoding="utf-8"
        )
    return show(timings, median, bench, len(ours), output)


if __name__ == "__main__":
    sys.exit(main())
