"""Time ``nox -s release_verify`` as a new user meets it (cold) and as a maintainer re-runs it
(warm), with each gate's time from the report.

Usage:
    python scripts/time_release_verify.py [--runs 3] [--keep DIR] [-- release_verify args]

Cold: a fresh clone of this repository's HEAD, fresh nox environments (installs included) and
an empty mlrelease cache (node cases, compatibility probes, compiled locales, model verdicts);
pip's own download cache is the machine's. Warm: ``nox -R -s release_verify`` again in that
clone, ``--runs`` times. Prints every wall time, the warm median and the gates' times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict[str, float]]:
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"{' '.join(command)} exited {proc.returncode}")
    report = json.loads((cwd / "build/release-verify/report.json").read_text(encoding="utf-8"))
    return wall, {r["name"]: float(r["duration_s"]) for r in report["results"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs after the cold one")
    parser.add_argument("--keep", type=Path, help="clone into this folder (default: a temp one)")
    parser.add_argument("extra", nargs="*", help="arguments for release_verify (after --)")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="time-release-verify-"))
    clone = base / "clone"
    subprocess.run(["git", "clone", "-q", str(HERE), str(clone)], check=True)
    env = {**os.environ, "MLRELEASE_CACHE_DIR": str(base / "cache")}
    extra = ["--", *args.extra] if args.extra else []

    cold, cold_gates = timed(["nox", "-s", "release_verify", *extra], clone, env)
    print(f"cold: {cold:.1f} s (fresh clone, fresh environments, empty mlrelease cache)")
    warm_runs = [timed(["nox", "-R", "-s", "release_verify", *extra], clone, env)]
    warm_runs += [
        timed(["nox", "-R", "-s", "release_verify", *extra], clone, env)
        for _ in range(args.runs - 1)
    ]
    for i, (wall, _) in enumerate(warm_runs, 1):
        print(f"warm run {i}: {wall:.1f} s")
    print(f"warm median of {len(warm_runs)}: {statistics.median(w for w, _ in warm_runs):.1f} s")
    print(f"{'gate':<20}{'cold s':>10}{'warm median s':>16}")
    for name, seconds in cold_gates.items():
        warm = statistics.median(g.get(name, 0.0) for _, g in warm_runs)
        print(f"{name:<20}{seconds:>10.1f}{warm:>16.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
