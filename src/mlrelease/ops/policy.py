"""Tolerance overrides (``ci/tolerances.toml``) and known failures (``ci/known_failures.toml``).

Both files hold a list of entries whose ``pattern`` (fnmatch, on the case name) and ``backend``
(fnmatch, on the backend name; ``*`` when left out) select cases. The first matching entry wins.
A known failure gives a ``reason`` and an ``expires`` date, a ``tracking`` link, or both; an
expired entry fails the ``ops_index`` gate, and an entry whose cases all pass is reported so it
can be removed.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.config import read_toml
from mlrelease.errors import ConfigError
from mlrelease.toml_tables import parse_section


@dataclass(frozen=True)
class ToleranceOverride:
    """One ``[[override]]`` of ``ci/tolerances.toml``."""

    pattern: str
    reason: str
    rtol: float | None = None
    atol: float | None = None
    backend: str = "*"


@dataclass(frozen=True)
class KnownFailure:
    """One ``[[failure]]`` of ``ci/known_failures.toml``."""

    pattern: str
    reason: str
    backend: str = "*"
    expires: Any = None
    """A TOML date (``2027-06-30``) or an ISO date string."""
    tracking: str = ""
    """A link to the issue that tracks the fix."""
    line: int = field(default=0, metadata={"toml": False})

    @property
    def expiry(self) -> dt.date | None:
        return self.expires if isinstance(self.expires, dt.date) else None

    def label(self, path: str) -> str:
        where = f"{path}:{self.line}" if self.line else path
        return f"{where}: known failure '{self.pattern}' on backend '{self.backend}'"

    def matches(self, case: str, backend: str) -> bool:
        return fnmatch.fnmatchcase(case, self.pattern) and fnmatch.fnmatchcase(
            backend, self.backend
        )


@dataclass(frozen=True)
class _TolerancesFile:
    override: list[ToleranceOverride] = field(default_factory=list)


@dataclass(frozen=True)
class _KnownFailuresFile:
    failure: list[KnownFailure] = field(default_factory=list)
    disagreement: list[KnownFailure] = field(default_factory=list)
    """Cases on which the backends disagree (one passes, another gives a wrong result), each
    investigated: a reason and an ``expires`` date (a ``backend`` names the one that is wrong)."""


@dataclass(frozen=True)
class Policy:
    """Both files, loaded and checked."""

    tolerances: list[ToleranceOverride] = field(default_factory=list)
    known_failures: list[KnownFailure] = field(default_factory=list)
    known_failures_path: str = "ci/known_failures.toml"
    disagreements: list[KnownFailure] = field(default_factory=list)
    """``[[disagreement]]`` entries of the known-failures file."""

    def explained(self, case: str, wrong: Iterable[str]) -> KnownFailure | None:
        """The entry excusing a disagreement on ``case`` whose ``wrong`` backends give a wrong
        result: a ``[[disagreement]]`` entry, or a dated ``[[failure]]`` for each of them."""
        backends = list(wrong)
        entry = next(
            (d for d in self.disagreements if all(d.matches(case, b) for b in backends)), None
        )
        if entry is not None:
            return entry
        found = [self.known(case, b) for b in backends]
        if found and all(k is not None and k.expiry is not None for k in found):
            return found[0]
        return None

    def tolerance(self, case: str, backend: str, rtol: float, atol: float) -> tuple[float, float]:
        """The (rtol, atol) for a case on a backend: the first matching override, else its own."""
        for entry in self.tolerances:
            if fnmatch.fnmatchcase(case, entry.pattern) and fnmatch.fnmatchcase(
                backend, entry.backend
            ):
                return (
                    rtol if entry.rtol is None else entry.rtol,
                    atol if entry.atol is None else entry.atol,
                )
        return rtol, atol

    def override_for(self, case: str, backend: str) -> ToleranceOverride | None:
        for entry in self.tolerances:
            if fnmatch.fnmatchcase(case, entry.pattern) and fnmatch.fnmatchcase(
                backend, entry.backend
            ):
                return entry
        return None

    def known(self, case: str, backend: str) -> KnownFailure | None:
        """The known-failure entry covering a case on a backend, if any."""
        return next((k for k in self.known_failures if k.matches(case, backend)), None)

    def expired(self, today: dt.date) -> list[KnownFailure]:
        entries = [*self.known_failures, *self.disagreements]
        return [k for k in entries if k.expiry is not None and k.expiry < today]

    def unneeded(
        self,
        verdicts: Iterable[tuple[str, str, bool]],
        measured: set[str],
    ) -> list[tuple[KnownFailure, str]]:
        """Entries to remove, with why: every case they match passed, or they match no case.

        ``verdicts`` are (case, backend, passed); only entries for ``measured`` backends count.
        """
        matched: dict[int, list[bool]] = {}
        rows = list(verdicts)
        for i, entry in enumerate(self.known_failures):
            for case, backend, passed in rows:
                if entry.matches(case, backend):
                    matched.setdefault(i, []).append(passed)
        out = []
        for i, entry in enumerate(self.known_failures):
            if not any(fnmatch.fnmatchcase(b, entry.backend) for b in measured):
                continue
            found = matched.get(i)
            if found is None:
                out.append((entry, "it matches no case"))
            elif all(found):
                out.append((entry, f"all {len(found)} matching case(s) now pass"))
        return out


def load(root: Path, tolerances: str, known_failures: str) -> Policy:
    """Read both files (each optional); a malformed entry is a :class:`ConfigError`."""
    tol = _read(root / tolerances, _TolerancesFile)
    known = _read(root / known_failures, _KnownFailuresFile)
    text = (
        (root / known_failures).read_text(encoding="utf-8")
        if (root / known_failures).is_file()
        else ""
    )
    source = str(root / known_failures)
    entries = _known_failures(known.failure, text, source)
    disagreements = _disagreements(known.disagreement, text, source)
    for i, override in enumerate(tol.override):
        if override.rtol is None and override.atol is None:
            raise ConfigError(
                f"override[{i}]", "rtol, atol or both", "neither", source=str(root / tolerances)
            )
    return Policy(list(tol.override), entries, known_failures, disagreements)


def _known_failures(failures: Any, text: str, source: str) -> list[KnownFailure]:
    """``[[failure]]`` entries, checked: an expiry date or a tracking link, and a reason."""
    entries = []
    for i, entry in enumerate(failures):
        key = f"failure[{i}]"
        if entry.expires is not None and not isinstance(entry.expires, dt.date):
            try:
                expires = dt.date.fromisoformat(str(entry.expires))
            except ValueError:
                raise ConfigError(
                    f"{key}.expires",
                    "a date such as 2027-06-30",
                    repr(entry.expires),
                    source=source,
                ) from None
            entry = KnownFailure(
                entry.pattern, entry.reason, entry.backend, expires, entry.tracking
            )
        if entry.expires is None and not entry.tracking:
            raise ConfigError(
                key,
                "an 'expires' date or a 'tracking' link",
                "neither",
                source=source,
                hint=f"Say until when '{entry.pattern}' may fail, or link the issue tracking it.",
            )
        if not entry.reason.strip():
            raise ConfigError(
                f"{key}.reason", "why the case fails", "an empty reason", source=source
            )
        entries.append(
            KnownFailure(
                entry.pattern,
                entry.reason,
                entry.backend,
                entry.expires,
                entry.tracking,
                line=_line_of(text, entry.pattern),
            )
        )
    return entries


def _disagreements(entries: Any, text: str, source: str) -> list[KnownFailure]:
    """``[[disagreement]]`` entries, checked: an expiry date and a reason."""
    disagreements = []
    for i, entry in enumerate(entries):
        key = f"disagreement[{i}]"
        until: dt.date | None = entry.expiry
        if until is None and entry.expires is not None:
            try:
                until = dt.date.fromisoformat(str(entry.expires))
            except ValueError:
                until = None
        if until is None:
            raise ConfigError(
                f"{key}.expires",
                "a date such as 2027-06-30 (until when the backends may disagree)",
                repr(entry.expires),
                source=source,
                hint=f"Say until when '{entry.pattern}' may disagree; renew it after checking.",
            )
        if not entry.reason.strip():
            raise ConfigError(
                f"{key}.reason", "which backend is wrong and why", "an empty reason", source=source
            )
        disagreements.append(
            KnownFailure(
                entry.pattern,
                entry.reason,
                entry.backend,
                until,
                entry.tracking,
                line=_line_of(text, entry.pattern),
            )
        )
    return disagreements


def _read(path: Path, cls: Any) -> Any:
    if not path.is_file():
        return cls()
    return parse_section(cls, read_toml(path), prefix=path.name, source=str(path))


def _line_of(text: str, pattern: str) -> int:
    """The line of ``pattern = "..."`` (for messages that point into the file)."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("pattern") and (
            f'"{pattern}"' in stripped or f"'{pattern}'" in stripped
        ):
            return number
    return 0
