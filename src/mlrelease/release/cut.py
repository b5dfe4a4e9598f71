"""``release cut``: the release branch, its release-only edits, main to the next .dev.

:func:`plan_cut` is pure: it decides on a :class:`~.world.snapshot.World` only."""

from __future__ import annotations

from collections.abc import Mapping

from packaging.version import Version

from mlrelease import versions
from mlrelease.config import Config
from mlrelease.errors import PreconditionError
from mlrelease.release import branch_edits, pushes, rules
from mlrelease.release import edits as editing
from mlrelease.release.config import (
    TABLE,
    ReleaseConfig,
    ReleaseEdit,
    next_series,
    parse_series,
    series,
    series_text,
    version_model,
)
from mlrelease.release.plan import Plan, git_action
from mlrelease.release.world.snapshot import World, parse_version, short


def _branch(
    world: World,
    plan: Plan,
    rel: ReleaseConfig,
    branch: str,
    version: str,
    from_ref: str | None,
    files_carry: bool,
) -> str:
    """Step 1, the branch: planned unless it exists; returns what the edits apply to."""
    start = from_ref or rel.main_branch
    if branch in world.local.heads:
        plan.notes.append(f"{branch} exists ({short(world.local.heads[branch])}).")
        return branch
    remote = world.origin()  # origin is the truth: someone may have cut it already
    if remote and branch in remote.heads:
        raise PreconditionError(
            f"cut: {remote.name} already has {branch} ({short(remote.heads[branch])}) and this "
            f"clone does not; take it instead of cutting another: `git switch --track "
            f"{remote.name}/{branch}` (after `git fetch {remote.name}`)."
        )
    if from_ref and world.commit(from_ref) is None:
        raise PreconditionError(f"cut: --from {from_ref}: no such branch, tag or commit.")
    carried = parse_version(world.version_at(start), start)
    wanted = parse_series(version)
    behind = from_ref is None and series(carried) < wanted  # step 2 says how main starts it
    # onnxconverter-common: master set 1.16.0 ahead of the 1.15 release; the branch starts
    # there and `release prepare --version 1.15.0` sets its version (main is left as it is).
    ahead = from_ref is None and series(carried) in next_series(wanted)
    if files_carry and series(carried) != wanted and not (behind or ahead):
        raise PreconditionError(
            f"cut: {start} carries {carried}, not a {version} version. Cut --version "
            f"{series_text(series(carried))}, or pass --from a commit of the {version} "
            "development."
        )
    # The branch of that name, never a tag someone spelled like it.
    point = f"refs/heads/{start}" if start in world.local.heads else start
    plan.actions.append(git_action("branch", "branch", branch, point))
    return start


def _refuse_released_series(
    world: World, config: Config, wanted: tuple[int, int], branch: str
) -> None:
    """Invariant (i): the branch of a series whose first release is tagged final is never cut
    from main again (main has moved on); a patch release is made on origin's branch, or on one
    cut from the series' last release."""
    names, version = config.names, Version(f"{wanted[0]}.{wanted[1]}.0")
    reason = rules.released_reason(world, config, version)
    if reason is None:
        return
    rel, model = config.table(ReleaseConfig), version_model(config)
    carried = parse_version(world.version_at(rel.main_branch), rel.main_branch)
    if model.files_carry and series(carried) == wanted:  # main has not moved on (torchcodec)
        moved = model.next_development(carried, *wanted, bare=rel.model != "trunk")
        raise PreconditionError(
            f"cut: {reason} {rel.main_branch} still carries {carried}: the {version} cut never "
            f"moved it on. Move it now: `mlrelease bump --to {moved} --execute` on "
            f"{rel.main_branch}, and commit."
        )
    upcoming = rules.next_release(world, names, version)
    last = names.final_tag(Version(f"{wanted[0]}.{wanted[1]}.{upcoming.micro - 1}"))
    remote = world.remote
    if remote is not None and branch in remote.heads:
        where = f"{remote.name}'s {branch} (`git switch --track {remote.name}/{branch}`)"
    else:
        where = (
            f"{branch} cut from the last release (`mlrelease release cut --version "
            f"{series_text(wanted)} --from {last} --execute`)"
        )
    raise PreconditionError(f"cut: {reason} {rel.main_branch} has moved on: do that on {where}.")


def _main(
    world: World, config: Config, wanted: tuple[int, int], version: str, plan: Plan
) -> tuple[Version, str | None]:
    """Step 2, main moves to the next development version, in the style the version model
    promises: (main's version, the version it moves to, or None when it has moved on)."""
    rel, model = config.table(ReleaseConfig), version_model(config)
    main = rel.main_branch
    main_version = parse_version(world.version_at(main), main)
    if not model.files_carry:
        plan.notes.append(f"version-source = scm: {main} carries no version to move on.")
        return main_version, None
    next_dev = model.next_development(main_version, *wanted, bare=rel.model != "trunk")
    expected = model.expected_on_main(*wanted)
    if series(main_version) == wanted:
        # Trunk model: main carries the released version until the next bump; cutting a
        # maintenance branch from it is what moves main on.
        newest = config.names.newest_final(world.tags())
        if not model.on_main(main_version, newest) and rel.model != "trunk":
            raise PreconditionError(
                f"cut: {main} carries {main_version}, {versions.kind(main_version)}; main must "
                f"carry a development version (e.g. {expected}). Fix it with `mlrelease bump "
                f"--to {expected} --execute` and commit."
            )
        return main_version, next_dev
    if series(main_version) < wanted:
        newest = config.names.newest_final(world.tags())
        if model.on_main(main_version, newest):  # in main's own style (bare, a0, .dev0)
            expected = str(versions.restyled(f"{wanted[0]}.{wanted[1]}.0", main_version))
        own = series(main_version)
        cut_own = rules.released(world, config.names, Version(f"{own[0]}.{own[1]}.0")) is None
        raise PreconditionError(
            f"cut: {main} carries {main_version}: the {version} development has not started on "
            f"{main}. Bump main to {expected} first (`mlrelease bump --to {expected} --execute`)"
            + (f", or cut {series_text(own)}." if cut_own else ".")
        )
    plan.notes.append(f"{main} already carries {main_version}.")
    return main_version, None


def _bump_main(
    world: World, plan: Plan, main: str, old: Version, new: str, purpose: str, branch: str
) -> None:
    files = world.files_to_bump(main)
    links = world.links_at(main)
    listed = sorted({*(f for f in files if f not in links.values()), *links})
    edit = editing.EditSet(world.root, purpose)
    plan.actions += [
        edit.journal([editing.bumped(new, listed, links)], files),
        edit.install("bump", f"bump-my-version: {old} -> {new} in {', '.join(files)}", files),
        git_action(
            "commit-main",
            "commit",
            "-m",
            f"chore(release): open {new} on {main} after cutting {branch}",
            "--",
            *files,
        ),
        edit.end(),
    ]


def _edit_branch(
    world: World,
    plan: Plan,
    needed: list[ReleaseEdit],
    values: dict[str, str],
    purpose: str,
    branch: str,
) -> None:
    files = sorted({e.file for e in needed})
    edit = editing.EditSet(world.root, purpose)
    plan.actions.append(edit.journal([editing.release_edits(needed, values)], files))
    for item in needed:
        replacement = item.replace.format(**values)
        line = f"edit {item.file}: {item.search!r} -> {replacement!r}"
        plan.actions.append(edit.install(f"edit:{item.file}", line, [item.file]))
    plan.actions += [
        git_action(
            "commit-branch",
            "commit",
            "-m",
            f"chore(release): release-only edits for {branch}",
            "--",
            *files,
        ),
        edit.end(),
    ]


def plan_cut(
    world: World,
    config: Config,
    version: str,
    from_ref: str | None = None,
    push: bool = False,
    params: Mapping[str, str] | None = None,
    upstream: str | None = None,
) -> Plan:
    """``release cut --version X.Y``: branch, release-only edits, main to the next .dev;
    ``params`` are more placeholders of the edits (a release train's series parameters),
    ``upstream`` the ``{upstream_series}`` (the series of the project the release pairs with,
    ``--upstream``)."""
    wanted = parse_series(version)
    if upstream is not None:
        parse_series(upstream, "--upstream")
    rel = config.table(ReleaseConfig)
    branch = config.names.branch_for(wanted)
    plan = Plan("cut", world.root)
    rules.preflight(world, "cut")
    restore, restored = rules.recovery(world, "cut")
    plan.actions += restore
    main = rel.main_branch
    if world.branch is None:
        at = short(world.head)
        raise PreconditionError(
            f"cut: HEAD is detached (at {at}); cut switches branches and a commit made on a "
            f"detached HEAD would be left behind. Switch to a branch first (`git switch {main}`), "
            f"or pass --from {at} from a branch."
        )
    if world.commit(f"refs/heads/{main}") is None:
        raise PreconditionError(
            f"cut: no local branch {main!r} ({TABLE}.main-branch); fetch it or set the key."
        )
    branch_edits.check_edits(config, params or {})
    if branch not in world.local.heads and from_ref is None:
        _refuse_released_series(world, config, wanted, branch)
    elif reason := rules.released_reason(world, config, Version(f"{wanted[0]}.{wanted[1]}.0")):
        plan.notes.append(reason)
    base = _branch(world, plan, rel, branch, version, from_ref, version_model(config).files_carry)
    main_version, next_dev = _main(world, config, wanted, version, plan)
    given = {**(params or {}), **branch_edits.values_for(branch, version, wanted, upstream)}
    values = branch_edits.with_upstream(world, config, (branch, base), given)
    needed = branch_edits.needed(world, config, base, values, plan.notes)
    if any(branch_edits.uses_upstream(e) for e in needed) and branch_edits.UPSTREAM not in values:
        name = rel.upstream or "upstream project"
        raise PreconditionError(
            f"cut: the release-only edits ({TABLE}.edits) name {{upstream_series}}, the {name} "
            f"series {branch} pairs with, and nothing says it yet. Give it: `mlrelease release "
            f"cut --version {version} --upstream X.Y --execute`. Nothing was changed."
        )
    if rel.edits and not needed:
        plan.notes.append(f"the release-only edits are on {branch}.")
    _order(world, plan, rel, branch, (main_version, next_dev), needed, values, version, restored)
    if push:
        _push(world, plan, config, branch, wanted, next_dev is not None)
    return plan


def _order(
    world: World,
    plan: Plan,
    rel: ReleaseConfig,
    branch: str,
    main: tuple[Version, str | None],
    needed: list[ReleaseEdit],
    values: dict[str, str],
    version: str,
    restored: set[str],
) -> None:
    """Step 4: main first (it is usually checked out), then the branch; end on the branch.
    Each branch a commit lands on is compared with origin's first (invariant (h))."""
    position = world.branch
    purpose = f"mlrelease release cut --version {version} --execute"
    old, new = main
    committed = []
    if new is not None:
        if position != rel.main_branch:
            plan.actions.append(git_action("switch-main", "switch", rel.main_branch))
            position = rel.main_branch
        _bump_main(world, plan, rel.main_branch, old, new, purpose, branch)
        committed.append(rel.main_branch)
    if needed:
        if position != branch:
            plan.actions.append(git_action("switch-branch", "switch", branch))
            position = branch
        _edit_branch(world, plan, needed, values, purpose, branch)
        committed.append(branch)
    rules.require_current(world, "cut", committed)
    if (
        plan.actions
        and position != branch
        and not all(a.key.startswith("journal") or a.key == "restore" for a in plan.actions)
    ):
        plan.actions.append(git_action("switch-branch", "switch", branch))
    if any(a.git_args and a.git_args[0] in ("switch", "commit") for a in plan.actions):
        rules.require_clean(world, "cut", restored, " and cut switches branches")


def _push(
    world: World, plan: Plan, config: Config, branch: str, wanted: tuple[int, int], bumped: bool
) -> None:
    rel = config.table(ReleaseConfig)
    main = rel.main_branch
    remote = rules.require_remote(world, "cut", rel.remote)
    theirs = remote.heads.get(main)
    if theirs and not world.is_ancestor(theirs, world.local.heads[main]):
        raise PreconditionError(
            f"cut --push: {remote.name}/{main} has commits that local {main} lacks; run "
            f"`git switch {main} && git pull --rebase {remote.name} {main}` (a fast-forward, "
            "or this clone's unpushed commits, the cut's bump among them, replayed on top) "
            "and re-run."
        )
    changed = {main} if bumped else set()
    if "branch" in {a.key for a in plan.actions}:
        changed.add(branch)
    refs = [branch]
    # main is pushed for the version bump only: other unpushed commits on it are not cut's.
    if (
        main in changed
        or theirs is None
        or series(parse_version(world.version_at(theirs), f"{remote.name}/{main}")) <= wanted
    ):
        refs.append(main)
    action = pushes.push_action(world, rel.remote, refs, changed, config.names)
    if action:
        plan.actions.append(action)
