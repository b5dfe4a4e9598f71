"""``release prepare``: the version-bump commit with its changelog section, a pure planner over
a :class:`~.world.snapshot.World`. The version files are the truth: after a hand edit (the key
``current_version`` left behind), prepare starts from what the files say."""

from __future__ import annotations

from packaging.version import Version

from mlrelease import version_files, versions
from mlrelease.config import Config
from mlrelease.errors import PreconditionError
from mlrelease.project import changelog
from mlrelease.release import edits as editing
from mlrelease.release import own_publishing, pushes, rules
from mlrelease.release.config import (
    ReleaseConfig,
    next_series,
    parse_release,
    series,
    series_text,
    version_model,
)
from mlrelease.release.plan import Plan, git_action
from mlrelease.release.world.snapshot import World, parse_version


def plan_prepare(world: World, config: Config, version: str, push: bool = False) -> Plan:
    """``release prepare --version X.Y.Z``: set the release version and write its changelog."""
    target = parse_release(version)
    root, rel = world.root, config.table(ReleaseConfig)
    names = config.names
    # Trunk model: a release is prepared, tagged and promoted on main itself.
    branch = rel.main_branch if rel.model == "trunk" else names.branch_for(series(target))
    plan = Plan("prepare", root)
    rules.preflight(world, "prepare")
    restore, restored = rules.recovery(world, "prepare")
    plan.actions += restore
    if branch not in world.local.heads:
        raise PreconditionError(
            f"prepare: there is no branch {branch}; cut it first: "
            f"`mlrelease release cut --version {series_text(series(target))} --execute`."
        )
    # The version files are the truth: after a hand edit, prepare starts from what they say.
    hand = world.hand_edits.get(branch)
    carried = parse_version(hand or world.version_at(branch), branch)
    rules.check_tags(world, names, "prepare", target)
    log_text = world.file_at(branch, config.changelog)
    gated = "changelog" in config.gates  # invariant (k): the section is the changelog gate's
    # Under version-source = "tag" the files keep their marker: the tag gives the version.
    agrees = str(carried) == str(target) or version_model(config).agrees(target, carried)
    need_bump = not agrees or hand is not None
    need_log = log_text is not None and not changelog.has_section(log_text, target)
    if (need_bump or need_log or (log_text is None and gated)) and rules.released(
        world, names, target
    ):  # invariant (i), refused first (j)
        raise PreconditionError(
            f"prepare: {target} is released ({rules.released_tag(world, names, target)} "
            "exists); prepare the "
            f"next patch version, e.g. --version {rules.next_release(world, names, target)}."
        )
    if not rules.released(world, names, target):  # every RC tag of it would ship it final
        own_publishing.refuse_release(world, config, branch, target)
    if log_text is None and gated:
        raise PreconditionError(
            f"prepare: {config.changelog} does not exist on {branch} "
            "([tool.mlrelease] changelog); create it with a '# Changelog' title and the line "
            f"'{changelog.MARKER}'."
        )
    if log_text is None:
        plan.notes.append(
            f"{config.changelog} does not exist on {branch} and the changelog gate is not "
            "configured: no changelog section is written."
        )
    # onnxconverter-common: the branch was cut from a main already at 1.16.0; 1.15.0 is set.
    ahead = rel.model != "trunk" and series(carried) in next_series(series(target))
    if hand is not None:
        plan.notes.append(
            f"{branch}: every version file says {hand} (edited by hand), [tool.bumpversion] "
            f"current_version says {world.version_at(branch)}: the files are the truth, so "
            f"prepare starts from {hand} and sets current_version too (as `{version_files.SYNC}`"
            " would)."
        )
    if need_bump and not ahead and not agrees:
        _check_from(world, config, branch, carried, target)
    else:
        plan.notes.append(_carries(config, branch, target))
    if log_text is not None and not need_log:
        plan.notes.append(f"{config.changelog} has a {target} section.")
    changed: set[str] = set()
    if need_bump or need_log:
        if world.branch != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        rules.require_clean(world, "prepare", restored)
        rules.require_current(world, "prepare", [branch])
        bump_to = (carried if agrees else target) if need_bump else None
        _edit(world, plan, config, branch, version, (carried, target, bump_to, need_log), hand)
        changed.add(branch)
    if push:
        action = pushes.push_action(world, rel.remote, [branch], changed, config.names)
        if action:
            plan.actions.append(action)
    return plan


def _check_from(
    world: World, config: Config, branch: str, carried: Version, target: Version
) -> None:
    """Refuse a bump from ``carried`` that would skip or undo a release: a newer version, or
    a final version never released (an RC of ``target`` is that release's own)."""
    names = config.names
    if carried > target:
        raise PreconditionError(
            f"prepare: {branch} already carries {carried}, newer than {target}."
        )
    unreleased = names.release_tag(carried, world.tags()) is None
    own_rc = carried.base_version == str(target)
    if not versions.is_development(carried) and not own_rc and unreleased:
        raise PreconditionError(
            f"prepare: {branch} carries {carried}, which was never released (no tag "
            f"{names.final_tag(carried)}). Release it first, or bump by hand if you "
            "mean to skip it."
        )


def _edit(
    world: World,
    plan: Plan,
    config: Config,
    branch: str,
    version: str,
    what: tuple[Version, Version, Version | None, bool],
    hand: str | None = None,
) -> None:
    """The prepare commit's edits: computed and journalled, then installed, then committed
    (``hand``: the version files' own version, which current_version follows first)."""
    carried, target, bump_to, need_log = what
    files = world.files_to_bump(branch) if bump_to else []
    links = world.links_at(branch)
    listed = sorted({*(f for f in files if f not in links.values()), *links})
    purpose = f"mlrelease release prepare --version {version} --execute"
    edit = editing.EditSet(world.root, purpose)
    computes = []
    if bump_to:
        computes.append(editing.bumped(str(bump_to), listed, links, hand))
    if need_log:
        tag = config.names.final_tag(target)
        computes.append(editing.changelog_section(config, str(target), tag))
    journalled = sorted(set(files) | ({config.changelog} if need_log else set()))
    plan.actions.append(edit.journal(computes, journalled))
    if bump_to:
        plan.actions.append(edit.install("bump", f"bump-my-version: {carried} -> {bump_to}", files))
    if need_log:
        line = f"git-changelog: write the {target} section of {config.changelog}"
        plan.actions.append(edit.install("changelog", line, [config.changelog]))
    plan.actions += [
        git_action(
            "commit", "commit", "-m", f"chore(release): prepare {target}", "--", *journalled
        ),
        edit.end(),
    ]


def _carries(config: Config, branch: str, target: Version) -> str:
    """What ``branch`` carries when prepare has no version to set: ``target``, or, under
    ``version-source = "scm"``, nothing: the candidate's tag names the version."""
    if version_model(config).files_carry:
        return f"{branch} carries {target}."
    first = config.names.rc_tag_for(target, config.table(ReleaseConfig).rc_first)
    return (
        f"version-source = scm: no file of {branch} carries a version; the release candidate's "
        f"tag names {target} (`mlrelease release rc --tag {first}`)."
    )
