"""Errors a user can fix: printed as one paragraph, never as a traceback."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Repair:
    """The repair a refusal names, in a form a program can follow (the ``repair`` object of a
    ``--json`` refusal): run ``command``, or set ``values`` in the ``table`` of ``file``; then
    commit ``commit`` (and push it) and re-run the refused command."""

    kind: str
    """``"command"`` (run ``command``) or ``"config"`` (set ``values`` in ``file``'s ``table``)."""
    command: tuple[str, ...] = ()
    file: str = ""
    table: str = ""
    values: tuple[tuple[str, Any], ...] = ()
    commit: tuple[str, ...] = ("pyproject.toml",)

    def data(self) -> dict[str, Any]:
        """The JSON object: ``kind`` and the fields of that kind, ``commit``, ``then``."""
        if self.kind == "command":
            made: dict[str, Any] = {"kind": self.kind, "command": list(self.command)}
        else:
            made = {"kind": self.kind, "file": self.file, "table": self.table}
            made["set"] = dict(self.values)
        return {**made, "commit": list(self.commit), "then": "re-run"}


class UserError(Exception):
    """A problem with the input (config, arguments, repository state) that the user can fix.

    The message says what was expected, what was found and how to fix it. The CLI prints it
    without a traceback and exits with ``exit_code`` (2 by default, like argparse). A refusal
    whose repair a program can follow carries it as ``repair``: under ``--json`` the CLI also
    prints ``{"error": message, "repair": {...}}`` on stdout (:meth:`Repair.data`).
    """

    exit_code = 2
    repair: Repair | None = None

    def __init__(self, *args: object, repair: Repair | None = None) -> None:
        super().__init__(*args)
        self.repair = repair


class ConfigError(UserError):
    """``[tool.mlrelease]`` (or another configuration file) is invalid."""

    def __init__(self, key: str, expected: str, found: str, *, source: str, hint: str = "") -> None:
        self.key = key
        self.expected = expected
        self.found = found
        self.source = source
        message = f"{source}: {key}: expected {expected}, found {found}."
        if hint:
            message += f" {hint}"
        super().__init__(message)


class PreconditionError(UserError):
    """A mutating step refused to act because the repository is not in the expected state."""

    exit_code = 1
