"""Every process mlrelease starts: outside tools through :func:`call`, workers in isolation.

Every Python subprocess (a tool run as ``python -m TOOL``, a worker) is started with the command
line :func:`python_module` / :func:`python` build (:mod:`mlrelease.edges.python`): nothing in
the current directory can shadow a module it imports.

Outside tools (git goes through :mod:`mlrelease.edges.git`; bump-my-version, git-changelog,
Sphinx, cibuildwheel, build, twine, auditwheel, pip, localedef, nox, invoke, nvidia-smi, a
project's test command) run through :func:`call`: plain ``subprocess.run`` semantics, one place.

Every worker the package starts on untrusted or fragile input (a submitted model, a conformance
case, a benchmark) goes through :func:`start` and ends through :func:`kill_group`, and is judged
by :func:`classify`:

- it runs in a new session (its own process group), so killing the group also ends whatever it
  started (onnxruntime, torch.compile and TensorRT start helper processes);
- POSIX resource limits (address space, CPU time, no core file) are set in the child before it
  executes anything, so a hostile input never sees an unlimited process;
- it may get a private scratch folder (``TMPDIR`` and friends point there) that :func:`run`
  removes afterwards, even when the child was killed and never cleaned up after itself;
- how it ended is one of :class:`ChildStatus`: ``ok``, ``timeout``, ``out-of-memory`` or ``crash``.
"""

from __future__ import annotations

import contextlib
import enum
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mlrelease.edges.python import display as display
from mlrelease.edges.python import python as python
from mlrelease.edges.python import python_module as python_module

POSIX = sys.platform != "win32"

PIPE = subprocess.PIPE
STDOUT = subprocess.STDOUT
DEVNULL = subprocess.DEVNULL
TimeoutExpired = subprocess.TimeoutExpired
"""Raised by :func:`call` (and ``Popen.wait``/``communicate``) past their timeout."""
Popen = subprocess.Popen
"""The type of a started child (:func:`start`)."""
CompletedProcess = subprocess.CompletedProcess
"""What :func:`call` returns: exit status and output of a finished child."""


def call(
    command: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    capture: bool = True,
    input: str | None = None,
    timeout: float | None = None,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    errors: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an outside tool to its end and return its exit status and text output.

    ``errors``: how bytes that are not UTF-8 are decoded (and ``input`` encoded); strict unless
    given (``surrogateescape`` carries them through unchanged).

    ``capture``: stdout and stderr are collected (else they go where ``stdout``/``stderr`` say,
    by default this process's own). Raises :data:`TimeoutExpired` past ``timeout`` (the child is
    killed) and OSError (FileNotFoundError, ...) when the program cannot be started; a non-zero
    exit is the caller's to judge.
    """
    return subprocess.run(
        list(command),
        cwd=cwd,
        env=None if env is None else dict(env),
        input=input,
        stdout=subprocess.PIPE if capture else stdout,
        stderr=subprocess.PIPE if capture else stderr,
        text=True,
        errors=errors,
        timeout=timeout,
        check=False,
    )


def call_bytes(
    command: Sequence[str],
    *,
    cwd: Path | str | None = None,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run an outside tool whose output is read by byte offsets (``git cat-file --batch``)."""
    return subprocess.run(
        list(command),
        cwd=cwd,
        input=input,
        env=None if env is None else dict(env),
        capture_output=True,
        check=False,
    )


class ChildStatus(str, enum.Enum):
    """How a child process ended."""

    OK = "ok"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out-of-memory"
    CRASH = "crash"


@dataclass(frozen=True)
class Limits:
    """What a child may use. ``None``: no limit of that kind."""

    wall_s: float | None = None
    """Wall-clock seconds; past it the whole process group is killed (``timeout``)."""
    memory_mb: int | None = None
    """Address-space limit (RLIMIT_AS, POSIX; macOS refuses it, then only the wall clock holds)."""
    cpu_s: int | None = None
    """CPU seconds (RLIMIT_CPU): the kernel stops a spinning child with SIGXCPU."""
    core_dumps: bool = False
    """A crashing child leaves no core file behind unless this is set."""


@dataclass
class Finished:
    """What a child did: how it ended, its exit status, its output (when captured)."""

    status: ChildStatus
    returncode: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    duration_s: float = 0.0
    killed: bool = False
    """True when this side killed it at the wall-clock limit."""
    reason: str = ""
    """One sentence: why it is not ``ok`` (empty when it is)."""
    enforced: dict[str, bool] = field(default_factory=dict)


def rlimits(limits: Limits) -> list[tuple[int, int]]:
    """``(resource, soft value)`` pairs for ``limits`` on this platform (empty off POSIX)."""
    if not POSIX:
        return []
    import resource

    pairs = []
    if limits.memory_mb is not None:
        pairs.append((resource.RLIMIT_AS, limits.memory_mb * 2**20))
    if limits.cpu_s is not None:
        pairs.append((resource.RLIMIT_CPU, limits.cpu_s))
    if not limits.core_dumps:
        pairs.append((resource.RLIMIT_CORE, 0))
    return pairs


def apply_limits(limits: Limits) -> dict[str, bool]:
    """Set ``limits`` on the calling process; say which ones the platform enforces.

    Called in the child between fork and exec (see :func:`start`), or by a worker on itself.
    """
    enforced = {"memory": False, "cpu": False}
    if not POSIX:
        return enforced
    import resource

    names = {resource.RLIMIT_AS: "memory", resource.RLIMIT_CPU: "cpu"}
    for which, value in rlimits(limits):
        try:
            _, hard = resource.getrlimit(which)
            capped = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (capped, hard))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: say so, never pretend
            continue
        if which in names:
            enforced[names[which]] = True
    return enforced


def enforceable(limits: Limits) -> dict[str, bool]:
    """Which of ``limits`` this platform can enforce (asked without changing anything)."""
    if not POSIX:
        return {"memory": False, "cpu": False}
    return {"memory": sys.platform == "linux", "cpu": True}


def _preexec(limits: Limits) -> Callable[[], None]:
    """What the child runs between fork and exec: only ``setrlimit`` calls with values computed
    here, so it takes no lock another thread of this process might hold (no import, no I/O)."""
    import resource

    settings = []
    for which, value in rlimits(limits):
        _, hard = resource.getrlimit(which)
        soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
        settings.append((which, (soft, hard)))
    setrlimit = resource.setrlimit

    def limit_child() -> None:
        for which, pair in settings:
            # macOS refuses RLIMIT_AS; the wall clock still holds there.
            with contextlib.suppress(ValueError, OSError):
                setrlimit(which, pair)

    return limit_child


def scratch_environment(env: Mapping[str, str], scratch: Path) -> dict[str, str]:
    """``env`` with every temp-folder variable pointing into ``scratch``."""
    result = dict(env)
    for name in ("TMPDIR", "TEMP", "TMP"):
        result[name] = str(scratch)
    return result


def start(
    command: Sequence[str],
    *,
    limits: Limits = Limits(),
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    stdin: int | IO[Any] | None = subprocess.DEVNULL,
    stdout: int | IO[Any] | None = subprocess.PIPE,
    stderr: int | IO[Any] | None = subprocess.PIPE,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[bytes]:
    """Start ``command`` in a new session with ``limits`` set before it runs anything.

    ``pass_fds``: descriptors the child inherits (an open folder it must read through).
    Raises OSError when the program cannot be started at all.
    """
    kwargs: dict[str, Any] = {}
    if POSIX:
        kwargs["start_new_session"] = True
        limiting = rlimits(limits)
        if limiting:
            kwargs["preexec_fn"] = _preexec(limits)
    else:
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    return subprocess.Popen(
        list(command),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        env=None if env is None else dict(env),
        cwd=cwd,
        pass_fds=tuple(pass_fds),
        **kwargs,
    )


def kill_group(proc: subprocess.Popen[bytes], *, wait: bool = True) -> None:
    """Kill ``proc`` and everything in its process group (it leads its own session)."""
    if POSIX:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    if wait:
        proc.wait()


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(code: int | None) -> str:
    """``signal SIGABRT`` / ``exit code 3``: how a process ended."""
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def classify(
    returncode: int | None, *, killed: bool, limits: Limits = Limits(), out_of_memory: bool = False
) -> tuple[ChildStatus, str]:
    """The :class:`ChildStatus` of a finished child, and one sentence saying why it is not ``ok``.

    ``killed``: this side killed it at the wall-clock limit. ``out_of_memory``: the child said
    so itself (e.g. a MemoryError it caught). A SIGKILL nobody here sent is the kernel's
    out-of-memory killer (or the address-space limit); SIGXCPU is the CPU-time limit.
    """
    if killed:
        return ChildStatus.TIMEOUT, f"time limit of {_seconds(limits.wall_s)} exceeded; killed"
    if out_of_memory:
        return ChildStatus.OUT_OF_MEMORY, _memory_sentence(limits)
    if returncode == 0:
        return ChildStatus.OK, ""
    if returncode is None:
        return ChildStatus.CRASH, "did not finish"
    if returncode < 0:
        name = signal_name(-returncode)
        if name == "SIGXCPU":
            return ChildStatus.TIMEOUT, f"CPU time limit ({limits.cpu_s} s) exceeded (SIGXCPU)"
        if name == "SIGKILL":
            return ChildStatus.OUT_OF_MEMORY, f"killed by SIGKILL: {_memory_sentence(limits)}"
        return ChildStatus.CRASH, f"crashed with {name} (a native-code fault)"
    return ChildStatus.CRASH, f"exited with status {returncode}"


def _seconds(value: float | None) -> str:
    return "(none)" if value is None else f"{value:g} s"


def _memory_sentence(limits: Limits) -> str:
    cap = f"the memory limit of {limits.memory_mb} MB" if limits.memory_mb else "no memory limit"
    return f"ran out of memory (the system's out-of-memory killer, or {cap})"


def run(
    command: Sequence[str],
    *,
    limits: Limits = Limits(),
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    scratch: bool = False,
    stdout: int | IO[Any] | None = subprocess.PIPE,
    stderr: int | IO[Any] | None = subprocess.PIPE,
    pass_fds: Sequence[int] = (),
) -> Finished:
    """Run ``command`` isolated to the end; never raises for anything the child does.

    ``scratch``: the child gets a private temp folder (``TMPDIR``), removed afterwards whatever
    happened, so a killed child leaves nothing behind; without ``cwd`` it is also the child's
    working directory (empty and private: nothing of the caller's folder is near it). A
    program that cannot start at all is a ``crash`` whose reason says why.
    """
    base_env = dict(os.environ if env is None else env)
    folder = Path(tempfile.mkdtemp(prefix="mlrelease-scratch-")) if scratch else None
    if folder is not None:
        base_env = scratch_environment(base_env, folder)
        cwd = folder if cwd is None else cwd
    started = time.perf_counter()
    try:
        try:
            proc = start(
                command,
                limits=limits,
                env=base_env,
                cwd=cwd,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            return Finished(ChildStatus.CRASH, None, reason=f"cannot start {command[0]}: {exc}")
        killed = False
        try:
            out, err = proc.communicate(input, timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            killed = True
            kill_group(proc, wait=False)
            out, err = proc.communicate()
        kill_group(proc)  # grandchildren the child started die with its group
        status, reason = classify(proc.returncode, killed=killed, limits=limits)
        return Finished(
            status,
            proc.returncode,
            out or b"",
            err or b"",
            time.perf_counter() - started,
            killed,
            reason,
            enforceable(limits),
        )
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
