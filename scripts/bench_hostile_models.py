"""Benchmark: N hostile Model Zoo submissions through ``mlrelease models verify``.

    python scripts/bench_hostile_models.py [--count 60] [--seed 0] [--write-docs]

Builds N submissions from the attack grammar of the tests (``tests/helpers/hostile.py``): every
attack class alone first, then random pairs, each folder next to a canary file. Then a fresh
process (the verifier's parent, as ``nox -s verify_models`` runs it) verifies them one after
the other and reports: total wall time, the median per submission, the parent's peak RSS (its
own, not its workers'), and the invariants of the property test: every submission got a
verdict (exit code 0 or 1), no traceback, no canary byte in any output. Exits 1 when an
invariant fails. ``--write-docs`` puts the figures in the models guide.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "models.md"
START, END = "<!-- bench_hostile_models:start -->", "<!-- bench_hostile_models:end -->"
sys.path.insert(0, str(ROOT / "tests"))


def build_corpus(folder: Path, count: int, seed: int) -> list[list[str]]:
    """``count`` submissions under ``folder``: each attack alone, then random pairs."""
    hostile = importlib.import_module("helpers.hostile")  # the tests' attack grammar
    names = sorted(hostile.ATTACKS)
    rng = random.Random(seed)
    plans: list[list[str]] = []
    for i in range(count):
        plans.append([names[i]] if i < len(names) else rng.sample(names, 2))
    hostile.write_canary(folder)
    for i, plan in enumerate(plans):
        hostile.build(folder / f"sub{i:03d}", folder / "canary.bin", plan)
    return plans


def verify_all(folder: Path, limits: list[str]) -> dict[str, object]:
    """Verify every submission in this process; the figures and the invariants."""
    canary_hits = importlib.import_module("helpers.hostile").canary_hits
    from mlrelease.cli import main

    subs = sorted(p for p in folder.iterdir() if p.is_dir())
    times, failures, declined = [], [], 0
    started = time.perf_counter()
    for sub in subs:
        out, err = io.StringIO(), io.StringIO()
        report = folder / f"{sub.name}.json"
        one = time.perf_counter()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["models", "verify", str(sub), "--json", str(report), *limits])
        except BaseException as exc:  # an invariant broken: recorded, the run goes on
            failures.append(f"{sub.name}: raised {type(exc).__name__}: {exc}")
            continue
        times.append(time.perf_counter() - one)
        text = out.getvalue() + err.getvalue()
        text += report.read_text(encoding="utf-8") if report.exists() else ""
        if code not in (0, 1) or not out.getvalue().startswith("## Model Zoo submission: "):
            failures.append(f"{sub.name}: no verdict (exit {code})")
        if "Traceback" in text:
            failures.append(f"{sub.name}: a traceback in the output")
        leaked = canary_hits(text)
        if leaked:
            failures.append(f"{sub.name}: canary bytes in the output: {leaked}")
        declined += code == 1
    return {
        "submissions": len(subs),
        "declined": declined,
        "total_s": round(time.perf_counter() - started, 1),
        "median_s": round(statistics.median(times), 2) if times else None,
        "max_s": round(max(times), 2) if times else None,
        "parent_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "failures": failures,
    }


def write_docs(figures: dict[str, object], command: str) -> None:
    text = GUIDE.read_text(encoding="utf-8")
    block = "\n".join(
        [
            START,
            f"Measured with `{command}` on {platform.machine()} "
            f"({platform.python_implementation()} {platform.python_version()}):",
            "",
            "| submissions | declined | total wall time | median per submission | slowest "
            "| verifier parent peak RSS | invariant failures |",
            "|---|---|---|---|---|---|---|",
            f"| {figures['submissions']} | {figures['declined']} | {figures['total_s']} s "
            f"| {figures['median_s']} s | {figures['max_s']} s "
            f"| {figures['parent_peak_rss_mb']} MB | {len(figures['failures'])} |",  # type: ignore[arg-type]
            END,
        ]
    )
    if START in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    GUIDE.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit-s", type=int, default=10)
    parser.add_argument("--memory-limit-mb", type=int, default=2048)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--verify", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    limits = [
        "--time-limit-s",
        str(args.time_limit_s),
        "--memory-limit-mb",
        str(args.memory_limit_mb),
    ]
    if args.verify:
        print(json.dumps(verify_all(args.verify, limits)))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        build_corpus(Path(tmp), args.count, args.seed)
        child = subprocess.run(
            [sys.executable, __file__, "--verify", tmp, *sys.argv[1:]],
            capture_output=True,
            text=True,
            cwd=tmp,  # outside any project: the defaults and the command-line limits only
            check=False,
        )
    if child.returncode != 0:
        print(child.stderr, file=sys.stderr)
        return 1
    figures = json.loads(child.stdout.strip().splitlines()[-1])
    print(json.dumps(figures, indent=2))
    if args.write_docs:
        command = "python scripts/bench_hostile_models.py " + " ".join(
            a for a in sys.argv[1:] if a != "--write-docs"
        )
        write_docs(figures, command.strip())
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
