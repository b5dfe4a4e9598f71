"""Time ``mlrelease train status`` on a three-member train, cold and warm.

    python scripts/bench_train_status.py --repeat 5

Builds the train of tests/helpers/train_rig.py (three real repositories with bare origins,
every member's first candidate built, bound and staged on pypiserver at 127.0.0.1), then runs
``mlrelease train status --json`` as a user does, in a fresh process each time: once with an
empty cache (every member's objects fetched) and ``--repeat`` times warm. Prints the cold time
and the warm median and spread, in seconds; ``--json`` writes them. The figure is in
docs/guide/trains.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers.error_index import proxied  # type: ignore[import-not-found]  # noqa: E402
from helpers.index import start, stop  # type: ignore[import-not-found]  # noqa: E402
from helpers.release import GIT_ENV  # type: ignore[import-not-found]  # noqa: E402
from helpers.train_rig import make_rig, stage_all  # type: ignore[import-not-found]  # noqa: E402


def timed(base: Path, train: Path) -> float:
    """One ``train status --json`` in a fresh process: its wall time (it must succeed)."""
    began = time.perf_counter()
    command = ["train", "status", "--json", "--train", str(train)]
    done = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(base), *command],
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - began
    if done.returncode != 0 or len(json.loads(done.stdout)["members"]) != 3:
        raise SystemExit(f"train status failed: {done.stdout}{done.stderr}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs (the median is shown)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-train-status-"))
    os.environ.update({**GIT_ENV, "TWINE_USERNAME": "bench", "TWINE_PASSWORD": "bench"})
    servers = [start(base / name) for name in ("staging", "release")]
    try:
        with proxied(servers[1][1]) as proxy:
            rig = make_rig(base / "train", servers[0][1], proxy.url)
            stage_all(rig)
            os.environ["MLRELEASE_CACHE_DIR"] = str(base / "cold-cache")
            shutil.rmtree(base / "cold-cache", ignore_errors=True)
            cold = timed(rig.base, rig.train)
            warm = [timed(rig.base, rig.train) for _ in range(args.repeat)]
    finally:
        for server, _ in servers:
            stop(server)
    figures = {
        "members": 3,
        "cold_s": round(cold, 2),
        "warm_median_s": round(statistics.median(warm), 2),
        "warm_min_s": round(min(warm), 2),
        "warm_max_s": round(max(warm), 2),
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
