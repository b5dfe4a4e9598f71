"""Checks every release planner shares, over a :class:`~.world.snapshot.World` (pure).

Each either returns what is still to do or raises the refusal (a
:class:`~mlrelease.errors.PreconditionError` saying what to do), before the first change.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.edges.journal import drop_journal
from mlrelease.errors import PreconditionError
from mlrelease.naming import Names
from mlrelease.release.config import TABLE, series, series_text, version_model
from mlrelease.release.plan import Action, call_action, git_action
from mlrelease.release.world.snapshot import (
    FINAL_MARKER,
    RC_MARKER,
    Refs,
    Remote,
    Tag,
    World,
    short,
)


def preflight(world: World, verb: str) -> None:
    """Refuse to plan over an unfinished git operation or a lock a killed git left."""
    if world.busy:
        raise PreconditionError(f"{verb}: {world.busy} Nothing was changed.")
    if world.lock:
        raise PreconditionError(
            f"{world.lock} exists: a git command is running here, or one was killed and left "
            "its lock behind (a killed release command can). If no git process is running, "
            f"remove it (`rm {world.lock}`), check `git status`, and re-run."
        )


def require_remote(world: World, verb: str, name: str) -> Remote:
    """The remote a push goes to, refused unless it pushes exactly where it is read from:
    every decision was made on the refs read from its fetch URL."""
    remote = world.origin()
    if remote is None:
        raise PreconditionError(
            f"{verb} --push: no remote {name!r} is configured here ({TABLE}.remote); add it "
            "with `git remote add` or drop --push."
        )
    elsewhere = [u for u in remote.push_urls if u.rstrip("/") != remote.fetch_url.rstrip("/")]
    if elsewhere:
        raise PreconditionError(
            f"{verb}: remote {remote.name!r} is read from {remote.fetch_url} but pushes to "
            f"{', '.join(elsewhere)} (a pushurl, a second url, or a pushInsteadOf setting); a "
            f"push there would go where nothing was checked. Say which is the truth: drop the "
            f"other push URL (`git config --unset-all remote.{remote.name}.pushurl`, or the "
            f"second remote.{remote.name}.url), or name a remote that reads and pushes one URL "
            f"in {TABLE}.remote. Nothing was changed."
        )
    return remote


def refspec(ref: str) -> str:
    """The explicit refspec that pushes ``ref`` (a branch name, or ``refs/...``) to the same
    name on the remote: never a tag for a branch of the same name, never a guess."""
    full = ref if ref.startswith("refs/") else f"refs/heads/{ref}"
    return f"{full}:{full}"


def require_current(world: World, verb: str, branches: list[str]) -> None:
    """Invariant (h): refuse before any commit on a branch when origin's has commits the local
    one lacks (origin is the truth; a commit on a stale branch would fork it)."""
    remote = world.origin()
    if remote is None:
        return
    stale = []
    for name in branches:
        theirs, mine = remote.heads.get(name), world.local.heads.get(name)
        if theirs and mine and theirs != mine and not world.is_ancestor(theirs, mine):
            stale.append(
                f"{remote.name}/{name} ({short(theirs)}) has commits that local {name} "
                f"({short(mine)}) lacks"
            )
    if stale:
        pulls = " && ".join(
            f"git switch {b} && git pull --rebase {remote.name} {b}"
            for b in branches
            if any(f"local {b} (" in s for s in stale)
        )
        raise PreconditionError(
            f"{verb}: {'; '.join(stale)}; nothing was changed. Bring them in first "
            f"(`{pulls}`: a fast-forward, or this clone's unpushed commits replayed on top), "
            "then re-run."
        )


def tag_conflicts(
    local: Refs,
    remote: Remote | None,
    names: set[str],
    made_here: Callable[[str], bool] = lambda name: False,
) -> list[str]:
    """Tags in ``names`` that exist on both sides with different objects, as sentences. Origin
    is the truth, and the advice is to take its tag, unless this clone's is the one a release
    command made here (``made_here``, its record): then origin's was moved, which no release
    tag ever is, and the advice never deletes the one that was made (invariant (d))."""
    if remote is None:
        return []
    found = []
    for name in sorted(names):
        mine, theirs = local.tags.get(name), remote.refs.tags.get(name)
        if not (mine and theirs and mine.tag_object != theirs.tag_object):
            continue
        said = f"tag {name} is {short(mine.commit)} here but {short(theirs.commit)} on "
        said += remote.name
        if made_here(name):
            found.append(
                f"{said}: this clone's is the one a release command made here (its record), so "
                f"{remote.name}'s was moved, and a release tag is never moved. Keep this "
                f"clone's; who moved {remote.name}'s, and whether to put it back (`git push "
                f"--force {remote.name} refs/tags/{name}`), is a person's call"
            )
            continue
        found.append(
            f"{said} ({remote.name} is the truth: `git tag -d {name} && git fetch "
            f"{remote.name} tag {name}`)"
        )
    return found


def check_tags(world: World, names: Names, verb: str, version: Version) -> None:
    """Refuse when a tag of ``version`` differs here and on origin (origin is the truth)."""
    remote = world.origin()
    found = {
        n
        for n in {*world.local.tags, *(remote.refs.tags if remote else {})}
        if (parsed := names.read_tag(n)) and parsed[0] == version
    }
    conflicts = tag_conflicts(
        world.local,
        remote,
        found,
        lambda n: world.made_here(n, RC_MARKER) or world.made_here(n, FINAL_MARKER),
    )
    if conflicts:
        raise PreconditionError(f"{verb}: {'; '.join(conflicts)}.")


def released_tag(world: World, names: Names, version: Version) -> str | None:
    """Invariant (i): the final tag that released ``version``, in any spelling the project has
    used (:meth:`~mlrelease.naming.Names.release_tag`), or None.

    Origin is the truth: with a remote configured only its tags count (a final tag only this
    clone has was not released, and promote pushes its own); without one, this clone's."""
    remote = world.remote
    tags = remote.refs.tags if remote is not None else world.local.tags
    return names.release_tag(version, tags)


def released(world: World, names: Names, version: Version) -> str | None:
    """Invariant (i): where the final tag of ``version`` is (``on origin``), or None.

    A version with a final tag is released: no command plans, offers or tags a release
    candidate or a final tag of it. The one predicate status, cut, prepare, rc and promote
    ask."""
    if released_tag(world, names, version) is None:
        return None
    remote = world.remote
    return f"on {remote.name}" if remote is not None else "here (no remote is configured)"


def own_unpushed(world: World, name: str, head: str, marker: str, verb: str) -> bool:
    """Whether tag ``name``, which origin lacks, is already made here by this very command on
    HEAD: a run killed before its push, or run without --push, whose tag is pushed now rather
    than made again. "Made here" is this clone's record of the tags it made
    (:mod:`~mlrelease.release.world.made`), never the annotation: a tag of that name that only this
    clone has otherwise (made by hand, fetched from a fork, whatever its ``Made-by`` line) is
    refused and never pushed, nor advised to be; it decides nothing."""
    mine = world.local.tags.get(name)
    if mine is None:
        return False
    ours = world.made_here(name, marker)
    if ours and mine.commit == head:
        return True
    if ours and world.remote is not None:
        spec = refspec(f"refs/tags/{name}")
        raise PreconditionError(
            f"{verb}: this clone has {name} ({short(mine.commit)}), made here by `mlrelease "
            f"release {verb}` and never pushed; {world.remote.name} numbers the releases, and "
            f"lacks it. Push it first (`git push {world.remote.name} {spec}`), or delete it if "
            f"it is not to be one (`git tag -d {name}`), then re-run."
        )
    if ours:
        raise PreconditionError(
            f"{verb}: this clone has {name} on {short(mine.commit)}, made here by `mlrelease "
            f"release {verb}`, not on HEAD ({short(head)}). Delete it if it is not to be one "
            f"(`git tag -d {name}`), then re-run."
        )
    said = " (its annotation says it was, which proves nothing)" if mine.made_by(marker) else ""
    raise PreconditionError(
        f"{verb}: this clone has a tag {name} ({short(mine.commit)}) that origin does not, not "
        f"made by `mlrelease release {verb}` on HEAD: this clone did not make it{said}. Made "
        "by hand, or fetched from a fork, it is nobody's release, and mlrelease does not push "
        f"it. Delete it here (`git tag -d {name}`), then re-run."
    )


def next_release(world: World, names: Names, version: Version) -> Version:
    """The next release of ``version``'s series: the smallest version from ``version`` on with
    no final tag (2.13.0, then 2.13.1, ...)."""
    while released(world, names, version):
        major, minor, micro = (*version.release, 0, 0)[:3]
        version = Version(f"{major}.{minor}.{micro + 1}")
    return version


def released_reason(world: World, config: Config, version: Version) -> str | None:
    """``0.18.0 is already released (...); the next release ... is 0.18.1: how to make it``, or
    None when ``version`` is not released. Under ``version-source = "tag"`` the next patch
    comes from the tag of its candidate; otherwise ``release prepare`` sets it in the files."""
    tag = released_tag(world, config.names, version)
    where = released(world, config.names, version)
    if tag is None or where is None:
        return None
    upcoming = next_release(world, config.names, version)
    if version_model(config).from_tag:
        how = (
            f"tag its release candidate ({config.names.rc_tag_for(upcoming, 1)}) on new commits "
            "of the release branch with `mlrelease release rc`"
        )
    else:
        how = (
            f"set it with `mlrelease release prepare --version {upcoming} --execute`, then tag "
            "its release candidate with `mlrelease release rc`"
        )
    return (
        f"{version} is already released ({tag}): its final tag is "
        f"{where}. The next release of the {series_text(series(version))} series is "
        f"{upcoming}: {how}."
    )


def refuse_released(world: World, config: Config, version: Version, verb: str) -> None:
    """Invariant (i), refused first (invariant (j)): before any precondition that would only
    matter for releasing ``version`` (a changelog section, the kind of its RC tag)."""
    reason = released_reason(world, config, version)
    if reason is not None:
        raise PreconditionError(f"{verb}: {reason}")


def rc_problem(
    tag: Tag | None, name: str, where: str, branch: str, reachable: bool, marker: str = RC_MARKER
) -> str | None:
    """Why the RC tag ``name`` cannot be promoted (or bound), or None when it can (``marker``:
    the line its annotation needs; under ``rc-model = "bump"`` the final tag is bound)."""
    verb = "promote" if marker == FINAL_MARKER else "rc"
    # A published tag is never deleted (users may have fetched or built it): an RC's commit is
    # tagged again as the next number instead; a tag only this clone has may go.
    instead = (
        "delete it and tag the candidate with that command"
        if where == "this repository" or verb == "promote"
        else "leave it (a published tag is never deleted) and tag its commit as the next "
        "candidate with `mlrelease release rc --rebuild --execute --push`"
    )
    if tag is None:
        return (
            f"there is no tag {name} on {where}; push it (`mlrelease release rc --execute "
            "--push`) or list the candidates with `mlrelease release status`."
        )
    if not tag.annotated:
        return (
            f"{name} on {where} is a lightweight tag, not an annotated release candidate made by "
            f"`mlrelease release {verb}`; {instead}."
        )
    if not tag.made_by(marker):
        return (
            f"{name} on {where} was not made by `mlrelease release {verb}` (its annotation lacks "
            f"{marker!r}); {instead}."
        )
    if not reachable:
        return (
            f"{name} ({short(tag.commit)}) is not on {where}'s {branch}: a release candidate is "
            f"a commit of the release branch. Tag one on {branch} with `mlrelease release rc`."
        )
    return None


def rc_named(world: World, names: Names, rc: str) -> tuple[Version, int | None] | None:
    """What the tag ``rc`` names: in the configured spelling, or in another spelling the
    project has used, for a tag that exists (onnxmltools' ``v1.15.0rc1`` beside its
    ``1.14.0``); None for other names (a new tag is spelled as configured)."""
    parsed = names.parse_tag(rc)
    if parsed is None and world.remote_error is None and rc in world.tags():
        return names.read_tag(rc)
    return parsed


def rc_tags(world: World, names: Names, version: Version) -> dict[int, tuple[str, str]]:
    """RC number -> (tag, commit) for the release candidates of ``version``, in any spelling
    the project has used (a number is never taken twice)."""
    found: dict[int, tuple[str, str]] = {}
    for name, commit in sorted(world.tags().items()):
        parsed = names.read_tag(name)
        if parsed and parsed[0] == version and parsed[1] is not None:
            found[parsed[1]] = (name, commit)
    return found


def require_clean(
    world: World, name: str, ignore: AbstractSet[str] = frozenset(), why: str = ""
) -> None:
    dirty = [f for f in world.dirty if f not in ignore]
    if not dirty:
        return
    shown = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
    data = world.journal.data if world.journal else None
    hint = (
        f" An interrupted `{data.get('purpose')}` left files half-edited: re-run it with "
        "--execute to undo and redo it."
        if data
        else " Commit or stash them first (`git stash -u`), then re-run."
    )
    raise PreconditionError(
        f"{name}: the working tree has uncommitted changes ({shown}){why}.{hint}"
    )


def recovery(world: World, name: str) -> tuple[list[Action], set[str]]:
    """Actions that undo an interrupted edit, and the files they restore.

    Invariant (f): a journalled file is restored only when it holds exactly what the edit
    wrote (its SHA-256 is the journal's ``after``); one holding anything else is someone's
    edit, and so is a changed file the journal does not name: both are refused."""
    root, journal = world.root, world.journal
    if journal is None:
        return [], set()
    data = journal.data
    drop = "drop the journal of a finished edit"
    if data is None:
        drop = f"drop the unparsable journal {journal.path} (it names no edit to undo)"
    if data is None or data.get("head") != world.head:
        return [call_action("journal-drop", drop, lambda: drop_journal(root))], set()
    listed = data.get("files")
    dirty = set(world.dirty)
    purpose = data.get("purpose")
    if isinstance(listed, dict):  # {file: {"before": sha, "after": sha}}
        files = [f for f, h in listed.items() if journal.hashes.get(f) == _after(h)]
        theirs = [
            f for f, h in listed.items() if journal.hashes.get(f) not in (_after(h), _before(h))
        ]
        if theirs:
            raise PreconditionError(
                f"{name}: an interrupted `{purpose}` edited {', '.join(sorted(listed))}, and "
                f"{', '.join(theirs)} changed again since (it holds neither what it held nor "
                "what mlrelease wrote): that is someone's edit, and recovery never reverts one. "
                "Keep your change elsewhere, restore the file (`git restore -- "
                f"{' '.join(theirs)}`), re-run, then re-apply your change."
            )
    else:  # a journal naming files only (``mlrelease bump``)
        files = [f for f in listed if isinstance(f, str) and f in dirty] if listed else []
    others = sorted(dirty - set(listed or ()))
    if others:
        left = ", ".join(files) or "no file"
        raise PreconditionError(
            f"{name}: an interrupted `{purpose}` left {left} half-edited, and "
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


def _after(hashes: object) -> object:
    return hashes.get("after") if isinstance(hashes, dict) else None


def _before(hashes: object) -> object:
    return hashes.get("before") if isinstance(hashes, dict) else None
