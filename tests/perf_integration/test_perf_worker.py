"""The subprocess edge: exit codes become statuses (real processes, fake interpreters)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from mlrelease.perf.harness import measure
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
    outcome = worker.call("run-m/s/b1/f", {"kind": "run"})
    assert outcome.result is None
    return outcome.status, outcome.error


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
    slowed = measure(lambda: sum(range(20000)), warmup_iters=0, warmup_s=0, iters=20)
    injected = measure(
        lambda: sum(range(20000)), warmup_iters=0, warmup_s=0, iters=20, slowdown=1.0
    )
    assert sorted(injected.samples_ns)[10] > sorted(slowed.samples_ns)[10]
