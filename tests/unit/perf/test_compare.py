"""Baseline rules: status changes and timing verdicts, on constructed results."""

from __future__ import annotations

import numpy as np

from mlrelease.perf.compare import choose_baseline, compare
from mlrelease.perf.results import Results, Row


def samples(median_ms: float, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(median_ms * 1e6 * x) for x in rng.lognormal(0, 0.01, 30)] for _ in range(5)]


def results(rows: list[Row], device: str = "cpu-test-2c") -> Results:
    return Results(
        profile="cpu",
        device_key=device,
        device_name="Test CPU",
        settings={"unstable_cov": 0.10, "clock": "wall"},
        environment={},
        rows=rows,
    )


def row(
    framework: str, status: str = "ok", median: float = 10.0, seed: int = 0, model: str = "m"
) -> Row:
    return Row(
        model,
        "s",
        1,
        framework,
        status,
        error="boom" if status != "ok" else "",
        samples_ns=samples(median, seed) if status == "ok" else [],
    )


def kinds(current: Results, baseline: Results | None, **kw: bool) -> dict[str, str]:
    comparison = compare(current, baseline, threshold=0.10, alpha=0.01, **kw)
    return {v.key.split("/")[0] + "/" + v.key.split("/")[-1]: v.kind for v in comparison.verdicts}


def test_status_rules() -> None:
    baseline = results(
        [
            row("ok_ok", seed=5),
            row("ok_fail", seed=2),
            row("fail_fail", "export_failed"),
            row("fail_ok", "build_failed"),
            row("ok_gone", seed=3),
            row("ok_unavailable", seed=4),
        ]
    )
    current = results(
        [
            row("ok_ok", seed=5),
            row("ok_fail", "parity_failed"),
            row("fail_fail", "timeout"),
            row("fail_ok", seed=6),
            row("ok_unavailable", "unavailable"),
            row("new_fail", "oom"),
            row("new_ok", seed=7),
        ]
    )
    found = kinds(current, baseline)
    assert found == {
        "m/ok_ok": "same",
        "m/ok_fail": "new_failure",
        "m/fail_fail": "known_failure",
        "m/fail_ok": "fixed",
        "m/ok_unavailable": "not_measured",  # an environment gap, never a verdict
        "m/new_fail": "new_failure",
        "m/new_ok": "new_row",
        "m/ok_gone": "dropped_row",
    }
    comparison = compare(current, baseline, threshold=0.10, alpha=0.01)
    assert not comparison.ok
    assert sorted(v.key for v in comparison.failed) == ["m/s/b1/new_fail", "m/s/b1/ok_fail"]


def test_known_failures_pass() -> None:
    baseline = results([row("a", "export_failed"), row("b", seed=1)])
    current = results([row("a", "export_failed"), row("b", seed=2)])
    assert compare(current, baseline, threshold=0.10, alpha=0.01).ok


def test_no_baseline_fails_any_failing_row() -> None:
    current = results([row("a", "export_failed"), row("b"), row("c", "not_applicable")])
    comparison = compare(current, None, threshold=0.10, alpha=0.01)
    assert [v.key for v in comparison.failed] == ["m/s/b1/a"]


def test_timing_verdicts_unstable_rows_are_timed_not_skipped() -> None:
    baseline = results([row("slow", seed=1), row("noisy", seed=2)])
    noisy = row("noisy", seed=3)
    rng = np.random.default_rng(9)  # rounds whose medians swing by 30%: over the CoV limit
    noisy.samples_ns = [
        [int(1e7 * rng.lognormal(0, 0.3) * x) for x in rng.lognormal(0, 0.2, 30)] for _ in range(5)
    ]
    current = results([row("slow", median=12.0, seed=4), noisy])
    found = kinds(current, baseline)
    assert found == {"m/slow": "regressed", "m/noisy": "inconclusive"}
    assert kinds(current, baseline, timing=False)["m/slow"] == "not_measured"


def test_summary_says_what_was_timed() -> None:
    baseline = results([row("a", seed=1), row("b", seed=2)])
    current = results([row("a", seed=3), row("b", seed=4)])
    untimed = compare(current, baseline, threshold=0.10, alpha=0.05, timing=False, note="x")
    assert untimed.ok
    assert "no regression" not in untimed.summary()
    assert "timing: not measured (0 of 2 rows timed)" in untimed.summary()
    timed = compare(current, baseline, threshold=0.10, alpha=0.05)
    assert "timing: same (2 of 2 rows timed)" in timed.summary()
    assert "Holm" in timed.to_markdown()


def test_wall_clock_catches_a_slowdown_that_waits() -> None:
    """A slowdown spent sleeping: the CPU time is unchanged, the wall time is 25% longer."""
    base, cand = row("f", seed=1), row("f", seed=1)
    base.wall_ns = samples(10.0, 2)
    cand.wall_ns = samples(12.5, 3)
    current, baseline = results([cand]), results([base])
    current.settings["clock"] = baseline.settings["clock"] = "cpu"
    comparison = compare(current, baseline, threshold=0.07, alpha=0.05)
    (verdict,) = comparison.verdicts
    assert verdict.kind == "regressed"
    assert {t.clock: t.verdict for t in verdict.tests} == {"cpu": "same", "wall": "regressed"}


def test_choose_baseline_by_device_class() -> None:
    mine = results([], device="cpu-amd-epyc-f26m2-2c")
    sibling = results([], device="cpu-amd-epyc-7b13-f26m1-2c")
    other = results([], device="cpu-intel-xeon-f6m106-2c")
    assert choose_baseline("cpu-amd-epyc-f26m2-2c", "cpu", [other, sibling, mine])[:2] == (
        mine,
        True,
    )
    chosen, timing, note = choose_baseline("cpu-amd-epyc-9b14-f26m17-2c", "cpu", [other, sibling])
    assert chosen is sibling and timing and "cpu-amd-f26-2c" in note
    chosen, timing, note = choose_baseline("cpu-intel-xeon-f6m85-4c", "cpu", [other, mine])
    assert not timing and "timings not measured" in note
    assert choose_baseline("cpu-a-2c", "gpu", [mine])[0] is None


def test_one_round_a_side_is_reported_not_gated() -> None:
    base = row("a", seed=1)
    slow = row("a", median=20.0, seed=2)
    base.samples_ns, slow.samples_ns = base.samples_ns[:1], slow.samples_ns[:1]
    comparison = compare(results([slow]), results([base]), threshold=0.10, alpha=0.01)
    (verdict,) = comparison.verdicts
    assert comparison.ok and verdict.kind == "not_measured"
    assert verdict.message.startswith("median x2.0")
    assert "needs 4" in verdict.message


def _timed_failure(median: float, seed: int) -> Row:
    """A row that ran and failed its parity check: timed all the same."""
    failing = row("f", "parity_failed")
    failing.samples_ns = samples(median, seed)
    return failing


def test_a_parity_failure_that_ran_is_compared_on_timing() -> None:
    baseline = results([_timed_failure(10.0, 1)])
    comparison = compare(results([_timed_failure(13.0, 2)]), baseline, threshold=0.10, alpha=0.01)
    (verdict,) = comparison.verdicts
    # Known failure on status, and a slowdown on timing: caught, not hidden behind the status.
    assert verdict.kind == "regressed" and verdict.fails and verdict.timed
    assert verdict.message.startswith("known failure: parity_failed")
    assert not comparison.ok and comparison.word == "regressed"
    same = compare(results([_timed_failure(10.0, 3)]), baseline, threshold=0.10, alpha=0.01)
    assert same.ok and same.word == "same" and same.verdicts[0].timed


def test_a_row_timed_on_neither_side_does_not_pass_silently() -> None:
    baseline = results([row("ok", seed=1), row("f", "export_failed")])
    comparison = compare(
        results([row("ok", seed=2), row("f", "export_failed")]),
        baseline,
        threshold=0.10,
        alpha=0.01,
    )
    blind = {v.key: v for v in comparison.verdicts}["m/s/b1/f"]
    assert blind.kind == "known_failure" and blind.timing == "inconclusive"
    assert "timed on neither side" in blind.message
    # The timed row is the same, yet the comparison's word is not: one row was never timed.
    assert comparison.word == "inconclusive"
    summary = comparison.summary()
    assert "timing: inconclusive" in summary and "not passed on timing: `m/s/b1/f`" in summary
    # A status-only comparison (another device class) times nothing by design: no such claim.
    statuses = compare(
        results([row("f", "export_failed")]),
        results([row("f", "export_failed")]),
        threshold=0.10,
        alpha=0.01,
        timing=False,
    )
    assert not statuses.blind and statuses.word == "not_measured"
