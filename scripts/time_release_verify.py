"""Time warm runs of ``nox -R -s release_verify`` (environments reused), side by side.

Usage: python scripts/time_release_verify.py [--runs 5] [-- extra release_verify args]

Prints each wall time and the median. The default skips the `tests` gate, whose time is the
test suite's own: ``python scripts/time_release_verify.py -- --skip tests``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up run")
    parser.add_argument("extra", nargs="*", help="arguments for release_verify (after --)")
    args = parser.parse_args()
    extra = args.extra or ["--skip", "tests"]
    command = ["nox", "-R", "-s", "release_verify", "--", *extra]
    subprocess.run(command, check=True, capture_output=True)  # warm-up: venv exists, caches filled
    times = []
    for i in range(args.runs):
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        print(f"run {i + 1}: {times[-1]:.2f} s (exit {proc.returncode})")
        if proc.returncode != 0:
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            return proc.returncode
    print(f"median of {args.runs}: {statistics.median(times):.2f} s ({' '.join(command)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
