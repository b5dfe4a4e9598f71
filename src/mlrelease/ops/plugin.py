"""An operator index from a declared source: the adopter's callable yielding
``(operator, status, notes)`` rows (Torch-TensorRT's dynamo converter registry, for example).

The callable is the adopter's own code: it runs in a subprocess with time and memory limits
(:mod:`mlrelease.ops.plugin_worker`), never in mlrelease's process. Every row is validated, and
a bad row, a failing callable, a crash or a time-out gets a verdict naming the source and the
row, never a traceback. :func:`page` renders the rows as the index page.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.edges.proc import ChildStatus, Limits, python_module, run
from mlrelease.errors import UserError
from mlrelease.markdown import table
from mlrelease.ops.config import SOURCE_SPEC

LIMITS = Limits(wall_s=300, memory_mb=8192)


@dataclass(frozen=True)
class OperatorRow:
    """One operator of the index."""

    operator: str
    status: str
    notes: str = ""


@dataclass
class Collected:
    """What a source yielded: the valid rows and a verdict for each bad one."""

    rows: list[OperatorRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def check_spec(source: str, key: str = "tool.mlrelease.ops.source") -> str:
    if not SOURCE_SPEC.match(source):
        raise UserError(
            f"{key} = {source!r}: expected `package.module:callable`, a callable of the "
            "project that yields (operator, status, notes) rows; e.g. "
            "'converters.registry:index_rows'."
        )
    return source


def validate(raw: Sequence[Any], source: str) -> Collected:
    """Each row must be (operator, status) or (operator, status, notes) of strings, the
    operator non-empty and given once."""
    out = Collected()
    seen: set[str] = set()
    for number, item in enumerate(raw, start=1):
        where = f"{source}: row {number}"
        if not isinstance(item, list) or len(item) not in (2, 3):
            out.problems.append(
                f"{where} is {_show(item)}; expected a tuple (operator, status, notes)"
            )
            continue
        if not all(isinstance(v, str) for v in item):
            kinds = ", ".join(
                type(v).__name__ if not isinstance(v, dict) else v["type"] for v in item
            )
            out.problems.append(f"{where} holds ({kinds}); expected strings")
            continue
        operator, status, *notes = (v.strip() for v in item)
        if not operator or not status:
            out.problems.append(f"{where}: the operator and the status must not be empty")
        elif operator in seen:
            out.problems.append(f"{where}: operator {operator!r} is listed twice")
        else:
            seen.add(operator)
            out.rows.append(OperatorRow(operator, status, notes[0] if notes else ""))
    return out


def _show(item: Any) -> str:
    text = json.dumps(item) if not isinstance(item, dict) else f"a {item['type']}"
    return text if len(text) <= 80 else text[:77] + "..."


def collect(
    root: Path, source: str, python_path: Sequence[str] = (), limits: Limits = LIMITS
) -> Collected:
    """Run ``source`` (``package.module:callable``) of the project at ``root`` in a subprocess
    and validate what it yields; raises UserError when it yields nothing usable."""
    check_spec(source)
    paths = [str((root / p).resolve()) for p in (*python_path, ".")]
    done = run(
        python_module("mlrelease.ops.plugin_worker", source, *paths), limits=limits, cwd=root
    )
    log = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
    if done.status is not ChildStatus.OK or done.returncode != 0:
        why = done.reason or f"exit {done.returncode}"
        tail = f" Its last output: {' | '.join(log)}" if log else ""
        raise UserError(f"index source {source}: {why}.{tail}")
    try:
        answer = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise UserError(
            f"index source {source}: no answer (its output: {' | '.join(log)})"
        ) from None
    if "error" in answer:
        raise UserError(
            f"index source {source} failed: {answer['error']}. Fix the callable, or the module "
            "path in [tool.mlrelease.ops] source."
        )
    return validate(answer["rows"], source)


def page(rows: Sequence[OperatorRow], title: str, source: str) -> str:
    """The index page: one line per operator, sorted, with the counts per status."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    body = "\n".join(
        table(
            ["operator", "status", "notes"],
            [[r.operator, r.status, r.notes] for r in sorted(rows, key=lambda r: r.operator)],
        )
    )
    return (
        f"# {title}\n\n<!-- Generated from {source} by `mlrelease ops index`; do not edit. -->\n\n"
        f"{len(rows)} operators: {summary}.\n\n{body}\n"
    )
