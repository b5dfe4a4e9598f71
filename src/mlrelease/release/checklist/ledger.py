"""The checklist's ledger (``build/release/X.Y.Z/ledger.json``): one record per step, written
atomically, read back with every key's type checked.

A ledger is a file people open, edit and copy between machines; one of the wrong shape or types
(a status that is a number, a list where a step is expected, bytes that are not UTF-8) is an
error naming the file, the key and what was expected, never a traceback or a silent guess.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.errors import UserError
from mlrelease.release.checklist.steps import ChecklistStep, current_id

LEDGER_SCHEMA = 1
STATUSES = ("pending", "running", "done", "failed")


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@dataclass
class StepRecord:
    """One step's line in the ledger."""

    id: str
    title: str
    mutating: bool
    status: str = "pending"
    """pending, running (started, not known to have finished), done or failed."""
    started: str | None = None
    finished: str | None = None
    command: list[str] = field(default_factory=list)
    exit_code: int | None = None
    evidence: list[str] = field(default_factory=list)
    runs: int = 0
    note: str = ""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_STEP_KEYS: dict[str, tuple[str, Any]] = {
    "id": ("a string (the step's name)", lambda v: isinstance(v, str) and v),
    "title": ("a string", lambda v: isinstance(v, str)),
    "mutating": ("true or false", lambda v: isinstance(v, bool)),
    "status": (f"one of {', '.join(STATUSES)}", lambda v: v in STATUSES),
    "started": ("a time string or null", lambda v: v is None or isinstance(v, str)),
    "finished": ("a time string or null", lambda v: v is None or isinstance(v, str)),
    "command": ("a list of strings", _is_strings),
    "exit_code": ("an integer or null", lambda v: v is None or _is_int(v)),
    "evidence": ("a list of strings", _is_strings),
    "runs": ("an integer", _is_int),
    "note": ("a string", lambda v: isinstance(v, str)),
}
_TOP_KEYS: dict[str, tuple[str, Any]] = {
    "schema_version": ("an integer", _is_int),
    "version": ("a string", lambda v: isinstance(v, str)),
    "created": ("a time string", lambda v: isinstance(v, str)),
    "updated": ("a time string", lambda v: isinstance(v, str)),
    "complete": ("true or false", lambda v: isinstance(v, bool)),
    "steps": ("a list of step records", lambda v: isinstance(v, list)),
}


def _wrong(path: Path, key: str, expected: str, value: object) -> UserError:
    shown = json.dumps(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return UserError(
        f"{path}: not a checklist ledger: {key} must be {expected}, not {shown} "
        f"({type(value).__name__}). Fix that key, or move it away to start over (the release "
        "commands converge: done steps are found done again)."
    )


def parse(path: Path, raw: bytes) -> tuple[str | None, list[StepRecord]]:
    """(created, step records) of a ledger file's bytes; every key's type is checked."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"{path}: not a checklist ledger: byte {exc.start} is not UTF-8. Fix it, or move it "
            "away to start over."
        ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(
            f"{path}: not a checklist ledger: not JSON ({exc}). Move it away to start over."
        ) from None
    if not isinstance(data, dict):
        raise _wrong(path, "the file", "a JSON object", data)
    for key, (expected, ok) in _TOP_KEYS.items():
        if key in data and not ok(data[key]):
            raise _wrong(path, key, expected, data[key])
    records: list[StepRecord] = []
    for i, item in enumerate(data.get("steps", [])):
        where = f"steps[{i}]"
        if not isinstance(item, dict):
            raise _wrong(path, where, "an object (one step's record)", item)
        unknown = sorted(set(item) - set(_STEP_KEYS))
        if unknown:
            raise _wrong(path, f"{where}.{unknown[0]}", "absent (no such key)", item[unknown[0]])
        for key in ("id", "title", "mutating"):
            if key not in item:
                raise UserError(
                    f"{path}: not a checklist ledger: {where} lacks the key {key!r}. Add it, or "
                    "move it away to start over."
                )
        for key, value in item.items():
            expected, ok = _STEP_KEYS[key]
            if not ok(value):
                raise _wrong(path, f"{where}.{key}", expected, value)
        records.append(StepRecord(**item))
    created = data.get("created")
    return (created if isinstance(created, str) else None), records


@dataclass
class Ledger:
    """``ledger.json``: the state of one version's checklist."""

    path: Path
    version: str
    steps: list[StepRecord]
    created: str = field(default_factory=now)
    updated: str = field(default_factory=now)

    @property
    def complete(self) -> bool:
        return all(s.status == "done" for s in self.steps)

    def step(self, step_id: str) -> StepRecord:
        return next(s for s in self.steps if s.id == step_id)

    @classmethod
    def load(cls, path: Path, version: str, steps: list[ChecklistStep]) -> Ledger:
        """The ledger at ``path`` (or a new one), aligned with the configured steps."""
        old: dict[str, StepRecord] = {}
        created = now()
        if path.is_file():
            raw = path.read_bytes()
            found, records = parse(path, raw)
            owner = json.loads(raw).get("version")
            if owner not in (None, version):  # invariant (g): a ledger belongs to one version
                raise UserError(
                    f"{path}: this is the ledger of {owner}, not of {version}: its steps were "
                    f"done for {owner}. Move it away (a ledger belongs to one version); the "
                    f"{version} checklist starts a new one (what the world shows done is found so)."
                )
            created = found or created
            for record in records:  # a ledger written under the old step names
                record.id = current_id(record.id)[0]
                old[record.id] = record
        records = [old.get(s.id) or StepRecord(s.id, s.title, s.mutating) for s in steps]
        return cls(path, version, records, created=created)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": LEDGER_SCHEMA,
            "version": self.version,
            "created": self.created,
            "updated": self.updated,
            "complete": self.complete,
            "steps": [asdict(s) for s in self.steps],
        }

    def save(self) -> None:
        """Write atomically: a kill leaves the previous ledger or the new one, never half."""
        self.updated = now()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
