"""Run one model's verification in a subprocess with memory and time limits.

A model is untrusted input: parsing it, inferring its shapes or running it may exhaust memory,
hang, or crash native code. Each model therefore gets its own ``python -m
mlrelease.models.worker`` process, in its own process group. The worker caps its own address
space and CPU time (POSIX); this side enforces the wall-clock limit by killing the group. Whatever
happens, every step ends with a verdict: the step that was running when the worker died is
failed with the cause (time limit, signal, exit status, last words on stderr) and the steps
after it are marked as not run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlrelease
from mlrelease.models.manifest import ModelJob
from mlrelease.models.verdicts import ModelVerdict, Outcome, StepVerdict
from mlrelease.models.worker import MARK


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(mlrelease.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("ORT_LOGGING_LEVEL", "3")
    return env


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if sys.platform == "win32":
        proc.kill()
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _death(returncode: int | None, timed_out: bool, limit_s: int, memory_mb: int) -> str:
    if timed_out:
        return (
            f"time limit of {limit_s} s exceeded (tool.mlrelease.models.time-limit-s); "
            "the worker was killed"
        )
    if returncode is None:
        return "the worker did not finish"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        if name == "SIGXCPU":
            return f"CPU time limit ({limit_s} s) exceeded; the worker was stopped by {name}"
        if name == "SIGKILL":
            return (
                f"the worker was killed by SIGKILL (the system's out-of-memory killer, or "
                f"the memory limit of {memory_mb} MB)"
            )
        return f"the worker crashed with {name} (a native-code fault while handling the model)"
    return f"the worker exited with status {returncode} before finishing"


def run(job: ModelJob, *, python: str = sys.executable) -> ModelVerdict:
    """Verify one model in a fresh worker process; never raises for anything the model does."""
    command = [python, "-m", "mlrelease.models.worker"]
    kwargs: dict[str, object] = {}
    if sys.platform == "win32":
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    else:
        kwargs["start_new_session"] = True
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(),
        **kwargs,  # type: ignore[call-overload]
    )
    timed_out = False
    payload = json.dumps(job.to_dict()).encode()
    try:
        out, err = proc.communicate(payload, timeout=job.time_limit_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
        out, err = proc.communicate()
    if not timed_out and sys.platform != "win32":
        _kill(proc)  # grandchildren a model might have spawned die with the group
    verdict = ModelVerdict(name=job.name, path=job.model)
    verdict.duration_s = time.perf_counter() - start
    running: str | None = None
    done = False
    for line in out.decode("utf-8", "replace").splitlines():
        if not line.startswith(MARK):
            continue
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
            running = event["step"]
        elif kind == "verdict":
            verdict.steps.append(StepVerdict.from_dict(event))
            running = None
        elif kind == "done":
            done = True
            verdict.peak_rss_mb = event.get("peak_rss_mb")
    if not done:
        cause = _death(proc.returncode, timed_out, job.time_limit_s, job.memory_limit_mb)
        stderr_tail = [
            line for line in err.decode("utf-8", "replace").splitlines() if line.strip()
        ][-5:]
        details = [f"stderr: {line[:300]}" for line in stderr_tail]
        step = running or next((s for s in _planned(job) if not verdict.step(s)), "integrity")
        verdict.steps.append(StepVerdict(step, Outcome.FAIL, cause, details))
        for rest in _planned(job):
            if verdict.step(rest) is None:
                verdict.steps.append(
                    StepVerdict(rest, Outcome.SKIP, f"not run: the worker stopped during {step}")
                )
    return verdict


def _planned(job: ModelJob) -> list[str]:
    return job.steps if "integrity" in job.steps else ["integrity", *job.steps]
