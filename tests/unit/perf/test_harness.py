"""The timing loop's device clock: where its readings are taken (the CUDA events of a GPU row
cannot exist here; a recorder of the calls stands in for them)."""

from __future__ import annotations

from mlrelease.perf.harness import measure


class Recorder:
    """Records when the loop starts, stops and reads the device clock."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.reads = 0

    def start(self) -> None:
        self.calls.append("start")

    def stop(self) -> None:
        self.calls.append("stop")

    def elapsed_ns(self) -> int:
        self.calls.append("read")
        self.reads += 1
        return 1000 * self.reads


def test_device_time_brackets_the_run_and_is_read_after_the_sync() -> None:
    calls: list[str] = []
    timer = Recorder(calls)
    result = measure(
        lambda: calls.append("run"),
        lambda: calls.append("sync"),
        warmup_iters=2,
        warmup_s=0.0,
        iters=3,
        device_timer=timer,
    )
    # The warm-up is not timed on the device; each timed iteration is: start, run, stop (both
    # enqueued around the work), then the sync, then the reading.
    assert calls == ["run", "sync"] * 2 + ["start", "run", "stop", "sync", "read"] * 3
    assert result.device_ns == [1000, 2000, 3000] and len(result.samples_ns) == 3
    assert measure(lambda: None, warmup_iters=0, warmup_s=0.0, iters=2).device_ns == []
