"""The known-downstream-failures list: regressions accepted for now, each with an owner, a
reason and an expiry date (Debian's ``force-badtest`` hint, with a name and a date on it).

``ci/downstream_known_failures.toml``::

    [[failure]]
    consumer = "skl2onnx"
    test = "tests/test_sklearn_pipeline.py::*"   # fnmatch pattern; "*": every test
    owner = "@release-manager"
    reason = "skl2onnx 1.20 tests an attribute onnx 1.23 removed; fixed in skl2onnx main"
    expires = 2026-12-31

    [[flaky]]
    consumer = "spox"
    test = "tests/test_random.py::test_sampling"
    owner = "@spox-dev"
    reason = "seeds from the clock; spox#321"
    expires = 2026-12-31

An entry covers a regressed test, or ``<install>``: the candidate side could not be installed.
A ``[[flaky]]`` entry declares a test flaky: whatever its runs say, it is ``spurious``, never a
verdict (nor a fix). An expired entry covers nothing and says so; an entry that matched nothing
is reported as stale, so the list does not silently outlive its reasons.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlrelease.config import read_toml
from mlrelease.errors import ConfigError

INSTALL = "<install>"
"""The pseudo test a known failure names to accept that the candidate cannot be installed."""
FIELDS = ("consumer", "test", "owner", "reason", "expires")
FAILURE = "failure"
FLAKY = "flaky"
KINDS = (FAILURE, FLAKY)


@dataclass(frozen=True)
class KnownTestFailure:
    consumer: str
    test: str
    owner: str
    reason: str
    expires: dt.date
    kind: str = FAILURE
    """``failure`` (a regression accepted for now) or ``flaky`` (a test declared flaky)."""

    def covers(self, consumer: str, nodeid: str) -> bool:
        return consumer == self.consumer and fnmatch.fnmatchcase(nodeid, self.test)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def describe(self) -> str:
        return f"{self.owner}: {self.reason} (until {self.expires.isoformat()})"


def _entry(data: Any, key: str, source: str, kind: str) -> KnownTestFailure:
    if not isinstance(data, Mapping):
        raise ConfigError(key, "a table", type(data).__name__, source=source)
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ConfigError(
            f"{key}.{unknown[0]}", f"one of {', '.join(FIELDS)}", "an unknown key", source=source
        )
    values: dict[str, Any] = {"test": "*"}
    for name in FIELDS:
        value = data.get(name, values.get(name))
        if name == "expires":
            value = _date(value, f"{key}.expires", source)
        elif not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"{key}.{name}",
                "a non-empty string (an entry names who, why and until when)",
                repr(value),
                source=source,
            )
        values[name] = value
    return KnownTestFailure(**values, kind=kind)


def _date(value: Any, key: str, source: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ConfigError(key, "a date (expires = 2026-12-31)", repr(value), source=source)


def load(path: Path) -> list[KnownTestFailure]:
    """The entries of ``path``; none when the file does not exist."""
    if not path.is_file():
        return []
    data = read_toml(path)
    source = str(path)
    unknown = sorted(set(data) - set(KINDS))
    if unknown:
        raise ConfigError(
            unknown[0], "only [[failure]] and [[flaky]] tables", "another key", source=source
        )
    out = []
    for kind in KINDS:
        entries = data.get(kind, [])
        if not isinstance(entries, list):
            raise ConfigError(kind, f"an array of tables ([[{kind}]])", "a table", source=source)
        out += [_entry(e, f"{kind}[{i}]", source, kind) for i, e in enumerate(entries)]
    return out


@dataclass(frozen=True)
class Match:
    """What the list says about one regression."""

    entry: KnownTestFailure | None
    expired: KnownTestFailure | None = None

    @property
    def accepted(self) -> bool:
        return self.entry is not None


def match(
    entries: Iterable[KnownTestFailure],
    consumer: str,
    nodeid: str,
    today: dt.date,
    kind: str = FAILURE,
) -> Match:
    """The first live entry covering the test, else the expired one that would have; only
    entries of ``kind``."""
    expired = None
    for entry in entries:
        if entry.kind == kind and entry.covers(consumer, nodeid):
            if not entry.expired(today):
                return Match(entry)
            expired = expired or entry
    return Match(None, expired)


def stale(
    entries: Iterable[KnownTestFailure], used: Iterable[KnownTestFailure], today: dt.date
) -> list[str]:
    """Lines about entries that covered nothing this run, or have expired."""
    seen = set(used)
    lines = []
    for e in entries:
        what = "known failure" if e.kind == FAILURE else "declared flaky test"
        if e.expired(today):
            lines.append(f"{what} {e.consumer} `{e.test}` expired on {e.expires} ({e.owner})")
        elif e not in seen:
            lines.append(f"{what} {e.consumer} `{e.test}` matched nothing: remove it?")
    return lines
