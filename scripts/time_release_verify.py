"""Time ``nox -s release_verify`` as a new user meets it (cold) and as a maintainer re-runs it
(warm), phase by phase.

Usage:
    python scripts/time_release_verify.py [--runs 2] [--keep DIR] [--json FILE]
                                          [-- release_verify args]

Each run is a fresh machine, as `.ci/run` makes one: a fresh clone of this repository's HEAD, a
new empty HOME (so no pip, uv, matplotlib, Hugging Face or mlrelease cache), an empty TMPDIR, no
locale (LANG and LC_* unset, LOCPATH an empty folder) and only the variables
``ci/fresh-machine-keep`` names. Cold: the README's set-up (``pip install nox uv``, into a venv
of its own so this machine's Python is left alone), then ``nox -s release_verify``. Warm:
``nox -R -s release_verify`` again in that clone. Prints each run, then the medians of
``--runs`` runs per phase: clone, set-up line, venv creation and installs (from the report's
set-up steps), each gate, and nox's own overhead (the rest).

The final figures want a quiet machine: ``python scripts/time_release_verify.py --runs 2``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
KEEP_FILE = HERE / "ci" / "fresh-machine-keep"
TARGETS = {"cold": 600.0, "warm": 60.0}
"""Seconds, on the 2-core development machine when it is quiet (docs/development.md)."""

Phases = dict[str, float]


def fresh_environment(base: Path) -> dict[str, str]:
    """This process's environment reduced to what a fresh machine has, with a new HOME."""
    lines = KEEP_FILE.read_text(encoding="utf-8").splitlines()
    keep = re.compile("|".join(f"(?:{p.strip()})" for p in lines if p.strip()[:1] not in "#"))
    env = {k: v for k, v in os.environ.items() if keep.fullmatch(k)}
    for name in ("home", "tmp", "locales"):
        (base / name).mkdir(parents=True, exist_ok=True)
    tools = base / "tools" / ("Scripts" if sys.platform == "win32" else "bin")
    env.update(
        HOME=str(base / "home"),
        TMPDIR=str(base / "tmp"),
        LOCPATH=str(base / "locales"),
        PATH=os.pathsep.join([str(tools), env.get("PATH", "")]),
    )
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> float:
    """Run ``command``, its output into ``log``; the wall time, or exit naming the log."""
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        code = subprocess.call(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"{tail}\n`{' '.join(command)}` exited {code}; the whole log: {log}")
    return time.perf_counter() - start


def report_phases(clone: Path, wall: float) -> Phases:
    """The set-up steps and gates of the report just written, and the rest of ``wall``."""
    data = json.loads((clone / "build/release-verify/report.json").read_text(encoding="utf-8"))
    phases = {f"set-up: {s['name']}": float(s["duration_s"]) for s in data.get("setup", [])}
    phases |= {f"gate {r['name']}": float(r["duration_s"]) for r in data["results"]}
    phases["nox and the report (the rest)"] = max(0.0, wall - sum(phases.values()))
    return phases


def one_run(base: Path, extra: list[str]) -> tuple[Phases, Phases]:
    """A cold run on a fresh machine in ``base``, then a warm one; (cold, warm) phases."""
    env = fresh_environment(base)
    clone, logs = base / "clone", base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    cold: Phases = {
        "clone": timed(["git", "clone", "-q", str(HERE), str(clone)], base, env, logs / "clone")
    }
    # The README's set-up line, into a venv of its own rather than this machine's Python.
    python = shutil.which("python3", path=env["PATH"]) or sys.executable
    cold["set-up line (pip install nox uv)"] = timed(
        [python, "-m", "venv", str(base / "tools")], base, env, logs / "venv"
    ) + timed(["pip", "install", "-q", "nox", "uv"], base, env, logs / "tools")
    wall = timed(["nox", "-s", "release_verify", *extra], clone, env, logs / "cold")
    cold |= report_phases(clone, wall)
    tests_log = clone / "build/release-verify/evidence/tests/output.txt"  # the slowest tests
    if tests_log.is_file():
        shutil.copy(tests_log, logs / "tests-gate-cold.txt")
    warm_wall = timed(["nox", "-R", "-s", "release_verify", *extra], clone, env, logs / "warm")
    return cold, report_phases(clone, warm_wall)


def medians(runs: list[Phases]) -> Phases:
    names = list(dict.fromkeys(name for run in runs for name in run))
    return {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}


def table(cold: Phases, warm: Phases) -> list[str]:
    """Markdown rows: each phase's cold and warm median seconds, then the totals."""
    rows = ["| phase | cold (s) | warm (s) |", "|---|---:|---:|"]
    for name in dict.fromkeys([*cold, *warm]):
        rows.append(f"| {name} | {cold.get(name, 0.0):.1f} | {warm.get(name, 0.0):.1f} |")
    totals = {kind: sum(p.values()) for kind, p in (("cold", cold), ("warm", warm))}
    rows.append(f"| **total** | **{totals['cold']:.1f}** | **{totals['warm']:.1f}** |")
    for kind, seconds in totals.items():
        verdict = "within" if seconds <= TARGETS[kind] else "OVER"
        rows.append(f"\n{kind}: {seconds:.0f} s, {verdict} the target of {TARGETS[kind]:.0f} s")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="cold+warm pairs (default 2)")
    parser.add_argument("--keep", type=Path, help="work in this folder, and keep it")
    parser.add_argument("--json", type=Path, help="also write every run's phases here")
    parser.add_argument("extra", nargs="*", help="arguments for release_verify (after --)")
    args = parser.parse_args()
    extra = ["--", *args.extra] if args.extra else []
    work = args.keep or Path(tempfile.mkdtemp(prefix="time-release-verify-"))
    runs: list[tuple[Phases, Phases]] = []
    try:
        for i in range(1, args.runs + 1):
            base = work / f"run-{i}"
            cold, warm = one_run(base, extra)
            runs.append((cold, warm))
            print(f"run {i}: cold {sum(cold.values()):.1f} s, warm {sum(warm.values()):.1f} s")
            print(f"  logs, and the tests gate's slowest tests: {base / 'logs'}")
            if not args.keep:  # a run leaves GBs behind (its caches, environments, clone)
                for folder in ("home", "tmp", "locales", "tools", "clone"):
                    shutil.rmtree(base / folder, ignore_errors=True)
    finally:
        if args.json:
            args.json.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8")
    print(f"\nMedians of {len(runs)} run(s), each on a fresh machine:\n")
    print("\n".join(table(medians([c for c, _ in runs]), medians([w for _, w in runs]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
