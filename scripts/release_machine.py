"""Run the release flow's stateful adversary for longer than CI does, and print its figures.

    python scripts/release_machine.py --examples 200 --steps 25

The machine (tests/helpers/release_machine.py) plays the maintainer's mlrelease commands (each
possibly killed at a fault point), a colleague with push and upload rights, the environment and
the user against real repositories and pypiserver on 127.0.0.1 (standing in for PyPI), and
checks every invariant of docs/release/invariants.md after every step. It prints the examples
run, the invariant checks and the mlrelease steps (killed, refused), and the violations found
(a violation fails the run with Hypothesis's shrunk counterexample). ``--json`` writes them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers.error_index import proxied  # type: ignore[import-not-found]  # noqa: E402
from helpers.index import start, stop  # type: ignore[import-not-found]  # noqa: E402
from helpers.release import GIT_ENV  # type: ignore[import-not-found]  # noqa: E402
from helpers.release_machine import (  # type: ignore[import-not-found]  # noqa: E402
    Harness,
    ReleaseMachine,
    make_template,
)
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--steps", type=int, default=25, help="steps per example (at most)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    os.environ.update({**GIT_ENV, "TWINE_USERNAME": "machine", "TWINE_PASSWORD": "machine"})
    base = Path(tempfile.mkdtemp(prefix="release-machine-"))
    servers = {algo: start(base / "index", algo) for algo in ("sha256", "md5", "off")}
    urls = {algo: url for algo, (_, url) in servers.items()}
    (base / "scratch").mkdir()
    stack = contextlib.ExitStack()
    proxy = stack.enter_context(proxied(urls["sha256"]))  # the index's one URL, whatever it serves
    template = make_template(base / "t", proxy.url)
    harness = Harness(template, base / "index", urls, base / "scratch", proxy=proxy)
    ReleaseMachine.harness = harness
    began, violation = time.perf_counter(), ""
    try:
        run_state_machine_as_test(
            ReleaseMachine,
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
        stack.close()
        for server, _ in servers.values():
            stop(server)
    figures = {
        "examples": harness.examples,
        "invariant_checks": harness.checks,
        "mlrelease_steps": harness.steps,
        "killed": harness.kills,
        "refused": harness.refusals,
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
