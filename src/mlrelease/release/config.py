"""``[tool.mlrelease.release]``: branch and tag names, the cherry-pick trailer, release-only edits
and the release checklist (pure: no git, no files).

Branch and tag names are templates with ``{major}``, ``{minor}``, ``{patch}`` and ``{rc}``
placeholders, compiled once per configuration by :mod:`mlrelease.naming`
(:attr:`mlrelease.config.Config.names`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from packaging.version import InvalidVersion, Version

from mlrelease.config import Config
from mlrelease.errors import ConfigError, Repair, UserError
from mlrelease.naming import (
    DEFAULT_BRANCH,
    DEFAULT_RC_TAG,
    DEFAULT_TAG,
    PLACEHOLDER,
    release_triple,
)
from mlrelease.naming import (
    TABLE as TABLE,
)
from mlrelease.release.checklist.steps import (
    DEFAULT_CHECKLIST,
    DEFAULT_CHERRY_PICK_RULES,
    DEFAULT_PATCH_CRITERIA,
    ChecklistStep,
)
from mlrelease.versions import VersionModel


@dataclass(frozen=True)
class ReleaseEdit:
    """A release-only edit that ``release cut`` commits on the new branch (e.g. pin doc links,
    PyTorch's workflow refs ``@main`` -> ``@release/X.Y``, nightly channels -> test channels)."""

    file: str
    """File to edit, relative to the project root; a glob (``.github/workflows/*.yml``; ``*``
    also crosses folders) edits every file of the branch it matches, and must match one."""
    search: str
    """Text to find (literal unless ``regex``)."""
    replace: str
    """Replacement; may use ``{branch}``, ``{series}``, ``{major}``, ``{minor}`` and
    ``{upstream_series}`` (the series of the project the release pairs with, ``upstream``)."""
    regex: bool = False


@dataclass(frozen=True)
class ReleaseConfig:
    """The ``[tool.mlrelease.release]`` table."""

    model: Literal["branch", "trunk"] = "branch"
    """``branch``: releases are cut to ``release/X.Y`` branches, RCs are tagged there and main
    moves to the next ``.dev`` (PyTorch, ONNX). ``trunk``: releases are tagged on main, which
    may carry the released version until the next bump."""
    main_branch: str = "main"
    """The development branch release branches are cut from."""
    remote: str = "origin"
    """Remote that ``--push`` pushes to and whose tags count as taken; "" to work locally."""
    branch: str = DEFAULT_BRANCH
    """Release branch names."""
    tag: str = DEFAULT_TAG
    """Final release tags."""
    rc_tag: str = DEFAULT_RC_TAG
    """Release-candidate tags."""
    rc_model: Literal["tag", "bump"] = "tag"
    """``tag``: a release candidate is a tag of the final version (``rc-tag``). ``bump``: it is
    a commit on the branch setting the version to ``X.Y.ZrcN``, with no tag (ONNX); the final
    release sets ``X.Y.Z`` and is tagged. Branch names may then carry ``{patch}`` (rel-X.Y.Z)."""
    rc_tagged: bool = False
    """Under ``rc-model = "bump"``: each candidate is also tagged (``rc-tag``) on a commit whose
    files say its ``X.Y.ZrcN``, as projects whose workflows build and publish on tags do
    (onnxoptimizer's ``v0.4.2rc1``). ``release rc`` then tags the candidate the files carry
    while it has no tag, and bumps to the next ``rcN`` once it has one (or when the files say
    the final version)."""
    rc_first: Literal[0, 1] = 1
    """The number of a version's first release candidate: 1 (``v1.4.0-rc1``), or 0 where the
    project numbers them from 0 (torchdata's ``v0.10.0-rc0``); the next one is always the
    newest's number + 1."""
    trailer: str = "Release-Target"
    """Commit trailer marking a fix on main for a release series (``Release-Target: 1.4``)."""
    picks: Literal["trailer", "milestone", "fixes"] = "trailer"
    """Which fixes on main the release wants (``release cherry-picks``): those with the trailer
    (``trailer``); also the pull requests and commits the milestone file lists (``milestone``:
    export a tracker's milestone or label into it); or every fix on main since the fork
    (``fixes``: a Conventional Commit ``fix`` or a subject starting with "fix"). The trailer
    counts under all three; other fixes since the fork are shown as not wanted."""
    milestone: str = "release-picks-{series}.txt"
    """The milestone file of ``picks = "milestone"`` (``{series}``: X.Y), read from the work
    tree: one pull request (``#1234``) or commit a line."""
    edits: list[ReleaseEdit] = field(default_factory=list)
    """Release-only edits committed on a new release branch."""
    upstream: str = ""
    """The project each release pairs with (``torch`` for a PyTorch domain library), named in
    messages: release-only edits name its series as ``{upstream_series}`` (torchvision's
    ``release/0.18`` pins pytorch/test-infra at ``release/2.3``), given at ``release cut
    --upstream X.Y`` for a new branch, read from an existing branch."""
    rc_report: str = "build/release-verify/report.json"
    """The release_verify report of the RC that ``release promote`` reads (``--report``)."""
    artifacts: str = "dist"
    """Folder of the RC's built (or downloaded) artifacts: what ``release bind`` binds, and
    where ``release publish`` imports them from into a fresh clone's store."""
    index: str = "https://upload.pypi.org/legacy/"
    """The release channel's index (its upload URL): the only index ``release publish`` sends
    final files to, and the one ``release promote`` reads before the final tag when none is
    given or recorded (set here, a ``--repository-url`` must equal it)."""
    rc_index: str = "https://test.pypi.org/legacy/"
    """The RC channel: a test index the RC's bound files are published to
    (``release publish --channel rc``), for downstream verification. Never the release
    channel's index: each channel is refused the other's (docs/release/invariants.md)."""
    ledger_dir: str = "build/release/{version}"
    """Where ``release checklist`` keeps ledger.json and the step logs."""
    checklist_doc: str = "docs/release/checklist.md"
    """The generated checklist page (``mlrelease release checklist-doc``)."""
    checklist: list[ChecklistStep] = field(default_factory=lambda: list(DEFAULT_CHECKLIST))
    """The release checklist, in order. Unset, it is derived from the defaults for this
    project (see :func:`mlrelease.release.checklist.fitting.steps_for`)."""
    checklist_extra: list[ChecklistStep] = field(default_factory=list)
    """Steps added to the checklist, before its last (manual) step."""
    patch_criteria: list[str] = field(default_factory=lambda: list(DEFAULT_PATCH_CRITERIA))
    """When a patch release is made (shown on the checklist page)."""
    cherry_pick_rules: list[str] = field(default_factory=lambda: list(DEFAULT_CHERRY_PICK_RULES))
    """Rules for fixes that reach a release branch (shown on the checklist page)."""


CHECKLIST_PLACEHOLDERS = (
    "version",
    "series",
    "branch",
    "final_tag",
    "artifacts",
    "ledger_dir",
    "rc_tag",
    "index",
    "rc_index",
)
"""What a checklist step's ``run``, ``task`` and ``evidence`` may name in braces."""


def check_placeholders(config: ReleaseConfig, source: str) -> None:
    """Refuse a checklist step naming an unknown placeholder (it would be shown literally), or
    giving a ``task`` beside its ``run`` (two commands for one step that could disagree)."""
    for key, steps in (
        ("checklist", config.checklist),
        ("checklist-extra", config.checklist_extra),
    ):
        for i, step in enumerate(steps):
            for part, texts in (
                ("run", step.run),
                ("task", [step.task]),
                ("evidence", step.evidence),
            ):
                for text in texts:
                    for name in PLACEHOLDER.findall(text.replace("{{", "").replace("}}", "")):
                        if name not in CHECKLIST_PLACEHOLDERS:
                            known = ", ".join("{" + n + "}" for n in CHECKLIST_PLACEHOLDERS)
                            raise ConfigError(
                                f"{TABLE}.{key}[{i}].{part}",
                                f"placeholders among {known}",
                                f"{{{name}}} in {text!r}",
                                source=source,
                                hint="Fix the name, or double the braces for a literal one.",
                            )
            if step.run and step.task:
                raise ConfigError(
                    f"{TABLE}.{key}[{i}].task",
                    "no task for a step with a run (the command shown is derived from run)",
                    repr(step.task),
                    source=source,
                    hint="Delete the task line; a manual step (run = []) keeps its task.",
                )


TABLES: dict[str, type] = {"release": ReleaseConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""

KEEP_BUMPED = Repair(
    "config",
    file="pyproject.toml",
    table=TABLE,
    values=(("rc-model", "bump"), ("rc-tagged", True)),
)
"""The repair of a refusal under ``rc-model = "tag"`` that only version-bump RCs, each tagged,
mend: files that carry a candidate's own version (a hand edit, ``1.17.0rc1``), or a workflow
that publishes every RC tag as the version its commit carries (tensorflow-onnx's ``v*``)."""


def version_model(config: Config) -> VersionModel:
    """The project's version model: ``version-source`` with ``rc-model`` (built once per use;
    the rules live in :class:`~mlrelease.versions.VersionModel`)."""
    check_version_model(config)
    rc_model = config.table(ReleaseConfig).rc_model
    return VersionModel(config.version_source, untagged=rc_model == "bump")


def check_version_model(config: Config) -> None:
    """Refuse ``version-source = "tag"`` with ``rc-model = "bump"``: under the tag model the
    tag gives the RC's version, so a release candidate is never a version bump; and
    ``rc-tagged`` without ``rc-model = "bump"``."""
    if config.version_source == "tag" and config.table(ReleaseConfig).rc_model == "bump":
        raise ConfigError(
            f"{TABLE}.rc-model",
            '"tag" under version-source = "tag" (release candidates are tags, their version '
            "comes from the tag)",
            '"bump"',
            source=str(config.pyproject_path),
            hint='Remove rc-model (or set it to "tag"), or set tool.mlrelease.version-source '
            'to "files" if release candidates are version bumps.',
        )
    rel = config.table(ReleaseConfig)
    if rel.rc_tagged and rel.rc_model != "bump":
        raise ConfigError(
            f"{TABLE}.rc-tagged",
            'false under rc-model = "tag" (a candidate is a tag there already)',
            "true",
            source=str(config.pyproject_path),
            hint='Remove rc-tagged, or set rc-model = "bump" if release candidates are '
            "version bumps that are also tagged.",
        )


BRANCH = re.compile(r"(?!-)(?!.*(?:[\s~^:?*\[\\]|\.\.|@\{|//|\.lock$|/\.|^\.|/$))[^\x00-\x1f\x7f]+")
"""A branch name git accepts (``git check-ref-format --branch``), written in the config."""


def check_main_branch(config: Config) -> None:
    """Refuse a ``main-branch`` that names no branch (empty, or not a valid branch name): every
    command would go on with "origin's " and a blank, or with a name git refuses."""
    name = config.table(ReleaseConfig).main_branch
    if not BRANCH.fullmatch(name):
        raise ConfigError(
            f"{TABLE}.main-branch",
            "the name of the branch releases are cut from (main, master)",
            repr(name),
            source=str(config.pyproject_path),
            hint="Set it to your development branch, or remove it for main.",
        )


def check_loaded(config: Config) -> None:
    """The release table's checks on a loaded configuration: checklist placeholders, the main
    branch's name, and the version model."""
    check_placeholders(config.table(ReleaseConfig), str(config.pyproject_path))
    check_main_branch(config)
    check_version_model(config)


CHECKS = (check_loaded,)
"""Run on every loaded configuration (:attr:`mlrelease.entries.Feature.checks`)."""


def series(version: Version) -> tuple[int, int]:
    major, minor, _ = release_triple(version)
    return major, minor


def next_series(value: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The series that may follow ``value`` (1.4 -> 1.5 or 2.0): a main already moved to one
    of them may still cut ``value`` (onnxconverter-common's master at 1.16.0 cut 1.15)."""
    return (value[0], value[1] + 1), (value[0] + 1, 0)


def series_text(value: tuple[int, int]) -> str:
    return f"{value[0]}.{value[1]}"


def parse_series(text: str, option: str = "--version") -> tuple[int, int]:
    """``"1.4"`` -> (1, 4); anything else is a :class:`UserError` saying the expected form."""
    match = re.fullmatch(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)", text)
    if not match:
        raise UserError(f"{option} {text!r}: expected a release series MAJOR.MINOR such as 1.4.")
    return int(match[1]), int(match[2])


def parse_release(text: str, option: str = "--version") -> Version:
    """A final release version ``X.Y.Z`` (no rc, dev or post part)."""
    try:
        version = Version(text)
    except InvalidVersion:
        version = None
    if (
        version is None
        or len(version.release) != 3
        or str(version) != text
        or version.is_prerelease
        or version.is_postrelease
        or version.local is not None
    ):
        raise UserError(
            f"{option} {text!r}: expected a final release version MAJOR.MINOR.PATCH such as "
            "1.4.0 (release candidates are tags of it: `release rc` numbers them)."
        )
    return version


def release_branch(config: Config, version: Version) -> str:
    """The branch a release of ``version`` is made on (main itself under the trunk model)."""
    rel = config.table(ReleaseConfig)
    return rel.main_branch if rel.model == "trunk" else config.names.branch_for(series(version))


def is_glob(path: str) -> bool:
    """Whether a release-only edit's ``file`` is a pattern rather than one path."""
    return any(c in path for c in "*?[")


def matching(pattern: str, paths: Iterable[str]) -> tuple[str, ...]:
    """The paths ``pattern`` matches (fnmatch, case-sensitive), sorted."""
    return tuple(sorted(p for p in paths if fnmatch.fnmatchcase(p, pattern)))
