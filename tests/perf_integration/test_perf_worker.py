"""The subprocess edge: exit codes become statuses (real processes, fake interpreters)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from mlrelease.perf.harness import measure
from mlrelease.perf.replies import RunReply
from mlrelease.perf.runner import Build, Worker


def interpreter(tmp_path: Path, body: str) -> str:
    """An executable standing in for a Python that runs the worker."""
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def call(tmp_path: Path, body: str, timeout: int = 30) -> tuple[str, str]:
    worker = Worker(
        Build("x", interpreter(tmp_path, body)), tmp_path / "work", tmp_path, timeout, threads=1
    )
    outcome = worker.call("run-m/s/b1/f", {"kind": "run"}, RunReply.parse)
    assert outcome.result is None
    return outcome.status, outcome.error


def replying(batch: str) -> str:
    """A worker that writes ``{"rows": {"4": batch}}`` as its reply and exits 0 (the result file
    is its last argument)."""
    return f'for a; do result="$a"; done; echo \'{{"rows": {{"4": {batch}}}}}\' > "$result"'


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts")
def test_a_malformed_reply_is_a_runtime_error_naming_the_field(tmp_path: Path) -> None:
    status, error = call(tmp_path, replying('{"samples_ns": [1, 2]}'))
    assert status == "runtime_error"
    assert "`rows.4.status`: missing (a required field)" in error
    assert "run-m_s_b1_f.result.json" in error and "Traceback" not in error
    status, error = call(tmp_path, replying('{"status": "ok", "samples_ns": ["1"]}'))
    assert "`rows.4.samples_ns`: expected a list of integers, found ['1']" in error


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts")
def test_a_well_formed_reply_is_read_typed(tmp_path: Path) -> None:
    worker = Worker(
        Build("x", interpreter(tmp_path, replying('{"status": "ok", "samples_ns": [5, 6]}'))),
        tmp_path / "work",
        tmp_path,
        30,
        threads=1,
    )
    outcome = worker.call("run-m", {"kind": "run"}, RunReply.parse)
    assert outcome.result is not None and outcome.seconds > 0
    assert outcome.result.rows["4"].samples_ns == (5, 6)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts and signals")
def test_exit_codes_become_statuses(tmp_path: Path) -> None:
    status, error = call(tmp_path, 'echo "line one"; echo "RuntimeError: it broke" >&2; exit 3')
    assert status == "runtime_error"
    assert "exited with 3" in error and error.endswith("RuntimeError: it broke")
    status, error = call(tmp_path, "kill -9 $$")
    assert status == "oom" and "SIGKILL" in error
    status, error = call(tmp_path, "sleep 30 & wait", timeout=1)
    assert status == "timeout" and "1 s limit" in error


def test_worker_sets_thread_environment(tmp_path: Path) -> None:
    worker = Worker(Build("x"), tmp_path / "w", tmp_path, 10, threads=1)
    assert worker.env["OMP_NUM_THREADS"] == "1"
    assert worker.env["PYTHONPATH"].split(os.pathsep)[0] == str(tmp_path)
    assert worker.env["HF_HUB_OFFLINE"] == "1"


def test_measure_counts_warmup_and_iterations() -> None:
    calls: list[str] = []
    result = measure(
        lambda: calls.append("run"),
        lambda: calls.append("sync"),
        warmup_iters=3,
        warmup_s=0.0,
        iters=5,
    )
    assert result.warmup_iters == 3 and len(result.samples_ns) == 5
    assert calls == ["run", "sync"] * 8
    # Injected: each iteration busy-waits 3x its own run (x4). The plain runs are timed before
    # and after it, warmed up: a clock ramping up or down, or a tenant arriving, during the
    # first run cannot make the injected median look no slower (at x2 with no warm-up, a cold
    # first run half as fast was enough).

    def median_ns(slowdown: float) -> int:
        done = measure(
            lambda: sum(range(20000)), warmup_iters=5, warmup_s=0, iters=21, slowdown=slowdown
        )
        return sorted(done.samples_ns)[10]

    before, injected, after = median_ns(0.0), median_ns(3.0), median_ns(0.0)
    assert injected > 2 * max(before, after), (before, injected, after)
