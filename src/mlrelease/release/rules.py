"""Checks every release planner shares, over a :class:`~.snapshot.ReleaseState` (pure).

Each either returns what is still to do or raises the refusal (a
:class:`~mlrelease.errors.PreconditionError` saying what to do), before the first change.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from packaging.version import Version

from mlrelease.edges.journal import drop_journal
from mlrelease.errors import PreconditionError
from mlrelease.naming import Names
from mlrelease.release import state
from mlrelease.release.config import TABLE
from mlrelease.release.plan import Action, call_action, git_action
from mlrelease.release.snapshot import ReleaseState


def preflight(snap: ReleaseState, verb: str) -> None:
    """Refuse to plan over an unfinished git operation or a lock a killed git left."""
    if snap.busy:
        raise PreconditionError(f"{verb}: {snap.busy} Nothing was changed.")
    if snap.lock:
        raise PreconditionError(
            f"{snap.lock} exists: a git command is running here, or one was killed and left its "
            "lock behind (a killed release command can). If no git process is running, "
            f"remove it (`rm {snap.lock}`), check `git status`, and re-run."
        )


def require_remote(snap: ReleaseState, verb: str, name: str) -> state.Remote:
    remote = snap.origin()
    if remote is None:
        raise PreconditionError(
            f"{verb} --push: no remote {name!r} is configured here ({TABLE}.remote); add it "
            "with `git remote add` or drop --push."
        )
    return remote


def check_tags(snap: ReleaseState, names: Names, verb: str, version: Version) -> None:
    """Refuse when a tag of ``version`` differs here and on origin (origin is the truth)."""
    remote = snap.origin()
    found = {
        n
        for n in {*snap.local.tags, *(remote.refs.tags if remote else {})}
        if (parsed := names.parse_tag(n)) and parsed[0] == version
    }
    conflicts = state.tag_conflicts(snap.local, remote, found)
    if conflicts:
        raise PreconditionError(f"{verb}: {'; '.join(conflicts)}.")


def rc_tags(snap: ReleaseState, names: Names, version: Version) -> dict[int, tuple[str, str]]:
    """RC number -> (tag, commit) for the release candidates of ``version``."""
    found: dict[int, tuple[str, str]] = {}
    for name, commit in snap.tags().items():
        parsed = names.parse_tag(name)
        if parsed and parsed[0] == version and parsed[1] is not None:
            found[parsed[1]] = (name, commit)
    return found


def push_action(
    snap: ReleaseState, remote_name: str, refs: list[str], changed: set[str]
) -> Action | None:
    """``git push --atomic REMOTE refs...`` for the refs the remote lacks or will lack.

    Decided while planning, so before the first change: origin is not ahead of a branch to
    push, and a tag to push is absent on origin or the very same tag object."""
    remote = require_remote(snap, "push", remote_name)
    needed: list[str] = []
    for ref in refs:
        if ref.startswith("refs/tags/"):
            name = ref[len("refs/tags/") :]
            theirs = remote.tag_objects.get(name)
            mine_tag = snap.local.tags.get(name)
            mine = mine_tag.object if mine_tag else None
            if theirs and ref in changed:
                raise PreconditionError(
                    f"push: {remote.name} already has a tag {name} "
                    f"({state.short(remote.tags.get(name))}) that this command would create; "
                    f"fetch it (`git fetch {remote.name} tag {name}`) and re-run."
                )
            if ref in changed or theirs != mine:
                needed.append(ref)
            continue
        local = snap.local.heads.get(ref)
        theirs = remote.heads.get(ref)
        if theirs and theirs != local and not (local and snap.is_ancestor(theirs, local)):
            raise PreconditionError(
                f"push: {remote.name}/{ref} ({state.short(theirs)}) has commits that local "
                f"{ref} ({state.short(local)}) lacks; nothing was changed. Bring them in first "
                f"(`git switch {ref} && git pull --ff-only {remote.name} {ref}`), then re-run."
            )
        if ref in changed or theirs != local:
            needed.append(ref)
    if not needed:
        return None
    return git_action("push", "push", "--atomic", remote.name, *needed)


def require_clean(
    snap: ReleaseState, name: str, ignore: AbstractSet[str] = frozenset(), why: str = ""
) -> None:
    dirty = [f for f in snap.dirty if f not in ignore]
    if not dirty:
        return
    shown = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
    data = snap.journal.data if snap.journal else None
    hint = (
        f" An interrupted `{data.get('purpose')}` left files half-edited: re-run it with "
        "--execute to undo and redo it."
        if data
        else " Commit or stash them first (`git stash -u`), then re-run."
    )
    raise PreconditionError(
        f"{name}: the working tree has uncommitted changes ({shown}){why}.{hint}"
    )


def recovery(snap: ReleaseState, name: str) -> tuple[list[Action], set[str]]:
    """Actions that undo an interrupted edit, and the files they restore.

    Refuses when files outside the journal are modified too: those are someone's work.
    """
    root, journal = snap.root, snap.journal
    if journal is None:
        return [], set()
    data = journal.data
    if data is None:
        return [
            call_action(
                "journal-drop",
                f"drop the unparsable journal {journal.path} (it names no edit to undo)",
                lambda: drop_journal(root),
            )
        ], set()
    if data.get("head") != snap.head:
        return [
            call_action(
                "journal-drop", "drop the journal of a finished edit", lambda: drop_journal(root)
            )
        ], set()
    listed = data.get("files")
    dirty = set(snap.dirty)
    files = (
        [f for f in listed if isinstance(f, str) and f in dirty] if isinstance(listed, list) else []
    )
    others = sorted(dirty - set(files))
    if others:
        left = ", ".join(files) or "no file"
        raise PreconditionError(
            f"{name}: an interrupted `{data.get('purpose')}` left {left} half-edited, and "
            f"{', '.join(others[:5])} changed too. Commit or stash your own changes, then "
            "re-run: the interrupted edit is undone and redone."
        )
    actions: list[Action] = []
    if files:
        actions.append(
            git_action(
                "restore", "restore", "--source=HEAD", "--staged", "--worktree", "--", *files
            )
        )
    actions.append(
        call_action(
            "journal-drop", "drop the journal of the interrupted edit", lambda: drop_journal(root)
        )
    )
    return actions, set(files)
