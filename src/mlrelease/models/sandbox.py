"""Run one model's verification in a subprocess with memory and time limits.

A model is untrusted input: parsing it, inferring its shapes or running it may exhaust memory,
hang, or crash native code. Each model therefore gets its own ``python -m
mlrelease.models.worker`` process, started through the process-isolation edge
(:mod:`mlrelease.edges.proc`): its own session, address-space and CPU-time limits set before it
runs anything (POSIX), the wall-clock limit enforced by killing the group, a private scratch
folder removed afterwards. Whatever happens, every step ends with a verdict: the step that was
running when the worker died is failed with the cause (time limit, signal, exit status, last
words on stderr) and the steps after it are marked as not run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mlrelease
from mlrelease.edges import proc
from mlrelease.models.manifest import ModelJob
from mlrelease.models.safefile import Root, UnsafeFile
from mlrelease.models.verdicts import ModelVerdict, StepStatus, StepVerdict
from mlrelease.models.worker import MARK


def worker_environment() -> dict[str, str]:
    """This environment, with this mlrelease importable first (the workers run its code).

    ``MALLOC_ARENA_MAX``: glibc reserves 64 MB of address space per thread arena (onnxruntime
    starts a thread per core); two arenas keep the address space, which the memory limit caps,
    close to the memory really used.
    """
    env = dict(os.environ)
    package_root = str(Path(mlrelease.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("ORT_LOGGING_LEVEL", "3")
    env.setdefault("MALLOC_ARENA_MAX", "2")
    return env


def limits_of(job: ModelJob) -> proc.Limits:
    """The isolation limits of one model's worker: wall clock, address space, CPU time."""
    return proc.Limits(
        wall_s=job.time_limit_s, memory_mb=job.memory_limit_mb, cpu_s=job.time_limit_s + 5
    )


def limits_reported(job: ModelJob) -> dict[str, int]:
    """The limits and the budget a verdict was reached under (printed with it)."""
    return {
        "memory_limit_mb": job.memory_limit_mb,
        "time_limit_s": job.time_limit_s,
        "max_nodes": job.max_nodes,
        "max_model_bytes": job.max_model_bytes,
    }


def _death(finished: proc.Finished, job: ModelJob) -> str:
    if finished.status is proc.ChildStatus.TIMEOUT and finished.killed:
        return (
            f"time limit of {job.time_limit_s} s exceeded (tool.mlrelease.models.time-limit-s, "
            "or the total budget); the worker was killed"
        )
    if finished.status is proc.ChildStatus.TIMEOUT:
        return f"CPU time limit ({job.time_limit_s} s) exceeded; the worker was stopped by SIGXCPU"
    if finished.status is proc.ChildStatus.OUT_OF_MEMORY:
        return (
            f"the worker was killed by SIGKILL (the system's out-of-memory killer, or "
            f"the memory limit of {job.memory_limit_mb} MB)"
        )
    if finished.returncode is not None and finished.returncode < 0:
        name = proc.signal_name(-finished.returncode)
        return f"the worker crashed with {name} (a native-code fault while handling the model)"
    if finished.returncode is None:
        return f"the worker did not finish: {finished.reason}"
    return f"the worker exited with status {finished.returncode} before finishing"


def run(job: ModelJob, *, python: str | None = None, root: Root | None = None) -> ModelVerdict:
    """Verify one model in a fresh isolated worker process; never raises for what the model does.

    ``root``: the folder the job's files are read from, opened once by the caller (a
    submission); the worker inherits its descriptor and never opens the folder by path. A
    job that is not trusted gets one opened here when none is given. The worker runs in a
    private scratch folder (its working directory and ``TMPDIR``), removed afterwards, even
    when it was killed.
    """
    opened = None
    if root is None and not job.trusted:
        try:
            root = opened = Root.open(Path(job.confine))
        except UnsafeFile as exc:
            return not_run(job, str(exc))
    fd = root.fd if root is not None else None
    payload = json.dumps({**job.to_dict(), "root_fd": fd}).encode()
    try:
        finished = proc.run(
            proc.python_module("mlrelease.models.worker", interpreter=python),
            limits=limits_of(job),
            input=payload,
            env=worker_environment(),
            scratch=True,
            pass_fds=() if fd is None else (fd,),
        )
    finally:
        if opened is not None:
            opened.close()
    verdict = ModelVerdict(name=job.name, path=job.model)
    verdict.limits = limits_reported(job)
    verdict.duration_s = finished.duration_s
    running: str | None = None
    done = False
    for line in finished.stdout.decode("utf-8", "replace").splitlines():
        if not line.startswith(MARK):
            continue
        try:
            event = json.loads(line[len(MARK) :])
            kind = event.pop("event")
            if kind == "hello":
                missing = [k for k, on in event["enforced"].items() if not on]
                if missing:
                    verdict.notes.append(
                        f"{' and '.join(missing)} limit not enforceable on "
                        f"{sys.platform}; the wall-clock limit still applies"
                    )
            elif kind == "start":
                running = str(event["step"])
            elif kind == "verdict":
                verdict.steps.append(StepVerdict.from_dict(event))
                running = None
            elif kind == "done":
                done = True
                verdict.peak_rss_mb = event.get("peak_rss_mb")
                verdict.external_files = [str(f) for f in event.get("files", [])]
        except (ValueError, AttributeError, KeyError, TypeError):
            continue  # a garbled line (the worker died mid-write) is not an event
    if not done:
        cause = _death(finished, job)
        stderr_tail = [
            line for line in finished.stderr.decode("utf-8", "replace").splitlines() if line.strip()
        ][-5:]
        details = [f"stderr: {line[:300]}" for line in stderr_tail]
        step = running or next((s for s in _planned(job) if not verdict.step(s)), "integrity")
        verdict.steps.append(StepVerdict(step, StepStatus.FAIL, cause, details))
        for rest in _planned(job):
            if verdict.step(rest) is None:
                verdict.steps.append(
                    StepVerdict(rest, StepStatus.SKIP, f"not run: the worker stopped during {step}")
                )
    return verdict


def not_run(job: ModelJob, reason: str) -> ModelVerdict:
    """A verdict for a model that was never started (e.g. the total time budget is spent)."""
    verdict = ModelVerdict(name=job.name, path=job.model)
    verdict.limits = limits_reported(job)
    planned = _planned(job)
    verdict.steps.append(StepVerdict(planned[0], StepStatus.FAIL, reason))
    verdict.steps.extend(StepVerdict(s, StepStatus.SKIP, f"not run: {reason}") for s in planned[1:])
    return verdict


def _planned(job: ModelJob) -> list[str]:
    return job.steps if "integrity" in job.steps else ["integrity", *job.steps]
