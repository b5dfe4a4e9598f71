"""The sandboxed verifier process: ``python -m mlrelease.models.worker`` (one model per process).

Reads a :class:`~mlrelease.models.manifest.ModelJob` as JSON on stdin, limits its own memory
(address space) and CPU time (again: the parent set them before it started), then runs the
steps in order and writes one event per line, each flushed at once, so the parent knows which
step was running if this process dies:

    @@mlrelease-worker@@ {"event": "start", "step": "checker"}
    @@mlrelease-worker@@ {"event": "verdict", "step": "checker", "outcome": "pass", ...}
    @@mlrelease-worker@@ {"event": "done", "peak_rss_mb": 61.2, "files": ["/m/weights.bin"]}

Events go to a private copy of the original stdout; file descriptor 1 is pointed at stderr,
so a library that prints cannot corrupt them. An exception in a step is that step's failing
verdict; step 0 not passing stops every later step. ``files`` lists the external data files
step 0 cleared (the verdict cache checks them).

Files are read through the folder the parent opened (``root_fd``, inherited): step 0 reads the
model and its external data once into this process's private temp folder, and every later step
uses those copies; test data is read once, from the same descriptor. The process runs in a
private working directory, started by the Python launcher, so nothing of the submission is
ever imported.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mlrelease.models.manifest import ModelJob
    from mlrelease.models.safefile import Root
    from mlrelease.models.steps.state import State
    from mlrelease.models.verdicts import StepVerdict

MARK = "@@mlrelease-worker@@ "
PAUSE_ENV = "MLRELEASE_PAUSE_AFTER"
"""Test hook (a fault point): ``STEP=FOLDER``. After STEP the worker writes ``FOLDER/paused``
and waits (60 s at most) for ``FOLDER/resume``, so a test can change the submission between a
check and a use."""


def apply_limits(memory_limit_mb: int, time_limit_s: int) -> dict[str, bool]:
    """Cap this process's address space and CPU time; say which limits the platform enforces.

    The parent already set them before this process started (:mod:`mlrelease.edges.proc`); set
    again here so a worker started by other means is never unlimited.
    """
    from mlrelease.edges import proc

    return proc.apply_limits(
        proc.Limits(memory_mb=memory_limit_mb, cpu_s=time_limit_s + 5, wall_s=time_limit_s)
    )


def peak_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes vs KiB


def _emit(stream: IO[str], event: dict[str, Any]) -> None:
    stream.write(MARK + json.dumps(event) + "\n")
    stream.flush()


def main() -> int:
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    job_data = json.loads(sys.stdin.read())
    enforced = apply_limits(int(job_data["memory_limit_mb"]), int(job_data["time_limit_s"]))
    _emit(events, {"event": "hello", "enforced": enforced, "pid": os.getpid()})

    # Imported after the limits are in place: onnx and onnxruntime count against them too.
    from mlrelease.models.manifest import ModelJob
    from mlrelease.models.safefile import UnsafeFile
    from mlrelease.models.steps import STEP_FUNCTIONS
    from mlrelease.models.steps.state import State
    from mlrelease.models.verdicts import StepStatus, StepVerdict

    job = ModelJob.from_dict(job_data)
    steps = job.steps if "integrity" in job.steps else ["integrity", *job.steps]
    files: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mlrelease-verify-") as tmp:
        state = State(job, Path(tmp))
        try:
            state.root = open_root(job)
        except UnsafeFile as exc:
            state.refused = str(exc)
        for step in steps:
            if state.stop:
                verdict = StepVerdict(step, StepStatus.SKIP, f"not run: {state.stop}")
                _emit(events, {"event": "verdict", **verdict.to_dict()})
                continue
            _emit(events, {"event": "start", "step": step})
            start = time.perf_counter()
            verdict = run_step(step, STEP_FUNCTIONS[step], state)
            if step == "integrity" and verdict.outcome not in (StepStatus.PASS, StepStatus.WARN):
                # Nothing may touch a file step 0 did not clear, whatever made it fail.
                state.stop = state.stop or "step 0 (integrity) did not clear the file"
            verdict.duration_s = time.perf_counter() - start
            _emit(events, {"event": "verdict", **verdict.to_dict()})
            pause_after(step)
        files = sorted(str(p) for p in state.sources.values())
    _emit(events, {"event": "done", "peak_rss_mb": peak_rss_mb(), "files": files})
    return 0


def pause_after(step: str) -> None:
    """The :data:`PAUSE_ENV` fault point."""
    name, _, folder = os.environ.get(PAUSE_ENV, "").partition("=")
    if name != step or not folder:
        return
    Path(folder, "paused").touch()
    deadline = time.monotonic() + 60
    while not Path(folder, "resume").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def open_root(job: ModelJob) -> Root:
    """The folder the parent opened and handed over, or (a trusted job, or a worker started by
    hand) the job's folder opened now."""
    from mlrelease.models.safefile import Root

    if job.root_fd is not None:
        return Root.inherit(job.root_fd, Path(job.confine), trusted=job.trusted)
    return Root.open(Path(job.confine), trusted=job.trusted)


def run_step(step: str, function: Callable[[State], StepVerdict], state: State) -> StepVerdict:
    """One step's verdict; any exception it raises becomes a failing verdict naming the step."""
    from mlrelease.models.verdicts import StepStatus, StepVerdict

    limit = state.job.memory_limit_mb
    try:
        return function(state)
    except MemoryError as exc:
        return StepVerdict(step, StepStatus.FAIL, memory_message(limit, exc))
    except RecursionError:
        return StepVerdict(
            step,
            StepStatus.FAIL,
            f"step {step}: the model nests too deeply to process (Python recursion limit reached)",
        )
    except Exception as exc:  # a step must never take the other verdicts down with it
        text = f"{type(exc).__name__}: {exc}"
        if "bad_alloc" in text or "Failed to allocate" in text:
            return StepVerdict(step, StepStatus.FAIL, memory_message(limit, exc))
        return StepVerdict(
            step, StepStatus.FAIL, f"step {step} raised " + " ".join(text.split())[:2000]
        )


def memory_message(limit_mb: int, exc: BaseException) -> str:
    return (
        f"ran out of memory under the verifier's limit of {limit_mb} MB "
        f"([tool.mlrelease.models] memory-limit-mb): {type(exc).__name__}: "
        + " ".join(str(exc).split())[:300]
    )


if __name__ == "__main__":
    sys.exit(main())
