"""The schema snapshot file: its stable JSON rendering and its checked reading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mlrelease.config import Config
from mlrelease.errors import ConfigError
from mlrelease.opsets.config import OpsetRulesConfig

SNAPSHOT_FORMAT = 1

Snapshot = dict[str, Any]


def render(snapshot: Snapshot) -> str:
    """Stable JSON, one operator per line (reviewable diffs)."""
    lines = [
        "{",
        f'  "format": {snapshot["format"]},',
        f'  "onnx_version": {json.dumps(snapshot["onnx_version"])},',
        '  "domains": {',
    ]
    domains = list(snapshot["domains"].items())
    for i, (domain, data) in enumerate(domains):
        lines.append(f"    {json.dumps(domain)}: {{")
        lines.append(f'      "opset_version": {data["opset_version"]},')
        lines.append(f'      "min_version": {data["min_version"]},')
        lines.append('      "operators": [')
        ops = data["operators"]
        for j, op in enumerate(ops):
            lines.append("        " + json.dumps(op) + ("," if j < len(ops) - 1 else ""))
        lines.append("      ]")
        lines.append("    }" + ("," if i < len(domains) - 1 else ""))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def read_snapshot(path: Path, *, key: str, source: str) -> Snapshot:
    try:
        data: Snapshot = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            key,
            "the previous release's schema snapshot",
            f"no file at {path}",
            source=source,
            hint="Write it with `mlrelease opset snapshot --execute` and commit it.",
        ) from None
    except ValueError as exc:
        raise ConfigError(
            key, "a JSON schema snapshot", f"invalid JSON ({exc})", source=source
        ) from None
    if data.get("format") != SNAPSHOT_FORMAT or "domains" not in data:
        raise ConfigError(
            key,
            f"a snapshot of format {SNAPSHOT_FORMAT}",
            f"format {data.get('format')!r}",
            source=source,
            hint="Rewrite it with `mlrelease opset snapshot --execute`.",
        )
    return data


def snapshot_path(config: Config) -> Path:
    return config.path(config.table(OpsetRulesConfig).snapshot)
