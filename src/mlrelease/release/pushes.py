"""Every ref push of the release commands: planned on the world (:func:`push_action`) and
checked again by its gatekeeper (:func:`before_push`) right before ``git push`` sends it.

A pushed branch or tag cannot be taken back: CI runs on it, colleagues fetch it, and a
project's own workflow may publish on a tag. Planning decided the push on origin's refs as the
command read them, seconds or minutes earlier (a cut commits and edits first). So right before
the push, origin's refs are listed again (``git ls-remote``) and the push is refused, with
nothing sent, when something that decision rested on moved:

- a branch being pushed (invariant (h): git itself refuses only a push that is not a
  fast-forward; a colleague who force-pushed the branch back would have their rewind undone);
- any release tag of the project, in any spelling it has used (``Names.read_tag``): a final
  tag of the version that appeared makes the candidate one of a released version (invariant
  (i)); a newer release candidate changes the numbering; the same tag made elsewhere.

Other refs (feature branches, CI's own tags) do not stop a push. Each tag being sent is also read
from this clone and must be the very object this clone's record says a release command made
(invariant (l)); a tag moved or re-made here since is not sent.

The push then sends what the gatekeeper read (:func:`sent`): each object by its SHA, a branch
with a lease on the commit origin had when the command planned, so git refuses a branch moved on
origin after the last listing. A release tag another push makes in that last moment cannot stop
a push that does not send it; :func:`after_push` lists origin once more and names it at once.

:func:`before_push` is pure (refs in, a refusal out); :func:`recheck` reads what it compares,
through :mod:`.world.refs` and :mod:`.world.made`, for :func:`push_action`'s pushes and for the
final tag ``release promote`` pushes (after :func:`~.promotion.gatekeeper.before_tag_push`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mlrelease.edges import git
from mlrelease.errors import PreconditionError
from mlrelease.naming import Names
from mlrelease.release import rules
from mlrelease.release.plan import Action, git_action
from mlrelease.release.world import made, queries, refs
from mlrelease.release.world.snapshot import (
    FINAL_MARKER,
    RC_MARKER,
    MadeTag,
    Refs,
    Tag,
    World,
    short,
)

_TAGS = "refs/tags/"
_HEADS = "refs/heads/"


class PushRefused(PreconditionError):
    """Origin moved under a planned push, or a tag to send is not the one made; nothing was
    sent."""


def push_action(
    world: World, remote_name: str, pushed: list[str], changed: set[str], names: Names
) -> Action | None:
    """``git push --atomic REMOTE refs...`` for the refs the remote lacks or will lack, behind
    :func:`before_push`.

    Decided while planning, so before the first change: origin is not ahead of a branch to
    push, and a tag to push is absent on origin or the very same tag object."""
    remote = rules.require_remote(world, "push", remote_name)
    needed: list[str] = []
    for ref in pushed:
        if ref.startswith(_TAGS):
            name = ref[len(_TAGS) :]
            theirs = remote.tag_objects.get(name)
            mine_tag = world.local.tags.get(name)
            mine = mine_tag.tag_object if mine_tag else None
            if theirs and ref in changed:
                raise PreconditionError(
                    f"push: {remote.name} already has a tag {name} "
                    f"({short(remote.tags.get(name))}) that this command would create; "
                    f"fetch it (`git fetch {remote.name} tag {name}`) and re-run."
                )
            # A tag this clone lacks and does not make is origin's to keep: nothing to send.
            if ref in changed or (mine is not None and theirs != mine):
                needed.append(ref)
            continue
        rules.require_current(world, "push", [ref])
        if ref in changed or remote.heads.get(ref) != world.local.heads.get(ref):
            needed.append(ref)
    if not needed:
        return None
    args = ("push", "--atomic", remote.name, *map(rules.refspec, needed))
    return git_action(
        "push",
        *args,
        check=lambda: recheck(world, needed, names),
        after=lambda: after_push(world, needed, names),
    )


def recheck(world: World, pushed: Sequence[str], names: Names) -> tuple[str, ...]:
    """:func:`before_push` on origin's refs listed now, against ``world``'s (read when the
    command planned), with this clone's refs and its record of the tags it made: the ``check``
    of every push, right before ``git push`` (:func:`push_action`'s, and ``release promote``'s
    final tag after its own gatekeeper). Returns the push to run: :func:`sent`'s, of the very
    objects checked here."""
    remote, root = world.origin(), world.root
    if remote is None:  # no remote: nothing is pushed (require_remote refused the plan)
        raise PushRefused("push: no remote was read for this command; nothing was pushed.")
    listed, _ = refs.ls_remote(root, remote.name, (_HEADS, _TAGS))
    local = refs.read_local(root)
    tags = any(r.startswith(_TAGS) for r in pushed)
    records = made.read(git.common_dir(root)) if tags else {}
    before_push(remote.name, remote.refs, listed, pushed, names, (local.tags, records))
    return sent(
        remote.name, remote.refs, pushed, local, lambda a, b: queries.is_ancestor(root, a, b)
    )


def sent(
    remote: str,
    planned: Refs,
    pushed: Sequence[str],
    local: Refs,
    ancestor: Callable[[str, str], bool],
) -> tuple[str, ...]:
    """``git push`` arguments that send the objects in ``local`` (read by the gatekeeper), not
    whatever the names hold a moment later: ``<tag object>:refs/tags/T`` for a tag (git itself
    refuses to overwrite a tag origin has); ``<commit>:refs/heads/B`` for a branch, with a
    lease on the commit origin had when the command planned (absent: the branch must still be
    absent), so a branch moved on origin after the gatekeeper listed it is refused by git, and
    nothing is sent (``--atomic``). A branch is only ever pushed forward from that commit."""
    leases: list[str] = []
    specs: list[str] = []
    for ref in pushed:
        if ref.startswith(_TAGS):
            specs.append(f"{local.tags[ref[len(_TAGS) :]].tag_object}:{ref}")
            continue
        name = ref[len(_HEADS) :] if ref.startswith(_HEADS) else ref
        mine, was = local.heads.get(name), planned.heads.get(name)
        if mine is None or (was is not None and not ancestor(was, mine)):
            raise PushRefused(
                f"push: branch {name} in this clone ({_shown(mine)}) does not build on "
                f"{remote}'s {_shown(was)}, which this command planned on; nothing was pushed. "
                "Re-run the command."
            )
        leases.append(f"--force-with-lease={_HEADS}{name}:{was or ''}")
        specs.append(f"{mine}:{_HEADS}{name}")
    return ("push", "--atomic", *leases, remote, *specs)


class OriginRaced(PreconditionError):
    """A push went out, and origin changed around it: another push landed in the moment between
    the gatekeeper's last listing and this one."""


def after_push(world: World, pushed: Sequence[str], names: Names) -> None:
    """Origin listed once more, right after the push: a release tag that another push made or
    moved since the command planned (in the milliseconds after :func:`recheck` listed origin,
    which no push can guard: ``git push`` is conditional only on the refs it sends) is named
    at once, with what now stands on origin, instead of being found at the next step."""
    remote = world.origin()
    if remote is None:
        return
    listed, _ = refs.ls_remote(world.root, remote.name, (_TAGS,))
    moved = [m for m in _moved(remote.refs, listed, (), names) if not _ours(m, pushed)]
    if moved:
        raise OriginRaced(
            f"push: {', '.join(pushed)} went out to {remote.name}, and {remote.name} changed "
            f"around that push ({'; '.join(moved)}): another push landed in the moment after "
            "this command's last look at origin, and both now stand there. Nothing more was "
            f"done. Look at them (`git ls-remote --tags {remote.name}`) and decide which stays "
            "before the next step: `mlrelease release status` shows the release as origin has it."
        )


def _ours(phrase: str, pushed: Sequence[str]) -> bool:
    return any(phrase.startswith(f"tag {ref[len(_TAGS) :]}:") for ref in pushed)


def before_push(
    remote: str,
    planned: Refs,
    now: Mapping[str, str],
    pushed: Sequence[str],
    names: Names,
    here: tuple[Mapping[str, Tag], Mapping[str, MadeTag]],
) -> None:
    """Refuse the push of ``pushed`` (branch names or ``refs/tags/...``) when ``now`` (origin's
    ``ls-remote``: ref -> object) differs from ``planned`` (origin's refs as the command read
    them) in a pushed branch or in a release tag, or when a tag to send (``here``: this clone's
    tags and its record of the tags it made) is not the object a release command made."""
    moved = _moved(planned, now, pushed, names)
    if moved:
        raise PushRefused(
            f"push: {remote} changed since this command read it ({'; '.join(moved)}); "
            f"nothing was pushed. Re-run the command: it plans again on {remote}'s refs as "
            "they are now (what it made here and did not push is picked up, or refused with "
            "the reason)."
        )
    tags, records = here
    for ref in pushed:
        if not ref.startswith(_TAGS):
            continue
        name = ref[len(_TAGS) :]
        tag, record = tags.get(name), records.get(name)
        ours = (
            tag is not None
            and record is not None
            and (record.names(tag, RC_MARKER) or record.names(tag, FINAL_MARKER))
            and tag.commit == record.commit
        )
        if not ours:
            found = f"object {short(tag.tag_object)}" if tag else "no such tag here"
            raise PushRefused(
                f"push: {name} in this clone ({found}) is not the tag a release command made "
                f"here (invariant (l)); nothing was pushed. If it was re-made or moved by hand, "
                f"delete it (`git tag -d {name}`) and re-run the command."
            )


def _moved(planned: Refs, now: Mapping[str, str], pushed: Sequence[str], names: Names) -> list[str]:
    """What moved on origin since planning, as phrases: the pushed branches, the release tags."""
    moved: list[str] = []
    for branch in (r for r in pushed if not r.startswith(_TAGS)):
        name = branch[len(_HEADS) :] if branch.startswith(_HEADS) else branch
        was, new = planned.heads.get(name), now.get(_HEADS + name)
        if was != new:
            moved.append(f"branch {name}: {_shown(was)} -> {_shown(new)}")
    listed = {ref[len(_TAGS) :] for ref in now if ref.startswith(_TAGS)}
    for name in sorted(listed | set(planned.tags)):
        if names.read_tag(name) is None and _TAGS + name not in pushed:
            continue
        tag = planned.tags.get(name)
        was, new = (tag.tag_object if tag else None), now.get(_TAGS + name)
        if was != new:
            moved.append(f"tag {name}: {_shown(was)} -> {_shown(new)}")
    return moved


def _shown(sha: str | None) -> str:
    return short(sha) if sha else "absent"
