"""The index of a declared source (``[tool.mlrelease.ops] source``): the rows of the adopter's
callable (:mod:`mlrelease.ops.plugin`) as the committed index and its page, their drift against
a fresh run, and the changes since the previous release's index.

The same files, commands and gate as the conformance index: ``mlrelease ops index`` writes or
``--check``\\s them, ``mlrelease ops diff`` compares two, the ``ops_index`` gate fails on a bad
row, a stale index or page, and an operator the previous release listed that is gone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.ops import diff as diff_mod
from mlrelease.ops import plugin
from mlrelease.ops.config import OpsConfig
from mlrelease.ops.plugin import OperatorRow

SCHEMA = "mlrelease-ops-source-index"
SCHEMA_VERSION = 1
TITLE = "Supported operators"


def build(rows: list[OperatorRow], source: str) -> dict[str, Any]:
    """The index: operator -> status and notes, and the source it came from."""
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "operators": {r.operator: {"status": r.status, "notes": r.notes} for r in rows},
    }


def dumps(index: dict[str, Any]) -> str:
    return json.dumps(index, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def loads(text: str, source: str) -> dict[str, Any]:
    """Parse a committed index; a broken or foreign file is a clear error."""
    regenerate = "Regenerate it with `mlrelease ops index --execute`."
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            + regenerate
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise UserError(
            f'{source}: expected the index of a declared source ("schema": "{SCHEMA}"), found '
            "something else (the conformance index? [tool.mlrelease.ops] source changed what "
            f"the index holds). {regenerate}"
        )
    if not isinstance(data.get("operators"), dict):
        raise UserError(f"{source}: no `operators` table. {regenerate}")
    return data


def rows_of(index: dict[str, Any]) -> list[OperatorRow]:
    return [
        OperatorRow(op, str(entry.get("status", "")), str(entry.get("notes", "")))
        for op, entry in sorted(index["operators"].items())
    ]


def page(index: dict[str, Any]) -> str:
    return plugin.page(rows_of(index), TITLE, str(index.get("source", "")))


@dataclass
class Changes:
    """Between two indices: operators added, removed, and whose status changed."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[tuple[str, str, str]] = field(default_factory=list)
    """(operator, old status, new status)."""

    def lines(self) -> list[str]:
        return (
            [f"added: {op}" for op in self.added]
            + [f"removed: {op}" for op in self.removed]
            + [f"{op}: {old} -> {new}" for op, old, new in self.changed]
        )


def unwaived(changes: Changes, ops: OpsConfig) -> list[str]:
    """The operators gone since the previous index that no ``dropped`` decision covers."""
    decided = {d.operator for d in ops.dropped}
    return [op for op in changes.removed if op not in decided]


def removal_message(gone: list[str], label: str) -> str:
    """What to do about operators of ``label`` (the previous index) gone without a decision."""
    first = gone[0]
    return (
        f"{len(gone)} operator(s) of {label} are gone: {', '.join(gone[:10])}; restore them, "
        "or record the decision to drop each: [[tool.mlrelease.ops.dropped]] "
        f'operator = "{first}", reason = "...", decision = "<link to the issue or notes>"'
    )


def diff(old: dict[str, Any], new: dict[str, Any]) -> Changes:
    before, after = old["operators"], new["operators"]
    return Changes(
        added=sorted(set(after) - set(before)),
        removed=sorted(set(before) - set(after)),
        changed=[
            (op, before[op].get("status", ""), after[op].get("status", ""))
            for op in sorted(set(before) & set(after))
            if before[op].get("status") != after[op].get("status")
        ],
    )


@dataclass
class Fresh:
    """A fresh run of the source: the index and page it gives, and its bad rows."""

    index: dict[str, Any]
    page: str
    problems: list[str]

    def generated(self, config: Config, ops: OpsConfig) -> list[files.Generated]:
        return [
            files.Generated(config.path(ops.index), dumps(self.index), ops.index),
            files.Generated(config.path(ops.page), self.page, ops.page),
        ]


def run(config: Config, ops: OpsConfig) -> Fresh:
    """Run the source in a subprocess and build the index and page of its valid rows."""
    collected = plugin.collect(config.root, ops.source, ops.source_path)
    index = build(collected.rows, ops.source)
    return Fresh(index, page(index), collected.problems)


def committed(config: Config, ops: OpsConfig) -> dict[str, Any] | None:
    path = config.path(ops.index)
    return loads(path.read_text(encoding="utf-8"), ops.index) if path.is_file() else None


def read(config: Config, spec: str, ops: OpsConfig) -> dict[str, Any]:
    """An index named on the command line: a file (relative to the root) or ``REF`` (git)."""
    found = diff_mod.load_previous(config.root, spec, ops.index, "0", config.names, loads=loads)
    if found is None:
        raise UserError(f"{spec!r}: no index there; pass a file or a git ref holding {ops.index}.")
    return found[1]
