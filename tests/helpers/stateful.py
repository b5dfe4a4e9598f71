"""How every stateful machine of the suite runs (the release, bump-tagged and train machines):
``examples`` random interleavings of at most ``steps`` rules each, no deadline (a rule runs real
git, builds and an index), no example database (each run draws afresh), no health check (a slow
rule is the point, not a fault)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def machine_settings(examples: int, steps: int) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
