"""What the ``opset_rules`` gate and ``mlrelease opset snapshot`` both do: collect the declared
schemas, and judge them against a snapshot; and what ``opset snapshot`` decides and writes
(:func:`snapshot`)."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlrelease.config import Config
from mlrelease.opsets.collect import collect_declared
from mlrelease.opsets.config import OpsetRulesConfig
from mlrelease.opsets.rules import check
from mlrelease.opsets.snapshot import render, snapshot_path


def declared(config: Config) -> dict[str, Any]:
    """Every schema the project declares now (the installed onnx's and the custom domains'),
    collected in a fresh interpreter."""
    return collect_declared(config)


def violations(
    config: Config, previous: dict[str, Any], current: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """The rule violations, and the facts, of going from the ``previous`` snapshot to
    ``current`` in the configured domains."""
    return check(previous, current, config.table(OpsetRulesConfig).domains)


@dataclass(frozen=True)
class SnapshotOutcome:
    """What ``opset snapshot`` found, against the snapshot file, and did."""

    path: Path
    current: bool = False
    """The file already holds the declared schemas: nothing to write."""
    existed: bool = False
    facts: tuple[str, ...] = ()
    """What changed since the file, per domain."""
    problems: tuple[str, ...] = ()
    """The rule violations of going from the file to the declared schemas."""
    changed: int = 0
    """Diff lines against the file."""
    written: bool = False
    operators: int = 0
    """Operator versions declared."""
    domains: int = 0


def snapshot(config: Config, output: Path | None, execute: bool) -> SnapshotOutcome:
    """``opset snapshot``: the declared schemas against the snapshot file (``output``, else the
    configured one), written when ``execute`` and they differ."""
    path = output or snapshot_path(config)
    current = declared(config)
    text = render(current)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    if before == text:
        return SnapshotOutcome(path, current=True, existed=True)
    problems: list[str] = []
    facts: list[str] = []
    if before:
        try:
            problems, facts = violations(config, json.loads(before), current)
        except (ValueError, KeyError, TypeError):
            problems, facts = [], ["the existing file is not a readable snapshot"]
    changed = sum(1 for _ in difflib.unified_diff(before.splitlines(), text.splitlines(), n=0))
    if execute:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return SnapshotOutcome(
        path,
        existed=bool(before),
        facts=tuple(facts),
        problems=tuple(problems),
        changed=changed,
        written=execute,
        operators=sum(len(d["operators"]) for d in current["domains"].values()),
        domains=len(current["domains"]),
    )
