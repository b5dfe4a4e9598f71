"""Property: whatever a submission holds, the verifier gives a verdict and leaks nothing.

Hypothesis draws submissions from the attack grammar of ``helpers.hostile`` (external data
anywhere in the protobuf pointing at a canary by traversal, absolute path, symlink, symlinked
folder or hard link; README, script, model.toml and test-data attacks; special files,
archives, pathological shapes, endless loops, deep nesting, forged Markdown and console
markup), one to three attacks each, and runs the real command line on it in a subprocess.

Invariants: exit code 0 or 1, exactly one verdict heading, no traceback, bounded wall time, no
canary byte (raw, hex, as integers, as floats) in stdout, stderr, the JSON or the Markdown
report. CI runs ``MLRELEASE_HOSTILE_EXAMPLES`` examples (default 8); the benchmark
``scripts/bench_hostile_models.py`` runs every class and many more.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import hostile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlrelease

POSIX = hasattr(os, "mkfifo")
EXAMPLES = int(os.environ.get("MLRELEASE_HOSTILE_EXAMPLES", "8"))
TIME_LIMIT_S = 6
WALL_BOUND_S = 60
"""Per submission: the artifact inspection, up to three workers capped by the total budget."""

FAST = sorted(set(hostile.ATTACKS) - hostile.SLOW)
attacks = st.lists(
    st.one_of(st.sampled_from(FAST), st.sampled_from(sorted(hostile.SLOW))),
    min_size=1,
    max_size=3,
)


@pytest.mark.skipif(not POSIX, reason="links, named pipes and rlimits are POSIX")
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=attacks)
def test_every_hostile_submission_gets_a_verdict_and_leaks_nothing(
    plan: list[str], tmp_path: Path
) -> None:
    root = tmp_path / f"case-{time.monotonic_ns()}"
    root.mkdir()
    try:
        canary = hostile.write_canary(root)
        folder = hostile.build(root / "sub", canary, plan)
        report = root / "report"
        env = {
            **os.environ,
            "PYTHONPATH": str(Path(mlrelease.__file__).resolve().parents[1]),
            "TMPDIR": str(root),
        }
        started = time.monotonic()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "mlrelease",
                "models",
                "verify",
                str(folder),
                "--time-limit-s",
                str(TIME_LIMIT_S),
                "--total-time-limit-s",
                str(3 * TIME_LIMIT_S),
                "--memory-limit-mb",
                "2048",
                "--json",
                str(report / "report.json"),
                "--markdown",
                str(report / "report.md"),
            ],
            cwd=root,  # outside any project
            env=env,
            capture_output=True,
            timeout=WALL_BOUND_S + 60,
            check=False,
        )
        took = time.monotonic() - started
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        texts = [out, err] + [
            p.read_text(encoding="utf-8", errors="replace") for p in sorted(report.glob("*"))
        ]
        everything = "\n".join(texts)

        assert done.returncode in (0, 1), (plan, done.returncode, err[-2000:])
        assert out.startswith("## Model Zoo submission: "), (plan, out[:500])
        headings = [line for line in out.splitlines() if line.lstrip().startswith("#")]
        verdicts = [line for line in headings if "Model Zoo submission" in line]
        assert verdicts == [out.splitlines()[0]], (plan, headings)
        assert "Traceback" not in everything, (plan, everything[-2000:])
        assert took < WALL_BOUND_S, (plan, took)
        assert hostile.canary_hits(everything) == [], (plan, hostile.canary_hits(everything))
        raw = done.stdout + done.stderr
        assert hostile.CANARY[:8] not in raw and hostile.CANARY[8:16] not in raw, plan
        if plan and set(plan) - {"name_ansi", "name_rich_markup", "name_markdown"}:
            assert done.returncode == 1, (plan, out[:1500])
    finally:
        shutil.rmtree(root, ignore_errors=True)
