"""Perf results built by hand, shared by the unit (history) and integration (plots) tests."""

from __future__ import annotations

from mlrelease.perf.results import Results, Row


def history_results() -> Results:
    """One device's results: a timed row (4 rounds, CPU and wall clocks) and a failed row."""
    row = Row("m", "s", 1, "f", "ok", samples_ns=[[10_000_000, 11_000_000]] * 4)
    row.wall_ns = [[12_000_000, 13_000_000]] * 4
    failing = Row("m", "s", 1, "g", "export_failed", error="boom")
    return Results(
        profile="cpu",
        device_key="cpu-amd-epyc-f26m2-2c",
        device_name="AMD EPYC",
        settings={"clock": "cpu"},
        environment={"libraries": {"torch": "2.13.0"}},
        rows=[row, failing],
        created="2026-01-01T00:00:00+00:00",
    )
