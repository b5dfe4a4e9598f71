"""Release candidates as version bumps without tags (``rc-model = "bump"``, ONNX's practice).

A release branch (``rel-1.22.0``) is cut carrying the final version; each release candidate is
a commit setting ``1.22.0rc1``, ``1.22.0rc2``, ... (built and published to TestPyPI from that
commit); the final release is a commit setting ``1.22.0`` again, tagged ``v1.22.0``. The rules
are pure (:func:`next_version`); :func:`plan_rc_bump` turns them into ``release rc``'s plan.
"""

from __future__ import annotations

from typing import Literal

from packaging.version import Version

from mlrelease import git
from mlrelease.errors import PreconditionError
from mlrelease.release import repo
from mlrelease.release.flow import Flow, bump_call, parse_version, version_files
from mlrelease.release.plan import Plan, begin_edit, call_action, end_edit, git_action, recovery
from mlrelease.release.settings import TABLE

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


def plan_rc_bump(flow: Flow, tag: str | None = None, push: bool = False) -> Plan:
    """``release rc`` under ``rc-model = "bump"``: commit the next ``X.Y.ZrcN`` on the branch."""
    root = flow.root
    plan = Plan("rc", root)
    if tag is not None:
        raise PreconditionError(
            f"rc --tag {tag}: {TABLE}.rc-model is 'bump': release candidates are version "
            "bumps without tags. Omit --tag."
        )
    restore, restored = recovery(root, "rc")
    plan.actions += restore
    branch = git.current_branch(root)
    if branch is None or flow.names.branch.parse(branch) is None:
        raise PreconditionError(
            f"rc: you are on {branch or 'a detached HEAD'}, not on a release branch "
            f"({TABLE}.branch = {flow.rel.branch!r}); switch to it first."
        )
    flow.require_clean("rc", restored)
    carried = parse_version(repo.version_at(root, branch), branch)
    parsed = flow.names.branch.parse(branch) or {}
    wanted = Version(f"{parsed['major']}.{parsed['minor']}.{parsed.get('patch', 0)}")
    release = max(wanted, base(carried))
    released = flow.names.final_tag(release) in flow.tags()
    try:
        target = next_version(carried, "rc", released, release)
    except PreconditionError as exc:
        raise PreconditionError(f"rc: {branch}: {exc}") from None
    files = version_files(root, branch)
    line = f"bump-my-version: {carried} -> {target}"
    plan.actions += [
        begin_edit(root, files, "mlrelease release rc --execute"),
        call_action("bump", line, bump_call(root, str(target))),
        git_action("commit", "commit", "-m", subject(target), "--", *files),
        end_edit(root),
    ]
    if push:
        action = flow.push_action([branch], {branch})
        if action:
            plan.actions.append(action)
    return plan
