"""Run the release train's stateful adversary for longer than CI does, and print its figures.

    python scripts/train_machine.py --examples 20 --steps 10

The machine (tests/helpers/train_machine.py) plays the train's maintainers (``train promote``
killed at any step, an upstream candidate rebuilt after its members bound, an upstream candidate
that breaks its members' API, a member bound again, its tests run against the upstream) and a
colleague (a member re-tagged) over three real repositories and pypiserver on 127.0.0.1
(the staging and release indexes), and checks the train's invariants after every step. It
prints the examples, invariant checks and steps (killed, refused), and the violations found (a
violation fails the run with Hypothesis's shrunk counterexample). ``--json`` writes them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers.error_index import proxied  # type: ignore[import-not-found]  # noqa: E402
from helpers.index import start, stop  # type: ignore[import-not-found]  # noqa: E402
from helpers.release import GIT_ENV  # type: ignore[import-not-found]  # noqa: E402
from helpers.train_machine import (  # type: ignore[import-not-found]  # noqa: E402
    TrainHarness,
    TrainMachine,
)
from helpers.train_rig import (  # type: ignore[import-not-found]  # noqa: E402
    Indexes,
    Staged,
    make_rig,
    stage_all,
)
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402


def staged(base: Path, indexes: Indexes) -> Staged:
    """The train with every member's first candidate bound and staged, and its template."""
    rig = make_rig(base / "world", indexes.staging, indexes.release.url)
    rcs = stage_all(rig)
    shutil.copytree(rig.base, base / "template" / "world", symlinks=True)
    shutil.copytree(indexes.staging_files, base / "template" / "staging")
    shutil.copytree(indexes.release_files, base / "template" / "release")
    return Staged(rig.base, base / "template", indexes, rcs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10)
    parser.add_argument("--steps", type=int, default=8, help="steps per example (at most)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="train-machine-"))
    os.environ.update({**GIT_ENV, "TWINE_USERNAME": "machine", "TWINE_PASSWORD": "machine"})
    os.environ["MLRELEASE_CACHE_DIR"] = str(base / "cache")
    servers = [start(base / name) for name in ("staging", "release")]
    began, violation = time.perf_counter(), ""
    try:
        with proxied(servers[1][1]) as proxy:
            indexes = Indexes(servers[0][1], base / "staging", proxy, base / "release")
            harness = TrainHarness(staged(base / "train", indexes).restore, indexes)
            TrainMachine.harness = harness
            run_state_machine_as_test(
                TrainMachine,
                settings=settings(
                    max_examples=args.examples,
                    stateful_step_count=args.steps,
                    deadline=None,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                ),
            )
    except AssertionError as exc:
        violation = str(exc)
    finally:
        for server, _ in servers:
            stop(server)
    figures = {
        "examples": harness.examples,
        "invariant_checks": harness.checks,
        "steps": harness.steps,
        "killed": harness.kills,
        "refused": harness.refusals,
        "api_breaks": harness.breaks,
        "refused_after_a_break": harness.refused_after_break,
        "violations": 1 if violation else 0,
        "seconds": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps({**figures, "violation": violation}, indent=2) + "\n")
    if violation:
        print(violation, file=sys.stderr)
    return 1 if violation else 0


if __name__ == "__main__":
    sys.exit(main())
