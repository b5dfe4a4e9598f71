"""The timing loop (pure Python, no framework imports): warm-up, then timed iterations.

Each timed iteration is ``run()`` then ``sync()`` (a device synchronisation on GPUs, a no-op on
the CPU) between two ``time.perf_counter_ns()`` readings, so asynchronous work is inside the
sample. ``scripts/bench_harness_overhead.py`` checks that this loop costs under 2% at the median
against a bare ``perf_counter_ns`` loop over the same call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

CLOCKS: dict[str, Callable[[], int]] = {
    "wall": time.perf_counter_ns,
    # CPU time of the whole process: with one intra-op thread, what one inference costs,
    # whatever else the machine's other tenants are doing.
    "cpu": time.process_time_ns,
}


@dataclass(frozen=True)
class Measurement:
    samples_ns: list[int]
    warmup_iters: int
    wall_ns: list[int]
    """Wall-clock time of the same iterations when the samples are CPU time (else empty)."""
    delay_ns: list[int] = field(default_factory=list)
    """Time each iteration spent waiting for a CPU (run-queue delay, from the kernel's
    schedstat); empty where the kernel does not tell."""
    device_ns: list[int] = field(default_factory=list)
    """Device time of the same iterations (CUDA events around ``run``), where the runner has a
    device timer; empty elsewhere."""


class DeviceTimer(Protocol):
    """A device's own clock around one ``run``: ``start`` before it, ``stop`` after it (both
    enqueued on the device), ``elapsed_ns`` once ``sync`` has returned."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def elapsed_ns(self) -> int: ...


SCHEDSTAT = "/proc/thread-self/schedstat"
"""Linux: on-CPU time, run-queue wait time and timeslices of the calling thread (ns)."""


def run_delay_reader() -> Callable[[], int] | None:
    """A function reading this thread's cumulative run-queue delay (ns), or None where the
    kernel has no schedstat. The models run on the calling thread (one intra-op thread), so its
    delay is the time another tenant held the CPU."""
    try:
        fd = os.open(SCHEDSTAT, os.O_RDONLY)
    except OSError:
        return None

    def read() -> int:
        return int(os.pread(fd, 96, 0).split()[1])

    try:
        read()
    except (OSError, IndexError, ValueError):
        os.close(fd)
        return None
    return read


def _spin(clock: Callable[[], int], since: int, duration_ns: float) -> None:
    while clock() - since < duration_ns:
        pass


def _nothing() -> None:
    return None


def _zero() -> int:
    return 0


def _warm_up(
    run: Callable[[], object], sync: Callable[[], object], iters: int, seconds: float
) -> int:
    """The warm-up before anything is timed: at least ``iters`` runs and ``seconds`` of wall
    time; returns how many runs it took."""
    wall = time.perf_counter_ns
    warmup_ns = int(seconds * 1e9)
    start = wall()
    done = 0
    while done < iters or wall() - start < warmup_ns:
        run()
        sync()
        done += 1
    return done


def measure(
    run: Callable[[], object],
    sync: Callable[[], object] = _nothing,
    *,
    warmup_iters: int = 10,
    warmup_s: float = 0.2,
    iters: int = 30,
    min_time_s: float = 0.0,
    slowdown: float = 0.0,
    slowdown_kind: str = "cpu",
    clock: str = "wall",
    device_timer: DeviceTimer | None = None,
) -> Measurement:
    """Warm up (at least ``warmup_iters`` and ``warmup_s``), then time at least ``iters``
    iterations and ``min_time_s`` seconds.

    ``clock`` is ``wall`` (``time.perf_counter_ns``) or ``cpu`` (``time.process_time_ns``; the
    wall time of each iteration is then recorded too). The warm-up and the minimum time are wall
    time either way. Each iteration's run-queue delay is recorded where the kernel tells.

    ``slowdown`` > 0 injects, inside the timed region, extra time of that fraction of each
    measured iteration: a known regression for validating the comparison
    (``bench_regression_gate.py``). ``slowdown_kind`` ``cpu`` burns it (a busy wait on the
    sample's clock), ``wait`` sleeps it (the sleep holds no CPU, so the CPU sample ends before
    it; waking from it can still slow the next iteration: cold caches, a down-clocked core).
    """
    done = _warm_up(run, sync, warmup_iters, warmup_s)
    wall = time.perf_counter_ns
    timer = CLOCKS[clock]
    delay = run_delay_reader()
    delayed = delay or _zero
    samples: list[int] = []
    append = samples.append
    walls: list[int] = []
    delays: list[int] = []
    device: list[int] = []
    min_ns = int(min_time_s * 1e9)
    begin = wall()
    cpu_clock = clock != "wall"
    while len(samples) < iters or wall() - begin < min_ns:
        d0 = delayed()
        w0 = wall()
        t0 = timer() if cpu_clock else w0
        if device_timer is not None:
            device_timer.start()
            run()
            device_timer.stop()
        else:
            run()
        sync()
        t1 = timer() if cpu_clock else wall()
        if slowdown and slowdown_kind == "wait":
            # A wait holds no CPU of the model: on the CPU clock the sample ends before it (the
            # sleep's own syscall and wake-up are the injector's cost, not the model's).
            time.sleep((t1 - t0) * slowdown / 1e9)
            if not cpu_clock:
                t1 = wall()
        elif slowdown:
            _spin(timer, t1, (t1 - t0) * slowdown)
            t1 = timer() if cpu_clock else wall()
        w1 = wall() if cpu_clock else t1
        d1 = delayed()
        append(t1 - t0)
        if cpu_clock:
            walls.append(w1 - w0)
        if delay:
            delays.append(d1 - d0)
        if device_timer is not None:
            device.append(device_timer.elapsed_ns())
    return Measurement(samples, done, walls, delays, device)
