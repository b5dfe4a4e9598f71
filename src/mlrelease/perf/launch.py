"""The parent side of perf workers: start ``python -m mlrelease.perf.worker`` for one build.

This is the edge of the perf package: each worker runs in its own session through
:mod:`mlrelease.edges.proc` (killed as a group on timeout), its JSON result is read back once,
into the task's typed reply (:mod:`.replies`), and its exit is mapped to a status: a timeout is
``timeout``, a SIGKILL (the kernel's out-of-memory killer) is ``oom``, any other crash (or a
reply of the wrong shape) ``runtime_error`` with the end of its log (or the field).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from mlrelease import __version__, requirements
from mlrelease.edges import proc as isolation
from mlrelease.errors import UserError
from mlrelease.perf import catalog
from mlrelease.perf.config import Profile
from mlrelease.perf.replies import CheckReply, MalformedReply, PrepareReply, ProbeReply, RunReply
from mlrelease.perf.results import OOM, RUNTIME_ERROR, TIMEOUT, excerpt


@dataclass(frozen=True)
class Build:
    """A Python environment to measure (its torch, onnxruntime, ... and mlrelease)."""

    name: str
    python: str = sys.executable
    env: tuple[tuple[str, str], ...] = ()
    """Extra environment of this build's workers (e.g. an injected slowdown)."""
    model_from: str = ""
    """A build listed before this one, of the same interpreter, whose prepared (built and
    exported) models this build reuses instead of exporting again (the regression benchmark's
    copies of one environment)."""


Reply = TypeVar("Reply", ProbeReply, PrepareReply, RunReply, CheckReply)


@dataclass(frozen=True)
class WorkerReply(Generic[Reply]):
    """What one worker call gave: its typed result, or the status and error of its failure."""

    result: Reply | None
    status: str = ""
    error: str = ""
    seconds: float = 0.0
    """Wall time of the whole subprocess (start-up, imports, the task)."""
    partial: Reply | None = None
    """What a task that died had written of its result (a ``run``'s finished batches)."""


class Worker:
    """Starts worker subprocesses for one build, with logs and task files under ``work``."""

    def __init__(self, build: Build, work: Path, root: Path, timeout_s: int, threads: int) -> None:
        self.build = build
        self.work = work
        self.root = root
        self.timeout_s = timeout_s
        self.env = dict(os.environ)
        # The project root first, so a profile's `module:attribute` models import in workers.
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p
        )
        self.env.update(
            {
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_VERBOSITY": "error",
                "TOKENIZERS_PARALLELISM": "false",
                "PYTHONHASHSEED": "0",
            }
        )
        self.env.update(dict(build.env))
        if threads:
            for name in (
                "OMP_NUM_THREADS",
                "MKL_NUM_THREADS",
                "OPENBLAS_NUM_THREADS",
                "TORCHINDUCTOR_COMPILE_THREADS",
            ):
                self.env[name] = str(threads)
        (work / "logs").mkdir(parents=True, exist_ok=True)

    def call(
        self,
        label: str,
        task: dict[str, Any],
        parse: Callable[[object], Reply],
        *,
        rows: int = 1,
    ) -> WorkerReply[Reply]:
        """Run one task (of ``rows`` combinations: the time limit is per combination) and read
        its reply with ``parse`` (a reply class's ``parse``); never raises for what the task
        does, nor for a reply of the wrong shape (a ``runtime_error`` naming the field)."""
        safe = label.replace("/", "_")
        task_path = self.work / "logs" / f"{safe}.task.json"
        result_path = self.work / "logs" / f"{safe}.result.json"
        log_path = self.work / "logs" / f"{safe}.log"
        result_path.unlink(missing_ok=True)
        task_path.write_text(json.dumps(task), encoding="utf-8")
        command = isolation.python_module(
            "mlrelease.perf.worker", str(task_path), str(result_path), interpreter=self.build.python
        )
        started = time.perf_counter()
        outcome = self._call(command, (log_path, result_path), self.timeout_s * rows, parse)
        return dataclasses.replace(outcome, seconds=time.perf_counter() - started)

    def _call(
        self,
        command: list[str],
        paths: tuple[Path, Path],
        timeout_s: int,
        parse: Callable[[object], Reply],
    ) -> WorkerReply[Reply]:
        log_path, result_path = paths
        with log_path.open("w", encoding="utf-8") as log:
            try:
                proc = isolation.start(
                    command,
                    stdout=log,
                    stderr=isolation.STDOUT,
                    stdin=isolation.DEVNULL,
                    cwd=self.root,
                    env=self.env,
                )
            except OSError as exc:
                return WorkerReply(None, RUNTIME_ERROR, f"cannot start {self.build.python}: {exc}")
            try:
                code = proc.wait(timeout=timeout_s)
            except isolation.TimeoutExpired:
                _kill_group(proc)
                return WorkerReply(
                    None,
                    TIMEOUT,
                    f"ran past the {timeout_s} s limit (profile timeout-s per combination); "
                    f"log: {log_path}",
                    partial=_partial(result_path, parse),
                )
        if code == 0 and result_path.is_file():
            return self._read(result_path, parse)
        tail = excerpt(log_path.read_text(encoding="utf-8", errors="replace"))
        partial = _partial(result_path, parse)
        if isolation.classify(code, killed=False)[0] is isolation.ChildStatus.OUT_OF_MEMORY:
            return WorkerReply(
                None,
                OOM,
                f"killed by SIGKILL (most likely the kernel's out-of-memory killer)\n{tail}",
                partial=partial,
            )
        return WorkerReply(
            None, RUNTIME_ERROR, f"worker exited with {code}\n{tail}", partial=partial
        )

    def _read(self, result_path: Path, parse: Callable[[object], Reply]) -> WorkerReply[Reply]:
        """The reply of a worker that finished, or a ``runtime_error`` naming what is wrong in it
        (a worker of another mlrelease than this one, most likely)."""
        try:
            return WorkerReply(parse(json.loads(result_path.read_text(encoding="utf-8"))))
        except (ValueError, MalformedReply) as exc:  # JSONDecodeError is a ValueError
            return WorkerReply(
                None,
                RUNTIME_ERROR,
                f"the worker's reply {result_path} cannot be read: {exc}. Is the mlrelease "
                f"installed for {self.build.python} the same version as this one "
                f"({__version__})?",
            )


def _partial(result_path: Path, parse: Callable[[object], Reply]) -> Reply | None:
    """The result a dead worker had written (complete JSON or nothing: it rewrites the file)."""
    try:
        return parse(json.loads(result_path.read_text(encoding="utf-8")))
    except (OSError, ValueError):  # MalformedReply is a ValueError
        return None


def resolve_in(root: Path, ref: str, profile_name: str) -> catalog.ModelSpec:
    """Resolve a profile's model entry with the project root importable, as in the workers."""
    added = str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))
    try:
        return catalog.resolve_model(ref, key=f"tool.mlrelease.perf.profiles.{profile_name}.models")
    finally:
        if added:
            sys.path.remove(str(root))


def _kill_group(proc: isolation.Popen[bytes]) -> None:
    # torch.compile and TensorRT start helper processes: end the whole session we started.
    isolation.kill_group(proc)


def probe_build(worker: Worker, profile_name: str, profile: Profile) -> ProbeReply:
    """What the build can run here (and its device key), or a clear error."""
    outcome = worker.call(
        "probe",
        {
            "kind": "probe",
            "device": profile.device,
            "frameworks": profile.frameworks,
            "threads": profile.threads,
        },
        ProbeReply.parse,
    )
    if outcome.result is None:
        missing = requirements.missing_module(outcome.error or "")
        if missing and Path(worker.build.python).absolute() == Path(sys.executable).absolute():
            raise requirements.MissingDependency(missing, extra="perf")
        raise UserError(
            f"the perf worker could not start in {worker.build.python} ({outcome.status}): "
            f"{outcome.error}\nInstall the perf extra into that interpreter's environment "
            f'({worker.build.python} -m pip install "mlrelease[perf]"; torch\'s CPU build: add '
            f"--extra-index-url {requirements.TORCH_CPU_INDEX})."
        )
    if profile.device == "cuda" and outcome.result.device_key == "cuda-none":
        from mlrelease.errors import PreconditionError

        reason = outcome.result.unavailable.get("pytorch", "no CUDA device")
        raise PreconditionError(
            f"profile `{profile_name}` runs on a CUDA device, and {worker.build.python} "
            f"sees none ({reason}). Run it on a GPU machine (`nox -s perf_gpu`)."
        )
    return outcome.result


def settings_of(profile: Profile) -> dict[str, Any]:
    return dataclasses.asdict(profile)
