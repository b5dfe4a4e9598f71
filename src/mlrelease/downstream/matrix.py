"""Consumers split into shards for CI, as a GitHub Actions ``strategy.matrix`` (pure).

Shards are balanced by the consumers' time budgets (longest first, each to the lightest
shard), deterministically: ``downstream run --shard I/N`` recomputes the same split, so the
matrix only carries ``I/N``, the shard's number ``I`` (which names its artifact; a name cannot
hold ``/``) and the names for the job titles.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mlrelease.downstream.config import Consumer


def shards(consumers: Sequence[Consumer], count: int) -> list[list[str]]:
    """``count`` shards (at most one per consumer) of consumer names, configured order kept
    inside each."""
    count = max(1, min(count, len(consumers))) if consumers else 1
    order = sorted(range(len(consumers)), key=lambda i: (-consumers[i].time_budget_s, i))
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for i in order:
        lightest = min(range(count), key=lambda s: (loads[s], s))
        loads[lightest] += consumers[i].time_budget_s
        members[lightest].append(i)
    return [[consumers[i].name for i in sorted(m)] for m in members]


def github_matrix(consumers: Sequence[Consumer], count: int) -> dict[str, list[dict[str, str]]]:
    """``{"include": [{"shard": "1/3", "index": "1", "consumers": "skl2onnx spox"}, ...]}``."""
    split = shards(consumers, count)
    return {
        "include": [
            {"shard": f"{i}/{len(split)}", "index": str(i), "consumers": " ".join(names)}
            for i, names in enumerate(split, 1)
        ]
    }


def render(consumers: Sequence[Consumer], count: int) -> str:
    """The matrix as one line of JSON (for ``$GITHUB_OUTPUT``: ``matrix=...``)."""
    return json.dumps(github_matrix(consumers, count), separators=(",", ":"))
