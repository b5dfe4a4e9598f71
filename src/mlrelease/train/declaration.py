"""The train file: a train declared as data (pure but for reading the file).

One TOML file says what a train releases, and everything else is read from the members'
origins and the indexes::

    name = "pytorch-2.5"
    staging-index = "https://test.pypi.org/legacy/"   # where members' RCs are staged
    release-index = "https://upload.pypi.org/legacy/"
    cut-after = "upstream-rc-staged"      # a member cuts after its upstream's RC1 is staged

    [series]                              # the members' release-only edits may use these
    upstream_series = "2.5"               # replace = "@release/{upstream_series}"

    [[members]]
    name = "torch"
    origin = "https://github.com/pytorch/pytorch.git"
    version = "2.5.0"

    [[members]]
    name = "torchvision"
    origin = "https://github.com/pytorch/vision.git"
    version = "0.20.0"
    upstream = ["torch ==2.5.0"]          # its edges: PEP 508, each naming a member
    gaps = [{ variant = "3.13-*", reason = "3.13 is experimental in torch 2.5" }]

A member ships every variant (Python x platform x accelerator, :mod:`.variants`) its upstream
ships, unless a gap declares it. Every error names the key, what was expected and the fix.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from mlrelease import toml_tables
from mlrelease.config import read_toml
from mlrelease.edges.index import simple_url
from mlrelease.errors import ConfigError

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Gap:
    """A variant a member does not ship although its upstream does, declared with the reason."""

    variant: str
    """A pattern over variant names (``3.13-*``, ``*-macos-x86_64-*``; :mod:`.variants`)."""
    reason: str
    upstream: str = ""
    """The upstream whose variant it is; empty: any."""


@dataclass(frozen=True)
class Member:
    """One repository of the train: its distribution, origin, version and upstream edges."""

    name: str
    """Its distribution name (``[project] name``)."""
    origin: str
    """The git URL of its origin: its branches, RC tags, bindings and final tag."""
    version: str
    """The version this train releases."""
    upstream: list[str] = field(default_factory=list)
    """Its edges, PEP 508 requirements on other members (``torch ==2.5.0``)."""
    gaps: list[Gap] = field(default_factory=list)
    accelerators: dict[str, str] = field(default_factory=dict)
    """platform -> accelerator of its files without a local version label (``linux-x86_64 =
    "cu124"``); other platforms: ``cpu``."""

    @property
    def key(self) -> str:
        return canonicalize_name(self.name)

    def edges(self) -> list[Requirement]:
        return [Requirement(text) for text in self.upstream]


@dataclass(frozen=True)
class Train:
    """A train file, parsed and checked."""

    name: str
    staging_index: str
    """The upload URL of the index members' RCs are staged on (``release publish --channel
    rc``): upstream files are resolved from it alone."""
    release_index: str
    """The upload URL of the index the train is released to."""
    members: list[Member]
    cut_after: Literal["upstream-rc-staged", "upstream-final", "anytime"] = "upstream-rc-staged"
    series: dict[str, str] = field(default_factory=dict)
    """Parameters of the members' release-only edits (``{upstream_series}``)."""
    source: str = field(default="", metadata={"toml": False})

    def member(self, name: str) -> Member:
        found = next((m for m in self.members if m.key == canonicalize_name(name)), None)
        if found is None:
            known = ", ".join(m.name for m in self.members)
            raise ConfigError(
                "members", f"a member named {name!r}", f"only {known}", source=self.source
            )
        return found

    def upstreams(self, member: Member) -> list[Member]:
        """The members ``member``'s edges name, in the train file's order."""
        wanted = {canonicalize_name(r.name) for r in member.edges()}
        return [m for m in self.members if m.key in wanted]

    def ordered(self) -> list[Member]:
        """The members in dependency order: every upstream before its members (in the file's
        order otherwise); members on a circle (refused by :func:`check`) last."""
        done, left = _order(self)
        return done + left


def _order(train: Train) -> tuple[list[Member], list[Member]]:
    """(the members in dependency order, the members left on a circle)."""
    done: list[Member] = []
    while True:
        ready = next(
            (
                m
                for m in train.members
                if m not in done and all(u in done for u in train.upstreams(m))
            ),
            None,
        )
        if ready is None:
            return done, [m for m in train.members if m not in done]
        done.append(ready)


def load(path: Path) -> Train:
    """The train file at ``path``, parsed and checked."""
    if not path.is_file():
        raise ConfigError(
            "train file",
            "a train file (name, staging-index, release-index, [[members]])",
            "no such file",
            source=str(path),
            hint="Give --train PATH, or set [tool.mlrelease.train] file.",
        )
    source = str(path)
    train = toml_tables.parse_section(Train, read_toml(path), prefix="train", source=source)
    train = dataclasses.replace(train, source=source)
    check(train)
    return train


def _fail(key: str, expected: str, found: str, train: Train, hint: str = "") -> ConfigError:
    return ConfigError(key, expected, found, source=train.source, hint=hint)


def check(train: Train) -> None:
    """Refuse what the types cannot say: see the module docstring."""
    if simple_url(train.staging_index) == simple_url(train.release_index):
        raise _fail(
            "staging-index",
            "another index than release-index",
            repr(train.staging_index),
            train,
            "Release candidates are staged apart from the release, or a candidate is released.",
        )
    for name in train.series:
        if not IDENTIFIER.fullmatch(name):
            raise _fail(f"series.{name}", "a name of letters, digits and _", repr(name), train)
    seen: dict[str, int] = {}
    for i, member in enumerate(train.members):
        if member.key in seen:
            raise _fail(
                f"members[{i}].name",
                "a name no other member has",
                f"{member.name!r}, also members[{seen[member.key]}]",
                train,
            )
        seen[member.key] = i
        _check_member(train, i, member)
    for i, member in enumerate(train.members):
        _check_edges(train, i, member)
    _check_circles(train)


def _check_member(train: Train, i: int, member: Member) -> None:
    try:
        Version(member.version)
    except InvalidVersion:
        raise _fail(
            f"members[{i}].version", "a PEP 440 version (0.20.0)", repr(member.version), train
        ) from None
    for j, gap in enumerate(member.gaps):
        if not gap.reason.strip():
            raise _fail(
                f"members[{i}].gaps[{j}].reason",
                "why the member does not ship the variant",
                "an empty string",
                train,
            )


def _check_edges(train: Train, i: int, member: Member) -> None:
    known = {m.key: m for m in train.members}
    for j, text in enumerate(member.upstream):
        key = f"members[{i}].upstream[{j}]"
        try:
            edge = Requirement(text)
        except InvalidRequirement as exc:
            expected = "a PEP 508 requirement (torch ==2.5.0)"
            raise _fail(key, expected, repr(text), train, str(exc)) from None
        upstream = known.get(canonicalize_name(edge.name))
        if upstream is None or upstream is member:
            others = ", ".join(m.name for m in train.members if m is not member)
            raise _fail(key, f"a requirement on another member ({others})", repr(text), train)
        if not edge.specifier.contains(Version(upstream.version), prereleases=True):
            raise _fail(
                key,
                f"a requirement the train's {upstream.name} {upstream.version} meets",
                repr(text),
                train,
                f"The train releases {upstream.name} {upstream.version}: change the edge or the "
                "version.",
            )
    for j, gap in enumerate(member.gaps):
        if gap.upstream and canonicalize_name(gap.upstream) not in {
            canonicalize_name(r.name) for r in member.edges()
        }:
            raise _fail(
                f"members[{i}].gaps[{j}].upstream",
                f"one of {member.name}'s upstreams",
                repr(gap.upstream),
                train,
            )


def _check_circles(train: Train) -> None:
    _, left = _order(train)
    if left:
        raise _fail(
            "members",
            "upstream edges without a circle",
            f"a circle among {', '.join(m.name for m in left)}",
            train,
            "A member cannot be released after itself: remove one edge.",
        )
