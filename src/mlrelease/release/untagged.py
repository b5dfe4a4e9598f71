"""Release candidates as version bumps without tags (``rc-model = "bump"``, ONNX's practice).

A release branch (``rel-1.22.0``) is cut carrying the final version; each release candidate is
a commit setting ``1.22.0rc1``, ``1.22.0rc2``, ... (built and published to TestPyPI from that
commit); the final release is a commit setting ``1.22.0`` again, tagged ``v1.22.0``. The rules
are pure (:func:`next_version`); :func:`plan_rc_bump` turns them into ``release rc``'s plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from packaging.version import Version

from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import observe, repo, rules
from mlrelease.release.config import TABLE, parse_release
from mlrelease.release.flow import Flow, bump_call, parse_version, version_files
from mlrelease.release.plan import Action, Plan, begin_edit, call_action, end_edit, git_action

Step = Literal["rc", "final"]


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


def _on_branch(flow: Flow, verb: str, restored: set[str]) -> tuple[str, Version, Version]:
    """On a clean release branch: (branch, the version it carries, the release it is for)."""
    branch = git.current_branch(flow.root)
    parsed = flow.names.branch.parse(branch) if branch else None
    if branch is None or parsed is None:
        raise PreconditionError(
            f"{verb}: you are on {branch or 'a detached HEAD'}, not on a release branch "
            f"({TABLE}.branch = {flow.rel.branch!r}); switch to it first."
        )
    flow.require_clean(verb, restored)
    carried = parse_version(repo.version_at(flow.root, branch), branch)
    wanted = Version(f"{parsed['major']}.{parsed['minor']}.{parsed.get('patch', 0)}")
    return branch, carried, max(wanted, base(carried))


def plan_rc_bump(flow: Flow, tag: str | None = None, push: bool = False) -> Plan:
    """``release rc`` under ``rc-model = "bump"``: commit the next ``X.Y.ZrcN`` on the branch."""
    root = flow.root
    plan = Plan("rc", root)
    if tag is not None:
        raise PreconditionError(
            f"rc --tag {tag}: {TABLE}.rc-model is 'bump': release candidates are version "
            "bumps without tags. Omit --tag."
        )
    restore, restored = _recovery(root, "rc")
    plan.actions += restore
    branch, carried, release = _on_branch(flow, "rc", restored)
    released = flow.names.final_tag(release) in flow.tags()
    try:
        target = next_version(carried, "rc", released, release)
    except PreconditionError as exc:
        raise PreconditionError(f"rc: {branch}: {exc}") from None
    files = version_files(root, branch)
    line = f"bump-my-version: {carried} -> {target}"
    plan.actions += [
        begin_edit(root, files, "mlrelease release rc --execute"),
        call_action("bump", line, bump_call(flow.config, str(target))),
        git_action("commit", "commit", "-m", subject(target), "--", *files),
        end_edit(root),
    ]
    if push:
        action = flow.push_action([branch], {branch})
        if action:
            plan.actions.append(action)
    return plan


def plan_final(flow: Flow, version: str | None = None, push: bool = False) -> Plan:
    """``release promote`` under ``rc-model = "bump"``: set the final version on the release
    branch (unless a later commit already did) and tag it ``vX.Y.Z`` there.

    Refused before any release candidate was made: a final release follows a tested RC.
    """
    root = flow.root
    plan = Plan("promote", root)
    restore, restored = _recovery(root, "promote")
    plan.actions += restore
    branch, carried, release = _on_branch(flow, "promote", restored)
    if version is not None and parse_release(version) != release:
        raise UserError(f"promote --version {version}: {branch} is the branch of {release}.")
    final = flow.names.final_tag(release)
    tags = flow.tags()
    head = git.head(root)
    if final in tags:
        if tags[final] != head:
            raise PreconditionError(
                f"promote: {final} exists on {tags[final][:9]}, not on {branch}'s head; a "
                f"patch release gets its own branch ({release.major}.{release.minor}."
                f"{release.micro + 1})."
            )
        plan.notes.append(f"{branch}'s head is already {final}.")
        return plan
    files = version_files(root, branch)
    main = flow.rel.main_branch
    made = git.run(
        root, "log", "--format=%H", "-G", r"rc[0-9]", f"{main}..HEAD", "--", *files, check=False
    )
    if not made.strip():
        raise PreconditionError(
            f"promote: no release candidate of {release} was made on {branch}; make one first "
            "(`mlrelease release rc --execute`)."
        )
    changed = {f"refs/tags/{final}"}
    if carried != release:
        target = next_version(carried, "final", released=False, target=release)
        plan.actions += [
            begin_edit(root, files, "mlrelease release promote --execute"),
            call_action(
                "bump",
                f"bump-my-version: {carried} -> {target}",
                bump_call(flow.config, str(target)),
            ),
            git_action("commit", "commit", "-m", subject(target), "--", *files),
            end_edit(root),
        ]
        changed.add(branch)
    else:
        plan.notes.append(f"{branch} already carries {release}.")
    plan.actions.append(git_action("tag", "tag", "-a", final, "-m", f"Release {release}"))
    if push:
        action = flow.push_action([branch, f"refs/tags/{final}"], changed)
        if action:
            plan.actions.append(action)
    return plan


def _recovery(root: Path, name: str) -> tuple[list[Action], set[str]]:
    """:func:`~.rules.recovery` on the journal as it is now (this planner still reads git)."""
    return rules.recovery(observe.journal_state(root), name)
