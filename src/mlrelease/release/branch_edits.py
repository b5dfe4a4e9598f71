"""The release-only edits of a release branch (pure: decided on a :class:`~.world.snapshot.World`):
which edits a branch still lacks, one per file; the placeholders they fill in (the branch's
name and series, and ``{upstream_series}``, the series of the project the release pairs with:
given to ``release cut --upstream``, or read back from what an existing branch already says, so
that no advice reverts a maintainer's newer edit); and an edit whose file a commit deleted,
which belongs to the series that had the file and stops nothing."""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Mapping

from mlrelease.config import Config
from mlrelease.errors import ConfigError
from mlrelease.release import edits as editing
from mlrelease.release.config import TABLE, ReleaseConfig, ReleaseEdit, is_glob, parse_series
from mlrelease.release.world.snapshot import World

UPSTREAM = "upstream_series"
"""The placeholder of the upstream project's series (``{upstream_series}``)."""


def uses_upstream(edit: ReleaseEdit) -> bool:
    """Whether the edit's replacement names the upstream series the release pairs with."""
    return any(name == UPSTREAM for _, name, _, _ in string.Formatter().parse(edit.replace))


def check_edits(config: Config, params: Mapping[str, str]) -> None:
    """Refuse an edit whose ``replace`` names an unknown placeholder (``params``: a release
    train's series parameters) or whose ``search`` is no valid regular expression
    (``regex``), naming the key."""
    source = str(config.pyproject_path)
    # A train's parameters may name the upstream series too (``mlrelease train cut``).
    known = dict.fromkeys([*params, "branch", "series", "major", "minor", UPSTREAM], "")
    for i, edit in enumerate(config.table(ReleaseConfig).edits):
        try:
            edit.replace.format(**known)
            if edit.regex:
                re.compile(edit.search)
        except (KeyError, IndexError, ValueError, re.error) as exc:
            raise ConfigError(
                f"{TABLE}.edits[{i}]",
                "a valid search/replace pair",
                f"{edit!r} ({exc})",
                source=source,
                hint="A release train's series parameter is filled in by `mlrelease train cut`.",
            ) from None


def needed(
    world: World, config: Config, base: str, values: dict[str, str], notes: list[str] | None = None
) -> list[ReleaseEdit]:
    """Step 3, the release-only edits still to make, checked against the branch (or what it
    will be created from): one per file, a glob's matches each. A file ``base`` lacks that the
    history had (a commit deleted it) is no error: the edit belongs to the series that had the
    file (``notes`` says so); a name nothing ever had is a configuration error."""
    source, needed = str(config.pyproject_path), []
    # Whatever the upstream series, an edit must leave nothing for a second cut to do.
    checked = {UPSTREAM: "0.0", **values}
    for i, edit in enumerate(config.table(ReleaseConfig).edits):
        paths = world.files_matching(base, edit.file) if is_glob(edit.file) else (edit.file,)
        texts = {path: world.file_at(base, path) for path in paths}
        gone = not is_glob(edit.file) and texts[edit.file] is None
        if gone and world.ever_had(edit.file):
            if notes is not None:
                notes.append(
                    f"{edit.file} is not on {base} (a commit deleted it): its release-only "
                    "edit belongs to the series that had the file."
                )
            continue
        if not paths or None in texts.values():
            raise ConfigError(
                f"{TABLE}.edits[{i}].file",
                f"a file (or a glob matching files) on {base}",
                repr(edit.file),
                source=source,
            )
        for path, text in texts.items():
            one = dataclasses.replace(edit, file=path)
            if not editing.edit_needed(one, text or ""):
                continue
            if editing.edit_needed(one, editing.edit_text(one, text or "", checked)):
                raise ConfigError(
                    f"{TABLE}.edits[{i}]",
                    "an edit whose result no longer matches its search (so a second cut finds "
                    "nothing to do)",
                    repr(edit),
                    source=source,
                )
            needed.append(one)
    return needed


def values_for(
    branch: str, version: str, wanted: tuple[int, int], upstream: str | None
) -> dict[str, str]:
    """The placeholders a release-only edit's ``replace`` may name."""
    values = {"branch": branch, "series": version, "major": str(wanted[0]), "minor": str(wanted[1])}
    return {**values, UPSTREAM: upstream} if upstream else values


def with_upstream(
    world: World, config: Config, where: tuple[str, str], values: dict[str, str]
) -> dict[str, str]:
    """``values`` with the upstream series: as given, else as the existing branch already says
    it (so no edit of the maintainers' is ever reverted)."""
    branch, base = where
    if UPSTREAM in values or base != branch:
        return values
    said = branch_upstream(world, config, branch, values)
    return {**values, UPSTREAM: said} if said else values


def branch_upstream(world: World, config: Config, ref: str, values: dict[str, str]) -> str | None:
    """The upstream series an existing branch already says: the first place where the
    replacement of a release-only edit naming ``{upstream_series}`` is found in its files
    (torchvision's maintainers pinned ``@release/2.3`` on ``release/0.18``), read back; None
    when no file says one."""
    for edit in config.table(ReleaseConfig).edits:
        if not uses_upstream(edit):
            continue
        pattern = ""
        for literal, name, _, _ in string.Formatter().parse(edit.replace):
            pattern += re.escape(literal)
            if name == UPSTREAM:
                pattern += (
                    r"(?P<upstream>\d+\.\d+)" if "(?P<upstream>" not in pattern else r"\d+\.\d+"
                )
            elif name is not None:
                pattern += re.escape(values.get(name, ""))
        paths = world.files_matching(ref, edit.file) if is_glob(edit.file) else (edit.file,)
        for path in paths:
            found = re.search(pattern, world.file_at(ref, path) or "")
            if found:
                return found["upstream"]
    return None


def missing_edits(world: World, config: Config, version: str) -> list[str] | None:
    """The release-only edits an existing ``release/X.Y`` of ``version`` still lacks, one line
    each (``release status`` shows them), the upstream series as the branch says it; ``None``
    when none are declared or the branch does not exist yet (``cut`` will make them)."""
    wanted = parse_series(version)
    branch = config.names.branch_for(wanted)
    if not config.table(ReleaseConfig).edits or branch not in world.local.heads:
        return None
    values = values_for(branch, version, wanted, None)
    values = values_for(branch, version, wanted, branch_upstream(world, config, branch, values))
    shown = {UPSTREAM: "{upstream_series}", **values}
    return [
        f"{e.file}: {e.search!r} -> {e.replace.format(**shown)!r}"
        for e in needed(world, config, branch, values)
    ]


def cut_command(world: World, config: Config, version: str) -> str:
    """The ``release cut`` that commits the edits an existing branch lacks: with the upstream
    series the branch already says (never another, which would undo the maintainers' newer
    edit), or asking for it when the branch says none."""
    wanted = parse_series(version)
    branch = config.names.branch_for(wanted)
    command = f"mlrelease release cut --version {version}"
    if not any(uses_upstream(e) for e in config.table(ReleaseConfig).edits):
        return command
    said = branch_upstream(world, config, branch, values_for(branch, version, wanted, None))
    return f"{command} --upstream {said or 'X.Y'}"
