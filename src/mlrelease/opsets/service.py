"""What the ``opset_rules`` gate and ``mlrelease opset snapshot`` both do: collect the declared
schemas, and judge them against a snapshot."""

from __future__ import annotations

from typing import Any

from mlrelease.config import Config
from mlrelease.opsets.collect import collect_declared
from mlrelease.opsets.config import OpsetRulesConfig
from mlrelease.opsets.rules import check


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
