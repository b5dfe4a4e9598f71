"""What a paired run found, per consumer; shards merged; regressions judged (pure).

A consumer's result is ``compared`` (its verdicts by test), ``could not install`` (with the
side and the resolver's reason) or ``error`` (its tests could not be fetched, say). A consumer
whose tests did not run on a side (a crash, a collection error, pytest's exit 4 or 5, no tests,
an install failure on the baseline side, an error) is *not verified* on that side
(:attr:`ConsumerResult.not_verified`): the gate fails on it unless the consumer is optional. A run's
results are written as JSON; CI shards write one file each, :func:`merge` joins them and
refuses a merge that is not one run (another candidate or baseline, a consumer reported twice
or by no shard).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mlrelease.downstream import known
from mlrelease.downstream.verdicts import CaseVerdict, PairVerdict, counts, levels
from mlrelease.errors import UserError

FORMAT = 2
COMPARED = "compared"
NOT_INSTALLED = "could not install"
ERROR = "error"


@dataclass
class ConsumerResult:
    """One consumer's outcome."""

    name: str
    status: str = COMPARED
    version: str = ""
    origin: str = ""
    owner: str = ""
    repository: str = ""
    verdicts: list[CaseVerdict] = field(default_factory=list)
    install: dict[str, str] = field(default_factory=dict)
    """Side (``baseline``/``candidate``) -> why it could not be installed."""
    error: str = ""
    changes: list[str] = field(default_factory=list)
    """Dependencies resolved differently on the candidate side (``protobuf 5.29.4 -> 6.31.1``)."""
    seconds: dict[str, float] = field(default_factory=dict)
    cached: bool = False
    optional: bool = False
    """Configured optional: not verified is a note, not a failure."""
    unverified: dict[str, dict[str, str]] = field(default_factory=dict)
    """Side -> ``why`` its tests did not run and the command that reproduces it (``reproduce``)."""

    def tests(self, verdict: PairVerdict) -> list[CaseVerdict]:
        return [v for v in self.verdicts if v.verdict is verdict]

    @property
    def install_regressed(self) -> bool:
        """The candidate cannot be installed where the baseline can."""
        return self.status == NOT_INSTALLED and set(self.install) == {"candidate"}

    @property
    def not_verified(self) -> dict[str, dict[str, str]]:
        """Side (``baseline``, ``candidate``, ``both``) -> why and how to reproduce, for every
        side whose tests did not run; empty when the consumer was verified. A candidate-only
        install failure is an install regression, not this."""
        if self.status == ERROR:
            return {"both": {"why": self.error, "reproduce": ""}}
        if self.install_regressed:
            return {}
        return dict(self.unverified)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "version": self.version,
            "origin": self.origin,
            "owner": self.owner,
            "repository": self.repository,
            "verdicts": [v.to_dict() for v in self.verdicts],
            "install": dict(self.install),
            "error": self.error,
            "changes": list(self.changes),
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
            "cached": self.cached,
            "counts": {k.value: n for k, n in counts(self.verdicts).items()},
            "levels": [v.nodeid for v in levels(self.verdicts)],
            "optional": self.optional,
            "unverified": {k: dict(v) for k, v in self.unverified.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConsumerResult:
        return cls(
            name=str(data["name"]),
            status=str(data.get("status", COMPARED)),
            version=str(data.get("version", "")),
            origin=str(data.get("origin", "")),
            owner=str(data.get("owner", "")),
            repository=str(data.get("repository", "")),
            verdicts=[CaseVerdict.from_dict(v) for v in data.get("verdicts", [])],
            install={str(k): str(v) for k, v in data.get("install", {}).items()},
            error=str(data.get("error", "")),
            changes=[str(c) for c in data.get("changes", [])],
            seconds={str(k): float(v) for k, v in data.get("seconds", {}).items()},
            cached=bool(data.get("cached", False)),
            optional=bool(data.get("optional", False)),
            unverified={
                str(k): {str(a): str(b) for a, b in v.items()}
                for k, v in data.get("unverified", {}).items()
            },
        )


@dataclass
class RunResults:
    """A paired run (or one shard of it)."""

    package: str
    candidate: str
    """The candidate's label (version and where it came from)."""
    candidate_identity: list[str]
    baseline: str
    python: str
    consumers: list[str]
    """Every consumer of the run, before sharding (a merge checks coverage)."""
    results: list[ConsumerResult] = field(default_factory=list)
    shard: tuple[int, int] | None = None
    created: str = field(
        default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    )
    seconds: float = 0.0

    def same_run(self, other: RunResults) -> str:
        """ "" when ``other`` is a shard of the same run, else what differs."""
        for attr in ("package", "candidate_identity", "baseline", "python", "consumers"):
            if getattr(self, attr) != getattr(other, attr):
                return attr
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "package": self.package,
            "candidate": self.candidate,
            "candidate_identity": list(self.candidate_identity),
            "baseline": self.baseline,
            "python": self.python,
            "consumers": list(self.consumers),
            "shard": None if self.shard is None else list(self.shard),
            "created": self.created,
            "seconds": round(self.seconds, 2),
            "totals": totals(self.results),
            "results": [r.to_dict() for r in self.results],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "results") -> RunResults:
        if data.get("format") != FORMAT:
            raise UserError(
                f"{source}: results format {data.get('format')!r}, expected {FORMAT}; produce "
                "them with this mlrelease (mlrelease downstream run)."
            )
        shard = data.get("shard")
        return cls(
            package=str(data["package"]),
            candidate=str(data["candidate"]),
            candidate_identity=[str(i) for i in data["candidate_identity"]],
            baseline=str(data["baseline"]),
            python=str(data["python"]),
            consumers=[str(c) for c in data["consumers"]],
            results=[ConsumerResult.from_dict(r) for r in data.get("results", [])],
            shard=None if shard is None else (int(shard[0]), int(shard[1])),
            created=str(data.get("created", "")),
            seconds=float(data.get("seconds", 0.0)),
        )


def merge(shards: Sequence[RunResults]) -> RunResults:
    """One run's results from its shards, consumers in configured order."""
    if not shards:
        raise UserError("downstream report merge: give at least one results file.")
    first = shards[0]
    for other in shards[1:]:
        differs = first.same_run(other)
        if differs:
            raise UserError(
                f"downstream report merge: the shards disagree on {differs} "
                f"({getattr(first, differs)!r} vs {getattr(other, differs)!r}); merge only the "
                "shards of one run."
            )
    found: dict[str, ConsumerResult] = {}
    for shard in shards:
        for r in shard.results:
            if r.name in found:
                raise UserError(f"downstream report merge: consumer {r.name!r} is in two shards.")
            found[r.name] = r
    missing = [c for c in first.consumers if c not in found]
    if missing:
        raise UserError(
            f"downstream report merge: no shard has {', '.join(missing)}; pass every shard's file."
        )
    return RunResults(
        first.package,
        first.candidate,
        first.candidate_identity,
        first.baseline,
        first.python,
        first.consumers,
        [found[c] for c in first.consumers],
        None,
        first.created,
        max(s.seconds for s in shards),
    )


@dataclass(frozen=True)
class Regression:
    """A regression (a test, or ``<install>``) and what the known-failures list says of it."""

    consumer: ConsumerResult
    nodeid: str
    message: str
    match: known.Match


@dataclass
class Judgement:
    """What the gate decides: blocking regressions, accepted ones, consumers not verified,
    notes."""

    blocking: list[Regression] = field(default_factory=list)
    accepted: list[Regression] = field(default_factory=list)
    unverified: list[ConsumerResult] = field(default_factory=list)
    """Consumers, not optional, whose tests did not run on a side: each fails the gate."""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.blocking and not self.unverified


def judge(
    run: RunResults, entries: Sequence[known.KnownTestFailure], today: dt.date | None = None
) -> Judgement:
    """Every confirmed regression, and every candidate-only install failure, is blocking
    unless a live known-failure entry covers it; every consumer not verified is blocking unless
    it is optional. A test a live ``[[flaky]]`` entry declares is made ``spurious`` in ``run``
    first (in place: the results show what the gate decided)."""
    today = today or dt.date.today()
    out = Judgement()
    used = declared_flaky(run, entries, today)
    for r in run.results:
        if r.not_verified:
            if r.optional:
                sides = ", ".join(r.not_verified)
                out.notes.append(f"optional consumer {r.name} not verified ({sides})")
            else:
                out.unverified.append(r)
        found = [(v.nodeid, v.message) for v in r.tests(PairVerdict.REGRESSED)]
        if r.install_regressed:
            found.append((known.INSTALL, r.install["candidate"]))
        for nodeid, message in found:
            m = known.match(entries, r.name, nodeid, today)
            (out.accepted if m.accepted else out.blocking).append(Regression(r, nodeid, message, m))
            if m.entry is not None:
                used.append(m.entry)
    out.notes += known.stale(entries, used, today)
    return out


def declared_flaky(
    run: RunResults, entries: Sequence[known.KnownTestFailure], today: dt.date
) -> list[known.KnownTestFailure]:
    """Make every ``regressed`` or ``fixed`` test that a live ``[[flaky]]`` entry declares
    ``spurious``, saying so; the entries that covered a test of the run."""
    used: list[known.KnownTestFailure] = []
    for r in run.results:
        for i, v in enumerate(r.verdicts):
            m = known.match(entries, r.name, v.nodeid, today, known.FLAKY)
            if m.entry is None:
                continue
            used.append(m.entry)
            if v.verdict in (PairVerdict.REGRESSED, PairVerdict.FIXED):
                note = f"declared flaky: {m.entry.describe()}; first seen {v.verdict.value}"
                r.verdicts[i] = CaseVerdict(
                    v.nodeid, PairVerdict.SPURIOUS, v.baseline, v.candidate, v.message, note
                )
    return used


def totals(results: Iterable[ConsumerResult]) -> dict[str, int]:
    """Tests by verdict over every compared consumer (tests only), module- and run-level
    failures (``levels``), consumers by status and those ``not verified``."""
    out: dict[str, int] = {v.value: 0 for v in PairVerdict}
    out["levels"] = out["not verified"] = 0
    for r in results:
        for verdict, n in counts(r.verdicts).items():
            out[verdict.value] += n
        out["levels"] += len(levels(r.verdicts))
        out["not verified"] += 1 if r.not_verified else 0
        out[r.status] = out.get(r.status, 0) + 1
    return out
