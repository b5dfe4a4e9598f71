"""Turn a :class:`~mlrelease.init.detect.Detection` into the TOML ``init`` proposes (pure)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease.downstream import propose as downstream
from mlrelease.init import kept_table
from mlrelease.init.detect import Detection
from mlrelease.init.version_source import VersionFile

PEP440_PARSE = r"""(?x)
    (?P<major>\d+)\.(?P<minor>\d+)\.(?P<patch>\d+)
    (?:(?P<pre_l>\.dev|a|b|rc)(?P<pre_n>\d+))?
    (?:(?P<post_l>\.post)(?P<post_n>\d+))?
    (?:(?P<dev_l>\.dev)(?P<dev_n>\d+))?
"""
"""bump-my-version's ``parse`` for every PEP 440 release marker of X.Y.Z: a pre-release
(``aN``, ``bN``, ``rcN``) or a development release alone (``.devN``: the first stage, bumped to
``a``, ``b``, ``rc``, then final), then a post-release (``.postN``), then a development release of
either (``X.Y.Za1.dev0``, ``X.Y.Z.post1.dev0``). Every canonical PEP 440 version of three
release numbers round-trips (tests/unit/init/test_propose.py, against ``packaging``)."""

_PRE, _POST, _DEV = "{pre_l}{pre_n}", "{post_l}{post_n}", "{dev_l}{dev_n}"
PEP440_SERIALIZE = [
    "{major}.{minor}.{patch}" + markers
    for markers in (
        _PRE + _POST + _DEV,
        _PRE + _POST,
        _PRE + _DEV,
        _POST + _DEV,
        _PRE,
        _POST,
        _DEV,
        "",
    )
]
"""Every combination of the three markers, fullest first: bump-my-version writes a version
with the first format that shows each of its non-optional parts."""

PEP440_PARTS = {
    "pre_l": {"values": [".dev", "a", "b", "rc", "final"], "optional_value": "final"},
    "post_l": {"values": ["", ".post"], "optional_value": ""},
    "dev_l": {"values": ["", ".dev"], "optional_value": ""},
}
"""The labels' parts: ``pre_l`` is the release stage (``.dev`` -> ``a`` -> ``b`` -> ``rc`` ->
final, the optional value); ``post_l`` and ``dev_l`` are shown only when set."""


@dataclass
class Proposal:
    """What ``init`` would add to ``pyproject.toml``, and what it leaves to the maintainer."""

    text: str
    """The TOML appended to pyproject.toml."""
    gates: list[str]
    new_files: list[str] = field(default_factory=list)
    """Files the project may want to add (``init`` never writes them)."""
    notes: list[str] = field(default_factory=list)
    """Why some gates are left out, and what else to do."""


def gates_for(d: Detection) -> tuple[list[str], list[str]]:
    """The gates the project can be held to now, and notes on the ones left out."""
    gates = ["git_state", "versions"]
    notes: list[str] = []
    if d.changelog:
        gates.append("changelog")
    elif d.stale_changelog:
        notes.append(
            f"changelog is left out: {d.stale_changelog} stopped at an older release (its "
            "release notes are kept elsewhere); add an Unreleased section to it, then add the "
            "gate, to keep it again."
        )
    gates.append("wheels")
    if d.test_command:
        gates.append("tests")
    notes.append(
        "exit_criteria_doc is left out: run `mlrelease gates doc --execute` to write "
        "docs/release/exit-criteria.md, commit it, then add the gate."
    )
    if d.onnx:
        notes.append(
            "compat is left out: the project uses onnx; set [tool.mlrelease.compat] ir-version "
            "and opsets to what its exporters stamp, then add the gate (unset, it checks the "
            "installed onnx's defaults, which are not the project's)."
        )
    if d.docs:
        notes.append(
            f"docs is left out: the Sphinx site in {d.docs}/ needs its own requirements in the "
            "release environment; add the gate when they are installed."
        )
    return gates, notes


def _value(value: Any) -> str:
    """A TOML value: strings as basic strings (JSON's escapes are TOML's), lists, booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def section(header: str, values: Mapping[str, Any]) -> str:
    lines = [header]
    for key, value in values.items():
        lines.append(f"{key} = {value if isinstance(value, _Raw) else _value(value)}")
    return "\n".join(lines) + "\n"


class _Raw(str):
    """A TOML value written as is (the multi-line literal ``parse`` pattern)."""


def propose(
    d: Detection,
    pyproject: Mapping[str, Any],
    *,
    required_platforms: list[str] | None = None,
    text: str = "",
    other: tuple[str, str] | None = None,
) -> Proposal:
    """The ``[tool.mlrelease]`` and ``[tool.bumpversion]`` tables describing the repository.

    ``pyproject`` is the parsed current file and ``text`` its text: a ``[tool.bumpversion]``
    table already there is kept (the project's own truth), not proposed again; the version
    files it does not name are added to it, or named (:mod:`.kept_table`). ``other``: the name
    and text of another file that configures bump-my-version, whose entries the proposed
    table carries.
    """
    gates, notes = gates_for(d)
    new_files: list[str] = []
    if not d.changelog and not d.stale_changelog:
        new_files.append("CHANGELOG.md (then add `changelog` to gates)")
    new_files.append("docs/release/exit-criteria.md (`mlrelease gates doc`)")
    main = _mlrelease_table(d, pyproject, gates, notes)
    wheels = _wheels_table(d, required_platforms)
    release: dict[str, object] = {
        "model": d.model.name,
        "main-branch": d.model.main_branch,
        "branch": d.model.branch,
        "tag": d.tags.tag,
        "rc-tag": d.tags.rc_tag,
    }
    if d.rc.name == "bump":
        release["rc-model"] = "bump"
        if d.rc.tagged:
            release["rc-tagged"] = True
    if d.tags.rc_first == 0:
        release["rc-first"] = 0
    if d.picks != "trailer":
        release["picks"] = d.picks
    if d.upstream:
        release["upstream"] = d.upstream
    notes += d.edits_notes + d.publish_notes
    parts = [
        "# Added by `mlrelease init`; `mlrelease init` (dry run) says why.\n",
        section("[tool.mlrelease]", main),
        section("[tool.mlrelease.wheels]", wheels),
        section("[tool.mlrelease.release]", release),
        *(
            section("[[tool.mlrelease.release.edits]]", dataclasses.asdict(e))
            for e in d.release_edits
        ),
    ]
    if d.docs and d.docs != "docs":
        parts.append(section("[tool.mlrelease.docs]", {"source": d.docs}))
    if d.test_command:
        parts.append(section("[tool.mlrelease.gate-options.tests]", {"command": d.test_command}))
    parts += _downstream(d.name or "", notes)
    parts += _version_tables(d, pyproject, text, other, notes)
    if d.version.kind == "unknown":
        notes.append(
            "No version was found: set tool.bumpversion.current_version and list the files "
            "that carry it under [[tool.bumpversion.files]]."
        )
    return Proposal("\n".join(parts), gates, new_files, notes)


def _mlrelease_table(
    d: Detection, pyproject: Mapping[str, Any], gates: list[str], notes: list[str]
) -> dict[str, Any]:
    """``[tool.mlrelease]``: the gates, the changelog, where the version comes from, and the
    distribution name when only setup.py or setup.cfg gives it (a note when nothing does)."""
    main: dict[str, Any] = {"gates": gates}
    if d.changelog:
        main["changelog"] = d.changelog
    if d.version.from_tags:
        main["version-source"] = "scm"
    elif d.version.built_from_tag:  # release tags sit on commits carrying a marker
        main["version-source"] = "tag"
    if d.name and not pyproject.get("project", {}).get("name"):
        main["distribution"] = d.name  # from setup.py or setup.cfg: gates need it
    elif not d.name:
        notes.append(
            "No distribution name found without running the build ([project] name, setup.cfg "
            "[metadata] name, or a literal / constant name= in setup.py): set "
            '[tool.mlrelease] distribution = "<name>" (the wheels gate and the report need it).'
        )
    return main


def _wheels_table(d: Detection, required_platforms: list[str] | None) -> dict[str, Any]:
    """``[tool.mlrelease.wheels]``: the build kind, and the platforms a release must cover."""
    wheels: dict[str, Any] = {"kind": d.build.kind}
    if d.build.builder == "external":
        # Built by the project's own workflow or script: the gate audits, never plans.
        wheels.update({"builder": "external", "built-by": d.build.built_by})
        wheels["required-platforms"] = list(d.build.platforms)
    elif d.build.kind == "pure" and not d.build.cibuildwheel:
        # One py3-none-any wheel, built once: no platform matrix to cover.
        wheels["required-platforms"] = []
    elif required_platforms is not None:
        wheels["required-platforms"] = required_platforms
    return wheels


def _downstream(name: str, notes: list[str]) -> list[str]:
    """The consumers known for the project: its release candidates are run against them."""
    consumers = downstream.consumers(name)
    if not consumers:
        return []
    notes.append(
        f"downstream is left out of gates: {len(consumers)} known consumers of {name} are "
        "proposed; run `mlrelease downstream run --candidate dist` once on a built candidate, "
        "review each consumer's test selection, then add the gate (git consumers need their "
        "repository host reachable; pin each ref to the consumer's release)."
    )
    parts = [
        section(
            "[tool.mlrelease.downstream]", {"known-failures": "ci/downstream_known_failures.toml"}
        )
    ]
    for consumer in consumers:
        values = {k: _Raw(_multiline(v)) if k == "command" else v for k, v in consumer.items()}
        parts.append(section("[[tool.mlrelease.downstream.consumers]]", values))
    return parts


def _multiline(command: list[str]) -> str:
    """A command whose last argument is a script: the script as a TOML multi-line literal."""
    *head, script = command
    fence = "'" * 3
    return "[" + ", ".join([*(_value(h) for h in head), fence + script + fence]) + "]"


def _version_tables(
    d: Detection,
    pyproject: Mapping[str, Any],
    text: str,
    other: tuple[str, str] | None,
    notes: list[str],
) -> list[str]:
    """``[tool.bumpversion]`` and its files: proposed (carrying ``other``'s entries), or the
    project's own kept and completed; a note for each version place left as it is."""
    parts: list[str] = []
    table = pyproject.get("tool", {}).get("bumpversion")
    carried = _carried(other, notes) if table is None else []
    if table is None:
        parts += _bumpversion(d, carried)
        current = d.version.current
        if current and not re.fullmatch(PEP440_PARSE, current):
            notes.append(
                f"the version {current} is not X.Y.Z with a PEP 440 marker, which the proposed "
                "tool.bumpversion.parse reads (and release branches and tags name three "
                "release numbers): the `versions` gate and every bump refuse it until the "
                f"version files and current_version say it with three numbers (for {current}: "
                f"{_three(current)}), by hand."
            )
    else:
        parts += _kept_bumpversion(d, table, text, notes)
        if other is not None:
            notes.append(
                f"{other[0]} configures bump-my-version too, and bump-my-version reads it before "
                "pyproject.toml: the `versions` gate, and every bump, refuse it. Move what it "
                "lists into [tool.bumpversion], then delete it"
                + (" (its [bumpversion] sections)." if other[0] == "setup.cfg" else ".")
            )
    moved = {e.get("filename") for e in carried}  # the project's own entry moves these
    notes += [
        f"version left as it is: {place}"
        for place in d.version.left
        if place.split(":", 1)[0] not in moved
    ]
    return parts


def _kept_bumpversion(
    d: Detection, table: Mapping[str, Any], text: str, notes: list[str]
) -> list[str]:
    """The entries of the version files the project's own table does not name, and a note for
    each gap in it."""
    notes.append("[tool.bumpversion] already exists: kept as it is.")
    partial = kept_table.partial_parse(table)
    if partial:
        notes.append(
            f"tool.bumpversion.current_version is {table['current_version']!r}, and {partial}: "
            "a bump would look for and rewrite only that, so the `versions` gate and every bump "
            "refuse it. Give [tool.bumpversion] a parse and serialize that read it whole (for "
            "PEP 440 versions, the ones `mlrelease init` proposes to a project without the "
            "table: docs/configuration.md)."
        )
    for path, pattern in kept_table.globbed_copies(d.version.left, table):
        notes.append(
            f"{path} is a copy of another project, and tool.bumpversion's glob {pattern!r} "
            "matches it: every bump rewrites that project's version. Narrow the glob, or name "
            "this project's files one by one."
        )
    missing = kept_table.unlisted(d.version.files, table)
    if not missing:
        return []
    named = ", ".join(vf.filename for vf in missing)
    entries = [section("[[tool.bumpversion.files]]", _file_entry(vf)) for vf in missing]
    if kept_table.files_can_grow(table, text):
        notes.append(
            f"{named}: carries the version, and no [[tool.bumpversion.files]] entry names it: "
            "its entry is added, so that a bump rewrites it too."
        )
        return entries
    notes.append(
        f"{named}: carries the version, and tool.bumpversion.files (an inline array, which "
        "cannot be added to from the end of the file) does not name it: a bump would leave it. "
        "Add to that array: " + ", ".join(_inline(_file_entry(vf)) for vf in missing)
    )
    return []


def _three(version: str) -> str:
    """``version`` with three release numbers (``1.2`` -> ``1.2.0``), where it is PEP 440."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return "X.Y.Z"
    numbers = ".".join(str(n) for n in (*parsed.release, 0, 0)[:3])
    return numbers + version[len(".".join(map(str, parsed.release))) :]


def _inline(entry: Mapping[str, Any]) -> str:
    """``entry`` as a TOML inline table, to paste into an inline array."""
    return "{" + ", ".join(f"{k} = {_value(v)}" for k, v in entry.items()) + "}"


def _file_entry(vf: VersionFile) -> dict[str, Any]:
    """The ``[[tool.bumpversion.files]]`` entry of a version file: its exact search."""
    entry: dict[str, Any] = {"filename": vf.filename, "search": vf.search, "replace": vf.replace}
    if vf.regex:
        entry["regex"] = True
    return entry


def _carried(other: tuple[str, str] | None, notes: list[str]) -> list[dict[str, Any]]:
    """The entries of the project's other bump-my-version configuration, with a note."""
    entries = kept_table.other_entries(*other) if other else None
    if other is None or entries is None:
        return []
    name = other[0]
    gone = "its [bumpversion] sections" if name == "setup.cfg" else "it"
    notes.append(
        f"{name} configures bump-my-version: its {len(entries)} file entries are carried into "
        "[tool.bumpversion] below (its parse and serialize are not: the table has PEP 440 ones). "
        f"mlrelease reads and writes the version by pyproject.toml's table alone, and the "
        f"`versions` gate refuses {name} while it configures bump-my-version: delete {gone} "
        "once the table is committed."
    )
    return entries


def _bumpversion(d: Detection, carried: list[dict[str, Any]]) -> list[str]:
    parts = [
        section(
            "[tool.bumpversion]",
            {
                "current_version": d.version.current or "0.0.0",
                "parse": _Raw("'''" + PEP440_PARSE + "'''"),
                "serialize": PEP440_SERIALIZE,
                "commit": False,
                "tag": False,
                "allow_dirty": False,
            },
        ),
        *(section(f"[tool.bumpversion.parts.{k}]", v) for k, v in PEP440_PARTS.items()),
    ]
    # The project's own entry of a file, by its name or a glob, comes first: bump-my-version
    # rewrites a file twice listed once, then finds no old version in it and fails.
    for vf in kept_table.unlisted(d.version.files, {"files": carried}):
        parts.append(section("[[tool.bumpversion.files]]", _file_entry(vf)))
    parts += [section("[[tool.bumpversion.files]]", entry) for entry in carried]
    return parts
