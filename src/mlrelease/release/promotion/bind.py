"""``release bind --rc TAG``: bind the RC's files to it (pure planner).

Run in the checkout that built the files, at the RC's commit. The files must be this release's,
built from the RC's commit (invariant (c)); they are copied into the content-addressed store
(what is published later, never ``dist/``), and their manifest is stored as a blob under
``refs/mlrelease/bound/<rc>/<sha256 of the manifest>`` and pushed by its SHA, once: a candidate
is bound to one set of files (invariant (d)). A train member's manifest records the upstream
candidate it was built against (``mlrelease train bind``), which must be current (T3).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.errors import PreconditionError
from mlrelease.release import rules
from mlrelease.release.config import ReleaseConfig
from mlrelease.release.plan import Action, Plan, call_action, git_action
from mlrelease.release.promotion import gatekeeper, provenance, store
from mlrelease.release.promotion.manifest import Entry, Manifest, Upstream, compare
from mlrelease.release.world.snapshot import BOUND_PREFIX, World, short


def plan_bind(
    world: World, config: Config, push: bool = False, upstream: tuple[Upstream, ...] = ()
) -> Plan:
    """The plan of ``release bind`` for ``world.target``'s RC (recording ``upstream``)."""
    names = config.names
    plan = Plan("bind", world.root)
    rules.preflight(world, "bind")
    target, tag, where = gatekeeper.candidate(world, config, names, "bind")
    rc, commit = str(target.rc), str(tag.commit)
    if world.head != commit:
        raise PreconditionError(
            f"bind: HEAD is {short(world.head)}, but {rc} is {short(commit)}. The manifest "
            f"records the commit the files were built from: `git switch --detach {rc}`, build, "
            "then bind."
        )
    rules.require_clean(
        world, "bind", why=" (the files must be built from exactly the RC's commit)"
    )
    facts = world.facts()
    if not facts.found or facts.findings:
        shown = "; ".join(facts.findings) or "no wheel or sdist"
        raise PreconditionError(
            f"bind: {facts.folder} does not hold {rc}'s files, built from its commit ({shown}). "
            + _rebuild_advice(rc, facts.unlike)
            + " Nothing was bound."
        )
    made = Manifest(rc, commit, facts.found, upstream, facts.accepted, facts.reference)
    problem = gatekeeper.upstream_problem(world, made, final=False)
    if problem:
        raise gatekeeper.Violation(f"bind: {problem}. Nothing was bound.")
    plan.notes += [f"accepted: {d.line()}" for d in facts.accepted]
    digest = made.digest
    _bound_once(world, made, rc, where)
    ref = f"{BOUND_PREFIX}{rc}/{digest}"
    blob = provenance.blob_id(made.text().encode())
    missing = [e for e in made.files if facts.stored.get(e.sha256) != e.size]
    if missing:
        line = f"store {', '.join(e.name for e in missing)} (by SHA-256, for publishing)"
        plan.actions.append(call_action("store", line, _store(world.root, facts.folder, missing)))
    if digest in world.local.bindings.get(rc, {}):
        plan.notes.append(f"{rc} is bound to these {len(made.files)} files ({digest[:16]}...).")
    else:
        plan.actions += [
            call_action("object", f"store the manifest of {rc}", _object(world.root, made)),
            git_action("ref", "update-ref", ref, blob, ""),
        ]
    if push:
        remote = rules.require_remote(world, "bind", config.table(ReleaseConfig).remote)
        if digest not in remote.refs.bindings.get(rc, {}):
            plan.actions.append(_push(world, made, blob, ref, remote.name))
    return plan


def _rebuild_advice(rc: str, unlike: tuple[str, ...]) -> str:
    """How to build files that bind: into an empty folder, and from a working tree that is
    what a checkout of the commit writes (a clean ``git status`` does not say so)."""
    empty = (
        f"Build the candidate's artifacts from {rc} into an empty folder (the project's own "
        "build, e.g. `python -m build --outdir DIR`) and re-run."
    )
    if not unlike:
        return empty
    shown = ", ".join(unlike[:5]) + (f" and {len(unlike) - 5} more" if len(unlike) > 5 else "")
    return (
        f"This working tree is not what a checkout of {rc} writes: {shown} differ from a fresh "
        "checkout, though `git status` is clean (git attributes such as `ident` or `eol`, "
        "`core.autocrlf` or a filter applied after these files were written), so no build of "
        "it can match. Check the files out again (`git rm --cached -r -q . && git reset --hard "
        f"{rc}`) or build in a fresh clone (`git clone --branch {rc} ORIGIN DIR`), then build "
        "into an empty folder and re-run."
    )


def _bound_once(world: World, made: Manifest, rc: str, where: str) -> None:
    """Refuse a second binding of ``rc`` (origin's, or this clone's not yet pushed)."""
    remote = world.origin()
    theirs = set(remote.refs.bindings.get(rc, {})) if remote else set()
    mine = set(world.local.bindings.get(rc, {}))
    others = (theirs | mine) - {made.digest}
    if not others:
        return
    facts = world.facts()
    blobs = {
        **world.local.bindings.get(rc, {}),
        **(remote.refs.bindings.get(rc, {}) if remote else {}),
    }
    old = sorted(others)[0]
    text = facts.blobs.get(blobs[old], ("", ""))[1]
    try:
        differ = compare(Manifest.parse(text, f"{BOUND_PREFIX}{rc}/{old}"), made.files)
    except Exception:  # an unreadable binding is another binding all the same
        differ = []
    raise PreconditionError(
        f"bind: {rc} is already bound to other files ({'; '.join(differ) or 'another manifest'}"
        f", {old[:16]}... on {where if old in theirs else 'this clone'}). A candidate's files "
        "are bound once; tag a new release candidate to ship others."
    )


def _store(root: Path, folder: str, entries: list[Entry]) -> Callable[[], None]:
    def run() -> None:
        for entry in entries:
            stored = store.put(root, Path(folder) / entry.name)
            if stored != entry:
                raise PreconditionError(
                    f"bind: {entry.name} changed while it was bound (now {stored.sha256[:16]}..., "
                    f"planned {entry.sha256[:16]}...); nothing was bound. Re-run bind."
                )

    return run


def _object(root: Path, made: Manifest) -> Callable[[], None]:
    def run() -> None:
        git.run(root, "hash-object", "--stdin", "-w", input=made.text())

    return run


def _push(world: World, made: Manifest, blob: str, ref: str, remote: str) -> Action:
    """The push of the binding, by the blob's SHA, behind
    :func:`~.gatekeeper.before_manifest_push` (run right before ``git push`` sends it)."""

    def check() -> None:
        text = git.run(world.root, "cat-file", "blob", blob, strip=False)
        gatekeeper.before_manifest_push(world, made, text, world.facts().findings)
        for entry in made.files:  # what publishing will read: complete before it is bound
            store.check(world.root, entry)

    return git_action("push", "push", "--atomic", remote, f"{blob}:{ref}", check=check)
