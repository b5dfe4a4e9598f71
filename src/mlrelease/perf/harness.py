"""The timing loop (pure Python, no framework imports): warm-up, then timed iterations.

Each timed iteration is ``run()`` then ``sync()`` (a device synchronisation on GPUs, a no-op on
the CPU) between two ``time.perf_counter_ns()`` readings, so asynchronous work is inside the
sample. ``scripts/bench_harness_overhead.py`` checks that this loop costs under 2% at the median
against a bare ``perf_counter_ns`` loop over the same call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

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


def _spin(clock: Callable[[], int], since: int, duration_ns: float) -> None:
    while clock() - since < duration_ns:
        pass


def _nothing() -> None:
    return None


def measure(
    run: Callable[[], object],
    sync: Callable[[], object] = _nothing,
    *,
    warmup_iters: int = 10,
    warmup_s: float = 0.2,
    iters: int = 30,
    min_time_s: float = 0.0,
    slowdown: float = 0.0,
    clock: str = "wall",
) -> Measurement:
    """Warm up (at least ``warmup_iters`` and ``warmup_s``), then time at least ``iters``
    iterations and ``min_time_s`` seconds.

    ``clock`` is ``wall`` (``time.perf_counter_ns``) or ``cpu`` (``time.process_time_ns``; the
    wall time of each iteration is then recorded too). The warm-up and the minimum time are wall
    time either way.

    ``slowdown`` > 0 injects a delay of that fraction of each measured iteration inside the timed
    region: a known regression for validating the comparison (``bench_regression_gate.py``). It
    is a sleep on the wall clock and a busy wait on the CPU clock (a sleep costs no CPU time).
    """
    wall = time.perf_counter_ns
    timer = CLOCKS[clock]
    warmup_ns = int(warmup_s * 1e9)
    start = wall()
    done = 0
    while done < warmup_iters or wall() - start < warmup_ns:
        run()
        sync()
        done += 1
    samples: list[int] = []
    append = samples.append
    walls: list[int] = []
    min_ns = int(min_time_s * 1e9)
    begin = wall()
    if clock == "wall":
        while len(samples) < iters or wall() - begin < min_ns:
            t0 = wall()
            run()
            sync()
            t1 = wall()
            if slowdown:
                time.sleep((t1 - t0) * slowdown / 1e9)
                t1 = wall()
            append(t1 - t0)
        return Measurement(samples, done, walls)
    while len(samples) < iters or wall() - begin < min_ns:
        w0 = wall()
        t0 = timer()
        run()
        sync()
        t1 = timer()
        if slowdown:
            _spin(timer, t1, (t1 - t0) * slowdown)
            t1 = timer()
        w1 = wall()
        append(t1 - t0)
        walls.append(w1 - w0)
    return Measurement(samples, done, walls)
