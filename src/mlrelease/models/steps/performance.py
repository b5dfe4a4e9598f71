"""The performance step: median latency on the first runtime against the declared baseline."""

from __future__ import annotations

import statistics
import time

from mlrelease.models.runtimes import Runtime, clean_message
from mlrelease.models.steps.state import State, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict


def step_performance(state: State) -> StepVerdict:
    job = state.job
    if not job.performance:
        return verdict("performance", StepStatus.SKIP, "no performance baseline declared")
    if not state.datasets:
        return verdict("performance", StepStatus.SKIP, "no test data to time")
    runtime = next((r for r in state.runtimes() if isinstance(r, Runtime)), None)
    if runtime is None:
        return verdict("performance", StepStatus.SKIP, "no runtime available")
    limit = float(job.performance["latency_ms"])
    runs, warmup = int(job.performance.get("runs", 20)), int(job.performance.get("warmup", 3))
    feeds = state.datasets[0].feeds
    try:
        session = runtime.session(state.path, threads=job.threads)
        for _ in range(warmup):
            session.run(feeds)
    except Exception as exc:
        return verdict(
            "performance",
            StepStatus.FAIL,
            f"{runtime.label} cannot run the model: {clean_message(exc)}",
        )
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(feeds)
        times.append((time.perf_counter() - start) * 1000)
    median = statistics.median(times)
    measured = (
        f"{runtime.label}: median latency {median:.2f} ms over {runs} runs "
        f"(min {min(times):.2f}, max {max(times):.2f})"
    )
    if median > limit:
        return verdict(
            "performance",
            StepStatus.FAIL,
            f"{measured} exceeds the declared baseline of {limit:g} ms",
        )
    return verdict(
        "performance", StepStatus.PASS, f"{measured}, within the baseline of {limit:g} ms"
    )
