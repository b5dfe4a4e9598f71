"""How long a downstream verification takes: cold (every environment built) and warm (cached
environments, a changed candidate), on the case study's consumers.

    python scripts/bench_downstream.py [--warm-runs 3] [--cold-runs 1] [--keep-uv-cache]

The consumers are those of ``scripts/case_study_downstream.py`` (seven: five real consumers'
released sdists with their tests, and two smokes), onnx 1.23.0's wheel against 1.22.0.

- **cold**: an empty mlrelease cache and, unless ``--keep-uv-cache``, an empty uv cache (every
  distribution downloaded, every environment built): a fresh CI machine.
- **warm**: the caches of the cold run, and a *changed candidate*: the same wheel respun with
  one changed byte in ``onnx/version.py`` (a new RC of the same version), so the results cache
  misses, every candidate environment is rebuilt and every candidate side runs again, while
  the baseline environments and the baseline sides' runs are reused. Each warm run respins anew.

Each run is ``mlrelease downstream run`` in a child process, timed from start to exit. Targets
(issue #26): cold <= 600 s, warm <= 180 s for six consumers on the 2-core machine. Prints a
table (median of the runs, ratio to the target) and writes ``build/bench-downstream.json``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from mlrelease.edges import proc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import case_study_downstream as case

TARGETS = {"cold": 600.0, "warm": 180.0}
OUT = case.ROOT / "build" / "bench-downstream.json"


def respin(wheel: Path, folder: Path, mark: str) -> Path:
    """``wheel`` with ``# respin MARK`` appended to onnx/version.py, RECORD updated."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    target = folder / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        record_name = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        changed = src.read("onnx/version.py") + f"\n# respin {mark}\n".encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(changed).digest()).rstrip(b"=").decode()
        record = [
            f"onnx/version.py,sha256={digest},{len(changed)}"
            if line.startswith("onnx/version.py,")
            else line
            for line in src.read(record_name).decode().splitlines()
        ]
        for info in src.infolist():
            if info.filename == "onnx/version.py":
                out.writestr(info, changed)
            elif info.filename == record_name:
                out.writestr(info, "\n".join(record) + "\n")
            else:
                out.writestr(info, src.read(info.filename))
    return folder


def timed_run(root: Path, candidate: Path, env: dict[str, str], output: Path) -> float:
    args = ["--root", str(root), "downstream", "run", "--candidate", str(candidate)]
    command = proc.python_module("mlrelease", *args, "--output", str(output))
    started = time.perf_counter()
    done = proc.call(command, env=env, capture=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"downstream run failed (exit {done.returncode})")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=1)
    parser.add_argument(
        "--keep-uv-cache",
        action="store_true",
        help="cold runs reuse uv's download cache (environments are still built)",
    )
    parser.add_argument("--jobs", type=int, default=0)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-downstream-"))
    try:
        dist = case.candidate_files("1.23.0", work / "dist")
        wheel = next(dist.glob("*.whl"))
        root = case.project(work, dist, "1.22.0", args.jobs)
        times: dict[str, list[float]] = {"cold": [], "warm": []}
        env = dict(os.environ)
        for i in range(args.cold_runs):
            env["MLRELEASE_CACHE_DIR"] = str(work / f"cache-{i}")
            if not args.keep_uv_cache:
                env["UV_CACHE_DIR"] = str(work / f"uv-cache-{i}")
            times["cold"].append(timed_run(root, dist, env, work / f"out-cold-{i}"))
        for i in range(args.warm_runs):
            candidate = respin(wheel, work / f"rc-{i}", str(i))
            times["warm"].append(timed_run(root, candidate, env, work / f"out-warm-{i}"))
        rows = {
            kind: {
                "runs": [round(t, 1) for t in found],
                "median_s": round(statistics.median(found), 1),
                "target_s": TARGETS[kind],
                "ratio": round(statistics.median(found) / TARGETS[kind], 2),
            }
            for kind, found in times.items()
            if found
        }
        consumers = len(case.CONSUMERS.split("[[tool.mlrelease.downstream.consumers]]")) - 1
        report = {
            "consumers": consumers,
            "cpus": os.cpu_count(),
            "uv_cache_cold": not args.keep_uv_cache,
            "results": rows,
        }
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"{consumers} consumers, {os.cpu_count()} cores")
        print(f"{'run':6} {'median':>9} {'target':>8} {'ratio':>6}  runs")
        for kind, row in rows.items():
            print(
                f"{kind:6} {row['median_s']:8.1f}s {row['target_s']:7.0f}s {row['ratio']:6.2f}  "
                f"{row['runs']}"
            )
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
