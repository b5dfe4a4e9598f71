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


@dataclass(frozen=True)
class Measurement:
    samples_ns: list[int]
    warmup_iters: int


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
) -> Measurement:
    """Warm up (at least ``warmup_iters`` and ``warmup_s``), then time at least ``iters``
    iterations and ``min_time_s`` seconds.

    ``slowdown`` > 0 injects a sleep of that fraction of each measured iteration inside the timed
    region: a known regression for validating the comparison (``bench_regression_gate.py``).
    """
    clock = time.perf_counter_ns
    warmup_ns = int(warmup_s * 1e9)
    start = clock()
    done = 0
    while done < warmup_iters or clock() - start < warmup_ns:
        run()
        sync()
        done += 1
    samples: list[int] = []
    append = samples.append
    min_ns = int(min_time_s * 1e9)
    begin = clock()
    while len(samples) < iters or clock() - begin < min_ns:
        t0 = clock()
        run()
        sync()
        t1 = clock()
        if slowdown:
            time.sleep((t1 - t0) * slowdown / 1e9)
            t1 = clock()
        append(t1 - t0)
    return Measurement(samples, done)
