"""Branch and tag names: templates such as ``v{major}.{minor}.{patch}-rc{rc}`` compiled into
patterns that make names and parse them back (pure).

A malformed tag (``v1.4.0rc1`` where ``v1.4.0-rc1`` is configured) parses as nothing, so it is
refused instead of silently created. The templates are read from ``[tool.mlrelease.release]``;
:class:`Names` is compiled once per configuration (:attr:`mlrelease.config.Config.names`) and
handed to every user: commands through their configuration, gates through their
:class:`~mlrelease.gates.Context`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from packaging.version import Version

from mlrelease.errors import ConfigError

TABLE = "tool.mlrelease.release"
"""The table the templates are read from (named in errors)."""

DEFAULT_BRANCH = "release/{major}.{minor}"
DEFAULT_TAG = "v{major}.{minor}.{patch}"
DEFAULT_RC_TAG = "v{major}.{minor}.{patch}-rc{rc}"

_FIELD = {
    "major": r"(?P<major>0|[1-9][0-9]*)",
    "minor": r"(?P<minor>0|[1-9][0-9]*)",
    "patch": r"(?P<patch>0|[1-9][0-9]*)",
    # Release candidates may start at 0 (torchdata tags v0.11.0-rc0); the next one is the
    # highest number + 1, so a flow that starts at 1 never makes an rc0.
    "rc": r"(?P<rc>0|[1-9][0-9]*)",
}
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
"""A ``{name}`` in a template."""
# Characters git refuses in ref names (git check-ref-format), plus whitespace.
_BAD_REF = re.compile(r"[\s~^:?*\[\\]|\.\.|@\{|//|^/|/$|\.lock$|^\.|/\.")


@dataclass(frozen=True)
class Pattern:
    """A name template (``v{major}.{minor}.{patch}-rc{rc}``) and its compiled regex."""

    key: str
    template: str
    regex: re.Pattern[str]

    @classmethod
    def compile(cls, key: str, template: str, required: tuple[str, ...], source: str) -> Pattern:
        names = PLACEHOLDER.findall(template)
        unknown = [n for n in names if n not in required]
        missing = [n for n in required if n not in names]
        example = "".join(f"{{{n}}}" for n in required)
        if unknown or missing or len(names) != len(set(names)):
            raise ConfigError(
                f"{TABLE}.{key}",
                f"a name with each of {example} once and no other placeholder",
                repr(template),
                source=source,
            )
        # Adjacent placeholders ({major}{minor}) could not be parsed back unambiguously.
        if "}{" in template or _BAD_REF.search(PLACEHOLDER.sub("0", template)):
            raise ConfigError(
                f"{TABLE}.{key}",
                "a valid git ref name (see `git check-ref-format`) with text between placeholders",
                repr(template),
                source=source,
            )
        pieces = re.split(r"(\{[^{}]*\})", template)
        body = "".join(_FIELD[p[1:-1]] if p.startswith("{") else re.escape(p) for p in pieces)
        return cls(key, template, re.compile(f"^{body}$"))

    def format(self, **values: int) -> str:
        return self.template.format(**values)

    def parse(self, name: str) -> dict[str, int] | None:
        match = self.regex.match(name)
        return {k: int(v) for k, v in match.groupdict().items()} if match else None


RELEASE_TAG = re.compile(
    r"^(?P<prefix>[A-Za-z_/-]*?)(?P<base>\d+\.\d+\.\d+)"
    r"(?:(?P<sep>-rc|rc|\.rc|-rc\.|-RC)(?P<rc>\d+))?$",
    re.ASCII,  # \d is 0-9 only: a tag spelt in Arabic-Indic or fullwidth digits is no release
)
"""Every release tag spelling ``mlrelease init`` reads and may propose: a prefix (``v``, none,
``release-``), ``X.Y.Z``, and an RC separator (``-rc``, ``rc``, ``.rc``, ``-rc.``, ``-RC``)."""


def parse_release_tag(name: str) -> Version | None:
    """``v1.4.0-rc2``, ``v1.4.0rc2``, ``1.4.0.rc2`` -> ``1.4.0rc2``; ``v1.4.0`` -> ``1.4.0``;
    None for a name that is no release tag in any spelling init may propose."""
    match = RELEASE_TAG.match(name)
    if not match:
        return None
    return Version(match["base"] + (f"rc{match['rc']}" if match["rc"] is not None else ""))


@runtime_checkable
class Templates(Protocol):
    """A configuration table that spells branch and tag names (``[tool.mlrelease.release]``)."""

    @property
    def branch(self) -> str: ...

    @property
    def tag(self) -> str: ...

    @property
    def rc_tag(self) -> str: ...


@dataclass(frozen=True)
class Names:
    """Branch and tag names of the configured flow."""

    branch: Pattern
    tag: Pattern
    rc_tag: Pattern

    @classmethod
    def compile(
        cls,
        source: str,
        branch: str = DEFAULT_BRANCH,
        tag: str = DEFAULT_TAG,
        rc_tag: str = DEFAULT_RC_TAG,
    ) -> Names:
        """Compile the templates; a malformed one is a :class:`ConfigError` naming its key."""
        # Branches may be per patch release (rel-{major}.{minor}.{patch}), as ONNX cuts them.
        per_patch = "{patch}" in branch
        branch_fields = ("major", "minor", "patch") if per_patch else ("major", "minor")
        return cls(
            Pattern.compile("branch", branch, branch_fields, source),
            Pattern.compile("tag", tag, ("major", "minor", "patch"), source),
            Pattern.compile("rc-tag", rc_tag, ("major", "minor", "patch", "rc"), source),
        )

    @classmethod
    def of(cls, templates: Templates, source: str) -> Names:
        """Compile the templates of a table that spells them (see :class:`Templates`)."""
        return cls.compile(source, templates.branch, templates.tag, templates.rc_tag)

    def branch_for(self, series: tuple[int, int], patch: int = 0) -> str:
        if "{patch}" in self.branch.template:
            return self.branch.format(major=series[0], minor=series[1], patch=patch)
        return self.branch.format(major=series[0], minor=series[1])

    def series_of_branch(self, name: str | None) -> tuple[int, int] | None:
        parsed = self.branch.parse(name) if name else None
        return (parsed["major"], parsed["minor"]) if parsed else None

    def final_tag(self, version: Version) -> str:
        major, minor, patch = release_triple(version)
        return self.tag.format(major=major, minor=minor, patch=patch)

    def rc_tag_for(self, version: Version, number: int) -> str:
        major, minor, patch = release_triple(version)
        return self.rc_tag.format(major=major, minor=minor, patch=patch, rc=number)

    def tag_of(self, version: Version) -> str:
        """The final tag of a release, the RC tag of a release candidate."""
        if version.pre is not None:
            return self.rc_tag_for(version, version.pre[1])
        return self.final_tag(version)

    def parse_tag(self, name: str) -> tuple[Version, int | None] | None:
        """``v1.4.0-rc2`` -> (1.4.0, 2); ``v1.4.0`` -> (1.4.0, None); None for other names."""
        rc = self.rc_tag.parse(name)
        if rc is not None:
            return Version(f"{rc['major']}.{rc['minor']}.{rc['patch']}"), rc["rc"]
        final = self.tag.parse(name)
        if final is not None:
            return Version(f"{final['major']}.{final['minor']}.{final['patch']}"), None
        return None

    def read_tag(self, name: str) -> tuple[Version, int | None] | None:
        """The release a tag names, in any spelling the project has used: the configured
        pattern (:meth:`parse_tag`), or the same prefix with or without its ``v`` and any RC
        separator ``init`` reads (sklearn-onnx tags both ``v1.19.1`` and ``1.20.0``); None
        for other names. A release is known by its version: new tags are still made, and
        ``--tag`` arguments still read, in the configured spelling only."""
        parsed = self.parse_tag(name)
        if parsed is not None:
            return parsed
        match = RELEASE_TAG.match(name)
        prefix = self.tag.template.partition("{")[0]
        spellings = {prefix, prefix[:-1] if prefix.endswith("v") else prefix + "v"}
        if match is None or match["prefix"] not in spellings:
            return None
        return Version(match["base"]), int(match["rc"]) if match["rc"] is not None else None

    def release_tag(self, version: Version, tags: Iterable[str]) -> str | None:
        """The final tag among ``tags`` that released ``version``, in any spelling the project
        has used (the configured one first); None when none did."""
        named = set(tags)
        if self.final_tag(version) in named:
            return self.final_tag(version)
        return next((n for n in sorted(named) if self.read_tag(n) == (version, None)), None)

    def newest_final(self, tags: Iterable[str]) -> Version | None:
        """The newest version of the final tags among ``tags``, in any spelling the project
        has used (None: nothing released)."""
        parsed = (self.read_tag(name) for name in tags)
        return max((p[0] for p in parsed if p is not None and p[1] is None), default=None)


def release_triple(version: Version) -> tuple[int, int, int]:
    """(major, minor, patch) of a version, padded with zeros."""
    parts = (*version.release, 0, 0)
    return parts[0], parts[1], parts[2]
