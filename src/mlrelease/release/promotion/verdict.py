"""The RC's release_verify verdict as the release world holds it (pure): the report read at the
RC's commit and what it must be bound to (invariant (b))."""

from __future__ import annotations

from dataclasses import dataclass

from mlrelease.report import Report


@dataclass(frozen=True)
class RcVerdict:
    """The RC's release_verify report and what it must be bound to (invariant (b))."""

    path: str
    report: Report | None = None
    error: str | None = None
    """Why the report file could not be read."""
    tree: str | None = None
    """The tree of the RC's commit."""
    config_sha256: str | None = None
    """SHA-256 of ``pyproject.toml`` at the RC's commit (through the checkout filters)."""
    gates: tuple[str, ...] = ()
    """The gates configured at the RC's commit."""
