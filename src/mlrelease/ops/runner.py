"""Run (backend, case) tasks in worker processes, isolated so one bad kernel costs one case.

Each worker (:mod:`mlrelease.ops.worker`) gets one task at a time. When a worker's pipe
closes while it holds a task, that case is ``crash`` (with the signal or exit code) and a fresh
worker takes the remaining tasks; when a task runs past the time limit, its worker is killed
and the case is ``timeout``. Nothing a backend does can stop the run.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mlrelease.edges import proc as isolation
from mlrelease.errors import UserError
from mlrelease.ops import protocol
from mlrelease.ops.cases import Case
from mlrelease.ops.config import BackendConfig
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict, Description

WORKER_ENV = {
    # Workers run side by side: native thread pools would only fight over the same cores.
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
}


class RunnerError(UserError):
    """A worker could not start at all (not a case failing: the setup is broken)."""

    exit_code = 1


@dataclass
class Task:
    """One case on one backend, with the tolerance it is judged by."""

    backend_index: int
    case: Case
    rtol: float
    atol: float


@dataclass
class _Worker:
    number: int
    process: isolation.Popen[bytes]
    log: Path
    ready: bool = False
    task: int | None = None
    started: float = 0.0
    dead: bool = False
    stdin: IO[bytes] = field(init=False)

    def __post_init__(self) -> None:
        assert self.process.stdin is not None
        self.stdin = self.process.stdin


class Pool:
    """Worker processes for one run. Use as a context manager: workers never outlive it."""

    def __init__(
        self,
        backends: Sequence[BackendConfig],
        *,
        jobs: int,
        timeout_s: float,
        log_dir: Path,
        python_path: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.backends = list(backends)
        self.env = {**WORKER_ENV, **(env or {})}
        self.jobs = max(1, jobs)
        self.timeout_s = timeout_s
        self.log_dir = log_dir
        self.python_path = [str(p) for p in python_path]
        self.events: queue.Queue[tuple[_Worker, Any]] = queue.Queue()
        self.workers: list[_Worker] = []
        self.spawned = 0

    def __enter__(self) -> Pool:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for old in self.log_dir.glob("worker-*.log"):
            old.unlink()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- workers ----------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        self.spawned += 1
        log = self.log_dir / f"worker-{self.spawned}.log"
        env = {**os.environ, **self.env}
        with log.open("wb") as log_file:
            process = isolation.start(
                isolation.python_module("mlrelease.ops.worker"),
                stdin=isolation.PIPE,
                stdout=isolation.PIPE,
                stderr=log_file,
                env=env,
            )
        worker = _Worker(self.spawned, process, log)
        protocol.send(worker.stdin, ("init", self.backends, self.python_path))
        threading.Thread(target=self._read, args=(worker,), daemon=True).start()
        self.workers.append(worker)
        return worker

    def _read(self, worker: _Worker) -> None:
        stream = worker.process.stdout
        assert stream is not None
        while True:
            try:
                message = protocol.receive(stream)
            except Exception:  # a garbled frame: treat like a dead worker
                message = None
            self.events.put((worker, message))
            if message is None:
                return

    def _retire(self, worker: _Worker, kill: bool) -> None:
        worker.dead = True
        if kill and worker.process.poll() is None:
            isolation.kill_group(worker.process, wait=False)
        try:
            worker.process.wait(timeout=10)
        except isolation.TimeoutExpired:
            isolation.kill_group(worker.process)
        for stream in (worker.process.stdin, worker.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if worker in self.workers:
            self.workers.remove(worker)

    def close(self) -> None:
        """Stop every worker (politely, then by force)."""
        for worker in list(self.workers):
            with contextlib.suppress(OSError):
                protocol.send(worker.stdin, ("stop",))
        deadline = time.monotonic() + 5
        for worker in list(self.workers):
            with contextlib.suppress(isolation.TimeoutExpired):
                worker.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            self._retire(worker, kill=True)

    def _next_event(self, timeout: float | None) -> tuple[_Worker, Any] | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def _startup_failure(self, worker: _Worker) -> RunnerError:
        self._retire(worker, kill=True)
        return RunnerError(
            f"a conformance worker exited before it was ready (exit {worker.process.returncode}). "
            f"Its log, {worker.log}, ends with:\n{log_tail(worker.log, 15)}"
        )

    # --- describe -------------------------------------------------------------------------

    def describe(self) -> list[Description]:
        """Ask one worker which backends are available here (imports happen there, not here)."""
        worker = self._spawn()
        while True:
            event = self._next_event(timeout=120)
            if event is None:
                raise RunnerError("a conformance worker did not start within 120 s")
            source, message = event
            if source is not worker or source.dead:
                continue
            if message is None:
                raise self._startup_failure(worker)
            if message[0] == "ready":
                worker.ready = True
                protocol.send(worker.stdin, ("describe",))
            elif message[0] == "described":
                return list(message[1])

    # --- run ------------------------------------------------------------------------------

    def run(
        self,
        tasks: Sequence[Task],
        on_result: Callable[[CaseResult], None] | None = None,
    ) -> list[CaseResult]:
        """Run every task; results come back in task order."""
        results: list[CaseResult | None] = [None] * len(tasks)
        pending = deque(range(len(tasks)))
        remaining = len(tasks)
        while len(self.workers) < min(self.jobs, len(tasks)):
            self._spawn()
        for worker in self.workers:
            if worker.ready and worker.task is None:
                self._dispatch(worker, tasks, pending)

        while remaining:
            event = self._next_event(timeout=self._wait_time())
            if event is None:
                remaining -= self._expire(tasks, results, pending, on_result)
                continue
            worker, message = event
            if worker.dead:
                continue  # a worker we already retired (killed on timeout)
            if message is None:
                if not worker.ready:
                    raise self._startup_failure(worker)
                remaining -= self._crashed(worker, tasks, results, on_result)
                if pending and len(self.workers) < self.jobs:
                    self._spawn()
                continue
            if message[0] == "ready":
                worker.ready = True
                self._dispatch(worker, tasks, pending)
            elif message[0] == "result":
                index = worker.task
                assert index is not None and message[1] == index, "worker answered out of order"
                result: CaseResult = message[2]
                results[index] = result
                remaining -= 1
                worker.task = None
                if on_result:
                    on_result(result)
                self._dispatch(worker, tasks, pending)
        return [r for r in results if r is not None]

    def _dispatch(self, worker: _Worker, tasks: Sequence[Task], pending: deque[int]) -> None:
        if not pending or worker.task is not None or not worker.ready:
            return
        index = pending.popleft()
        task = tasks[index]
        worker.task, worker.started = index, time.monotonic()
        # A worker that is dying fails the send; its closed pipe then reports the crash.
        with contextlib.suppress(OSError):
            protocol.send(
                worker.stdin, ("run", index, task.backend_index, task.case, task.rtol, task.atol)
            )

    def _wait_time(self) -> float | None:
        busy = [w.started + self.timeout_s for w in self.workers if w.task is not None]
        if not busy:
            return 1.0
        return max(0.0, min(busy) - time.monotonic()) + 0.01

    def _expire(
        self,
        tasks: Sequence[Task],
        results: list[CaseResult | None],
        pending: deque[int],
        on_result: Callable[[CaseResult], None] | None,
    ) -> int:
        done = 0
        now = time.monotonic()
        for worker in list(self.workers):
            if worker.task is None or now < worker.started + self.timeout_s:
                continue
            index = worker.task
            self._retire(worker, kill=True)
            result = self._failed(
                tasks[index],
                ConformanceVerdict.TIMEOUT,
                f"ran past the {self.timeout_s:g} s limit; the worker was killed",
                now - worker.started,
            )
            results[index] = result
            done += 1
            if on_result:
                on_result(result)
            if pending:
                self._spawn()
        return done

    def _crashed(
        self,
        worker: _Worker,
        tasks: Sequence[Task],
        results: list[CaseResult | None],
        on_result: Callable[[CaseResult], None] | None,
    ) -> int:
        index, started = worker.task, worker.started
        self._retire(worker, kill=True)
        if index is None:
            return 0
        code = worker.process.returncode
        result = self._failed(
            tasks[index],
            ConformanceVerdict.CRASH,
            f"the worker process died ({describe_exit(code)}); log: {log_tail(worker.log, 3)}",
            time.monotonic() - started,
        )
        results[index] = result
        if on_result:
            on_result(result)
        return 1

    def _failed(
        self, task: Task, verdict: ConformanceVerdict, message: str, duration: float
    ) -> CaseResult:
        return CaseResult(
            case=task.case.name,
            backend=self.backends[task.backend_index].name,
            verdict=verdict,
            message=message,
            ir_version=task.case.ir_version,
            duration_s=duration,
        )


def describe_exit(code: int | None) -> str:
    """``signal SIGABRT`` / ``exit code 3``: how a worker ended."""
    return isolation.describe_exit(code)


def log_tail(path: Path, lines: int) -> str:
    """The last lines of a worker log that are not its own 'run ...' markers."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    kept = [line for line in text.splitlines() if line.strip() and not line.startswith("run ")]
    return " | ".join(kept[-lines:]) or "(empty)"
