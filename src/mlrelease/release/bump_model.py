"""Release candidates as version bumps (``rc-model = "bump"``), untagged or tagged.

A release branch (``rel-1.22.0``) is cut carrying the final version; each release candidate is
a commit setting ``1.22.0rc1``, ``1.22.0rc2``, ... (ONNX builds it and publishes it to TestPyPI
from that commit, untagged); the final release is a commit setting ``1.22.0`` again, tagged
``v1.22.0``. With ``rc-tagged`` each candidate is also tagged (``v0.4.2rc1``) on a commit whose
files say it, as onnxoptimizer, whose workflow publishes every ``v*`` tag, makes them. The
rules are pure (:func:`next_version`); :func:`plan_rc_bump` turns them into ``release rc``'s
plan.
"""

from __future__ import annotations

from typing import Literal

from packaging.version import Version

from mlrelease import version_files
from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import candidates, pins, pushes, rules
from mlrelease.release import edits as editing
from mlrelease.release.config import TABLE, ReleaseConfig, parse_release
from mlrelease.release.plan import Plan, git_action
from mlrelease.release.world import made
from mlrelease.release.world.snapshot import (
    FINAL_MARKER,
    RC_MARKER,
    NotGathered,
    World,
    parse_version,
    short,
)

Step = Literal["rc", "final"]

RC_HELP = (
    'Under [tool.mlrelease.release] rc-model = "bump": commit the next version X.Y.ZrcN on '
    "the branch instead, untagged; with rc-tagged = true, tag vX.Y.ZrcN on HEAD while the "
    "files carry an rcN with no tag yet, and bump only once it has one (or the files carry "
    "X.Y.Z). "
)
"""What ``release rc --help`` says of this model."""


def base(version: Version) -> Version:
    """``1.22.0rc2`` -> ``1.22.0``."""
    return Version(version.base_version)


def next_version(
    carried: Version, step: Step, released: bool, target: Version | None = None
) -> Version:
    """The version the next bump sets on a release branch carrying ``carried``.

    ``target``: the release the branch is for (``rel-1.20.1`` -> 1.20.1), None for ``carried``'s
    own; ``released``: its final tag exists. ``rc``: ``X.Y.Z`` (as cut) -> ``X.Y.Zrc1``;
    ``X.Y.ZrcN`` -> ``X.Y.Zrc(N+1)``; a patch branch cut from the release before it (carrying
    1.20.0 for 1.20.1) -> ``1.20.1rc1``. ``final``: ``X.Y.ZrcN`` -> ``X.Y.Z``.
    """
    if target is not None and base(carried) < target and not released:
        if step == "rc":
            return Version(f"{target}rc1")
        raise PreconditionError(
            f"the branch carries {carried} and no release candidate of {target} was made; make "
            "one first (`mlrelease release rc --execute`)."
        )
    if released:
        raise PreconditionError(
            f"{carried} is released; a patch release gets its own branch "
            f"({base(carried).major}.{base(carried).minor}.{base(carried).micro + 1})."
        )
    if carried.is_devrelease or carried.is_postrelease or carried.local:
        raise PreconditionError(
            f"the branch carries {carried}; a release branch carries X.Y.Z or X.Y.ZrcN."
        )
    pre = carried.pre
    if pre is not None and pre[0] != "rc":
        raise PreconditionError(f"the branch carries {carried}; only rc pre-releases are made.")
    if step == "final":
        if pre is None:
            raise PreconditionError(
                f"the branch carries {carried} and no release candidate was made; make one "
                "first (`mlrelease release rc --execute`)."
            )
        return base(carried)
    number = pre[1] + 1 if pre is not None else 1
    return Version(f"{base(carried)}rc{number}")


def subject(version: Version) -> str:
    """The bump commit's subject (ONNX writes "Set version number to 1.22.0rc1")."""
    return f"Set version number to {version}"


def _on_branch(
    world: World, config: Config, verb: str, restored: set[str]
) -> tuple[str, Version, Version]:
    """On a clean, current release branch: (branch, the version it carries, the release)."""
    rel = config.table(ReleaseConfig)
    target = world.target
    branch = world.branch
    if branch is None or target is None or target.branch != branch:
        raise PreconditionError(
            f"{verb}: you are on {branch or 'a detached HEAD'}, not on a release branch "
            f"({TABLE}.branch = {rel.branch!r}); switch to it first."
        )
    rules.require_clean(world, verb, restored)
    tree = world.worktree
    if tree is not None and tree.hand_edit:
        raise PreconditionError(
            f"{verb}: {version_files.stale_current(tree.current, tree.hand_edit)}.",
            repair=version_files.SYNC_REPAIR,
        )
    rules.require_current(world, verb, [branch])
    return branch, parse_version(world.version_at(branch), branch), target.version


def _bump(world: World, plan: Plan, branch: str, old: Version, new: Version, purpose: str) -> None:
    files = world.files_to_bump(branch)
    links = world.links_at(branch)
    listed = sorted({*(f for f in files if f not in links.values()), *links})
    edit = editing.EditSet(world.root, purpose)
    plan.actions += [
        edit.journal([editing.bumped(str(new), listed, links)], files),
        edit.install("bump", f"bump-my-version: {old} -> {new}", files),
        git_action("commit", "commit", "-m", subject(new), "--", *files),
        edit.end(),
    ]


def plan_rc_bump(world: World, config: Config, tag: str | None = None, push: bool = False) -> Plan:
    """``release rc`` under ``rc-model = "bump"``: commit the next ``X.Y.ZrcN`` on the branch;
    with ``rc-tagged``, first tag the candidate the files carry (:func:`_untagged_rc`)."""
    plan = Plan("rc", world.root)
    rel = config.table(ReleaseConfig)
    if tag is not None:
        how = "tagged as the files say" if rel.rc_tagged else "version bumps without tags"
        raise PreconditionError(
            f"rc --tag {tag}: {TABLE}.rc-model is 'bump': release candidates are {how}. Omit --tag."
        )
    rules.preflight(world, "rc")
    restore, restored = rules.recovery(world, "rc")
    plan.actions += restore
    branch, carried, release = _on_branch(world, config, "rc", restored)
    pins.refuse(world, "rc", branch)
    released = rules.released(world, config.names, release) is not None  # invariant (i)
    name = _untagged_rc(world, config, carried, branch, plan) if rel.rc_tagged else None
    changed = {f"refs/tags/{name}"} if name else {branch}
    if name is None:
        try:
            target = next_version(carried, "rc", released, release)
        except PreconditionError as exc:
            raise PreconditionError(f"rc: {branch}: {exc}") from None
        _bump(world, plan, branch, carried, target, "mlrelease release rc --execute")
    if push:
        refs = [branch, f"refs/tags/{name}"] if name else [branch]
        action = pushes.push_action(world, rel.remote, refs, changed, config.names)
        if action:
            plan.actions.append(action)
    return plan


def _untagged_rc(
    world: World, config: Config, carried: Version, branch: str, plan: Plan
) -> str | None:
    """Under ``rc-tagged``: the RC tag of the ``X.Y.ZrcN`` the files carry, planned on HEAD
    (or found made here, not pushed yet), while it has none; None when the files carry no
    candidate (the final version) or its tag exists (the next one is a bump)."""
    pre = carried.pre
    if pre is None or pre[0] != "rc" or carried.is_devrelease or carried.is_postrelease:
        return None
    names, head, version = config.names, str(world.head), base(carried)
    if rules.released(world, names, version) is not None:  # invariant (i): before the rest
        return None  # next_version names the release
    rcs = rules.rc_tags(world, names, version)
    if pre[1] in rcs:
        return None
    newer = sorted(n for n in rcs if n > pre[1])
    if newer:
        raise PreconditionError(
            f"rc: {branch} carries {carried}, but {rcs[newer[-1]][0]} is tagged already; a "
            f"candidate is never numbered below the newest. Set the next number by hand "
            f"(rc{newer[-1] + 1}) and run `mlrelease bump --sync --execute`, then re-run."
        )
    rules.check_tags(world, names, "rc", version)
    candidates.require_after_newest(world, rcs, head, branch)
    name = names.rc_tag_for(version, pre[1])
    if rules.own_unpushed(world, name, head, RC_MARKER, "rc"):
        plan.notes.append(f"HEAD ({short(head)}) is already {name} here, not pushed yet.")
        return name
    subject = f"{version} release candidate {pre[1]} ({branch} says {carried})"
    plan.actions.append(
        made.tag_action(world.root, name, head, "rc", "-a", name, "-m", subject, "-m", RC_MARKER)
    )
    return name


def plan_final(
    world: World, config: Config, version: str | None = None, push: bool = False
) -> Plan:
    """``release promote`` under ``rc-model = "bump"``: set the final version on the release
    branch (unless a later commit already did) and tag it ``vX.Y.Z`` there.

    Refused before any release candidate was made: a final release follows a tested RC.
    """
    plan = Plan("promote", world.root)
    rules.preflight(world, "promote")
    restore, restored = rules.recovery(world, "promote")
    plan.actions += restore
    branch, carried, release = _on_branch(world, config, "promote", restored)
    if version is not None and parse_release(version) != release:
        raise UserError(f"promote --version {version}: {branch} is the branch of {release}.")
    final = world.aimed().final
    tags = world.tags()
    if final in tags:
        if tags[final] != world.head:
            raise PreconditionError(
                f"promote: {final} exists on {short(tags[final])}, not on {branch}'s head; a "
                f"patch release gets its own branch ({release.major}.{release.minor}."
                f"{release.micro + 1})."
            )
        plan.notes.append(f"{branch}'s head is already {final}.")
        return plan
    if world.bumps is None:
        raise NotGathered("the world holds no bump-model facts")
    if not world.bumps.rc_made:
        raise PreconditionError(
            f"promote: no release candidate of {release} was made on {branch}; make one first "
            "(`mlrelease release rc --execute`)."
        )
    pins.refuse(world, "promote", branch)
    changed = {f"refs/tags/{final}"}
    if carried != release:
        target = next_version(carried, "final", released=False, target=release)
        _bump(world, plan, branch, carried, target, "mlrelease release promote --execute")
        changed.add(branch)
    else:
        plan.notes.append(f"{branch} already carries {release}.")
    if rules.own_unpushed(world, final, str(world.head), FINAL_MARKER, "promote"):
        plan.notes.append(f"{branch}'s head is already {final} here, not pushed yet.")
    else:
        plan.actions.append(
            made.tag_action(
                world.root,
                final,
                str(world.head),
                "promote",
                "-a",
                final,
                "-m",
                f"Release {release}",
                "-m",
                FINAL_MARKER,
            )
        )
    if push:
        action = pushes.push_action(
            world,
            config.table(ReleaseConfig).remote,
            [branch, f"refs/tags/{final}"],
            changed,
            config.names,
        )
        if action:
            plan.actions.append(action)
    return plan
