"""The reference build of a commit (issue 44), cold and cached: ``python
scripts/bench_reference_build.py [--root .] [--repeat 3]`` builds HEAD's reference from an
empty cache, then reads it back, ``--repeat`` times, and prints the medians."""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

from mlrelease.edges import git
from mlrelease.wheels import reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    commit = git.run(args.root, "rev-parse", "HEAD")
    cache = git.git_dir(args.root) / reference.CACHE / commit
    cold, cached = [], []
    for _ in range(args.repeat):
        shutil.rmtree(cache, ignore_errors=True)
        started = time.monotonic()
        built = reference.build(args.root, commit)
        cold.append(time.monotonic() - started)
        started = time.monotonic()
        again = reference.build(args.root, commit)
        cached.append(time.monotonic() - started)
        if built.broken or not again.cached:
            raise SystemExit(f"no reference: {built.broken or 'not cached'}")
    print(f"{commit[:12]}: {built.sdist and built.sdist.name}, {built.wheel and built.wheel.name}")
    print(
        f"cold:   median {statistics.median(cold):.2f} s  ({', '.join(f'{c:.2f}' for c in cold)})"
    )
    print(f"cached: median {statistics.median(cached) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
