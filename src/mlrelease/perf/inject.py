"""A known slowdown injected into a worker's timed loop, to validate a comparison (worker side).

``MLRELEASE_PERF_INJECT_SLOWDOWN=FRAMEWORK=FRACTION[:KIND]`` slows every timed iteration of
``FRAMEWORK`` by ``FRACTION`` of its measured time:

* ``cpu`` (default): a busy wait on the sample's clock, inside the timed region;
* ``wait``: a sleep (no CPU time: only the wall-time verdict can see it);
* ``device``: real device time on a CUDA device, ``torch.cuda._sleep`` enqueued after each
  forward, sized from the forward's measured device time (``scripts/gpu_check.py``).

Used only by the benchmarks and checks that validate the comparison
(``scripts/bench_regression_gate.py``, ``scripts/gpu_check.py``).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from typing import Any

INJECT_ENV = "MLRELEASE_PERF_INJECT_SLOWDOWN"
KINDS = ("cpu", "wait", "device")
CALIBRATION_CYCLES = 10_000_000
"""GPU clock cycles of the ``torch.cuda._sleep`` that calibrates cycles per nanosecond."""


def injected_slowdown(framework: str) -> tuple[float, str]:
    """(fraction, kind) injected into ``framework``'s rows; (0.0, "") for none."""
    setting = os.environ.get(INJECT_ENV, "")
    name, _, value = setting.partition("=")
    fraction, _, kind = value.partition(":")
    if name != framework or not fraction:
        return 0.0, ""
    if (kind or "cpu") not in KINDS:
        raise ValueError(f"{INJECT_ENV}: kind {kind!r} is not one of {', '.join(KINDS)}")
    return float(fraction), kind or "cpu"


def _device_ns(runner: Any, run: Callable[[], object], iters: int) -> list[int]:
    timer = runner.device_timer
    samples = []
    for _ in range(iters):
        timer.start()
        run()
        timer.stop()
        runner.sync()
        samples.append(timer.elapsed_ns())
    return samples


def device_slowdown(runner: Any, fraction: float) -> tuple[Callable[[], object], str]:
    """``runner.run`` followed by ``torch.cuda._sleep`` of ``fraction`` of the forward's median
    device time (CUDA events over 20 runs), with the cycles per nanosecond measured here; and
    what was injected, for the row's record. Needs a CUDA runner (one with a device timer)."""
    if runner.device_timer is None:
        raise RuntimeError(
            f"a device slowdown ({INJECT_ENV}=...:device) needs a CUDA device timer; this "
            "framework has none (a CPU row, or ONNX Runtime's own CUDA stream): use cpu or wait"
        )
    import torch

    forward_ns = statistics.median(_device_ns(runner, runner.run, 20))

    def sleep_calibration() -> None:
        torch.cuda._sleep(CALIBRATION_CYCLES)

    per_ns = CALIBRATION_CYCLES / statistics.median(_device_ns(runner, sleep_calibration, 5))
    cycles = max(1, int(forward_ns * fraction * per_ns))

    def run() -> None:
        runner.run()
        torch.cuda._sleep(cycles)

    return run, f"{cycles} GPU cycles = {forward_ns * fraction / 1e6:.3f} ms after each forward"
