"""The repair a refused command names, made as a user makes it (``adoption_corpus_replay``):
read from the ``repair`` object of its ``--json`` refusal (``mlrelease.errors.Repair``), never
from its prose: a command run, or keys of a table of ``pyproject.toml`` set (tomlkit keeps the
rest of the file as written)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit


def carried(data: Any) -> dict[str, Any] | None:
    """The repair a ``--json`` refusal carries (``{"error": ..., "repair": {...}}``)."""
    repair = data.get("repair") if isinstance(data, dict) and "error" in data else None
    return repair if isinstance(repair, dict) else None


def set_keys(path: Path, table: str, values: dict[str, Any]) -> None:
    """``values`` set in ``table`` (dotted) of the TOML file ``path``, the rest kept as written."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    node: Any = doc
    for part in table.split("."):
        if part not in node:
            node[part] = tomlkit.table(is_super_table=True)
        node = node[part]
    for k, v in values.items():
        node[k] = v
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")


def make(work: Path, repair: dict[str, Any], mlrelease: Callable[..., int]) -> str | None:
    """``repair`` made in the clone ``work`` (``mlrelease(*args)`` runs a command there and
    returns its exit status); what it was, for the step, or None where it cannot be made."""
    if repair.get("kind") == "command":
        run = [str(word) for word in repair.get("command", [])]
        if run[:1] != ["mlrelease"] or mlrelease(*run[1:]):
            return None
        return f"`{' '.join(run)}`"
    if repair.get("kind") == "config" and repair.get("file") == "pyproject.toml":
        values = dict(repair.get("set", {}))
        set_keys(work / "pyproject.toml", str(repair.get("table", "")), values)
        shown = ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
        return f"`{shown}` in [{repair['table']}]"
    return None
