"""CI shards: balanced by time budget, deterministic, as a GitHub Actions matrix."""

from __future__ import annotations

import json

from mlrelease.downstream import matrix
from mlrelease.downstream.config import Consumer


def consumers(*budgets: int) -> list[Consumer]:
    return [
        Consumer(name=f"c{i}", requirement=f"c{i}", time_budget_s=b) for i, b in enumerate(budgets)
    ]


def test_balanced_and_deterministic() -> None:
    found = matrix.shards(consumers(900, 300, 300, 300), 2)
    assert found == [["c0"], ["c1", "c2", "c3"]]
    assert matrix.shards(consumers(900, 300, 300, 300), 2) == found
    assert matrix.shards(consumers(1, 1), 5) == [["c0"], ["c1"]]
    assert matrix.shards([], 3) == [[]]


def test_github_matrix() -> None:
    data = json.loads(matrix.render(consumers(10, 10, 10), 2))
    assert data == {
        "include": [
            {"shard": "1/2", "index": "1", "consumers": "c0 c2"},
            {"shard": "2/2", "index": "2", "consumers": "c1"},
        ]
    }
