"""The gatekeeper: the release invariants (docs/release/invariants.md), checked before each
irreversible act on the exact bytes that are sent (pure: facts and bytes in, a refusal out).

- :func:`before_upload`: a file to an index; (a), (b)'s report and T3 on the release channel,
  (d).
- :func:`before_tag_push`: the final tag; (b), (d), T3, and (a) on the index promote read.
- :func:`before_manifest_push`: a binding; (c), (d), T3.

The fourth act, the push of a branch or an RC tag, has its gatekeeper where every such push is
planned: :func:`mlrelease.release.pushes.before_push`.

T3 (the train's "no member bound to a wrong upstream") is :func:`upstream_problem`: a train
member's manifest records the upstream candidate it was built against, which must be current
(:mod:`.upstream`); with the train's other invariants it is checked by
:mod:`mlrelease.train.gatekeeper` too.

Invariant (a) is read by :mod:`~mlrelease.release.promotion.held` (the index as installers
read it), re-exported here.

The planners call the same checks while planning, so a dry run shows a refusal; the acts call
them again at the last moment, on what they are about to send.
"""

from __future__ import annotations

import hashlib

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release import rules
from mlrelease.release.config import TABLE, ReleaseConfig
from mlrelease.release.promotion import upstream
from mlrelease.release.promotion.held import Held as Held
from mlrelease.release.promotion.held import compare as compare
from mlrelease.release.promotion.held import index_problem as index_problem
from mlrelease.release.promotion.manifest import TRAILER, Entry, Manifest, named_digest
from mlrelease.release.promotion.verdict import RcVerdict
from mlrelease.release.world.snapshot import (
    BOUND_PREFIX,
    FINAL_MARKER,
    RC_MARKER,
    Index,
    Tag,
    Target,
    World,
    short,
)
from mlrelease.report import Report


class Violation(PreconditionError):
    """An act would break a release invariant; nothing was sent."""


def candidate(world: World, config: Config, names: Names, verb: str) -> tuple[Target, Tag, str]:
    """The RC of ``world.target`` as origin has it, checked: (target, tag, where). Under
    ``rc-model = "bump"`` the files are bound to, and published from, the final tag."""
    target = world.aimed()
    rc, rel = target.rc, config.table(ReleaseConfig)
    bump = rel.rc_model == "bump"
    parsed = rules.rc_named(world, names, rc) if rc else None
    if rc is None:
        raise PreconditionError(
            f"{verb}: {target.version} has no release candidate; tag one with `mlrelease "
            "release rc --execute` on its release branch."
        )
    if parsed is None or (parsed[1] is None) != bump:
        pattern, key = (rel.tag, "tag") if bump else (rel.rc_tag, "rc-tag")
        example = names.final_tag(target.version) if bump else names.rc_tag_for(target.version, 2)
        raise UserError(
            f"{verb} --rc {rc!r}: not a {'final' if bump else 'release-candidate'} tag of the "
            f"configured pattern {pattern!r} ({TABLE}.{key}) or another spelling the project "
            f"has used, e.g. {example!r}."
        )
    remote = world.origin()
    side = remote.refs if remote else world.local
    where = remote.name if remote else "this repository"
    rules.check_tags(world, names, verb, target.version)
    tag = side.tags.get(rc)
    tip = side.heads.get(target.branch)
    reachable = bool(tag and tag.commit and tip and world.is_ancestor(tag.commit, tip))
    marker = FINAL_MARKER if bump else RC_MARKER
    problem = rules.rc_problem(tag, rc, where, target.branch, reachable, marker)
    if problem or tag is None or tag.commit is None:
        raise PreconditionError(f"{verb}: {problem}")
    return target, tag, where


def bound(world: World, rc: str, commit: str, verb: str) -> Manifest:
    """The manifest bound to ``rc`` on origin (here, without a remote), checked against (d):
    one binding, its content hashing to its name, the one this clone made if it made one, and
    of ``rc`` at ``commit``."""
    remote = world.origin()
    where = remote.name if remote else "this repository"
    theirs = dict((remote.refs if remote else world.local).bindings.get(rc, {}))
    mine = dict(world.local.bindings.get(rc, {}))
    blobs = world.facts().blobs
    for digest, blob in {**mine, **theirs}.items():
        found = blobs.get(blob, ("", ""))[0]
        if found != digest:
            raise Violation(
                f"{verb}: {BOUND_PREFIX}{rc}/{digest[:16]}... holds a manifest whose SHA-256 is "
                f"{found[:16] or 'unknown'}...: the binding of {rc} was replaced (a forced update) "
                "and cannot be trusted. Nothing was published or tagged; find out who moved it."
            )
    if len(theirs) > 1:
        raise Violation(
            f"{verb}: {where} binds {rc} to {len(theirs)} manifests "
            f"({', '.join(d[:16] + '...' for d in sorted(theirs))}); a candidate is bound once. "
            "Nothing was published or tagged; find out which binding is genuine."
        )
    if remote and mine and theirs and set(mine) != set(theirs):
        (ours,) = mine
        raise Violation(
            f"{verb}: {where}'s binding of {rc} ({next(iter(theirs))[:16]}...) is not the one "
            f"this clone made ({ours[:16]}...): it was replaced on {where}. Nothing was "
            f"published or tagged. This clone's binding stays: push it back (`git push {where} "
            f"{BOUND_PREFIX}{rc}/{ours}`) once the replacement is removed from {where}."
        )
    if not theirs:
        raise PreconditionError(
            f"{verb}: no artifact manifest is bound to {rc} on {where}; bind the candidate's "
            f"files where they were built: `mlrelease release bind --rc {rc} --execute --push`."
        )
    ((digest, blob),) = theirs.items()
    manifest = Manifest.parse(blobs[blob][1], f"{BOUND_PREFIX}{rc}/{digest}")
    if manifest.commit != commit or manifest.rc_tag != rc:
        raise Violation(
            f"{verb}: the manifest bound to {rc} is of {manifest.rc_tag} at "
            f"{short(manifest.commit)}, not of {rc} at {short(commit)}: the files were not built "
            "from the candidate."
        )
    return manifest


def report_problem(verdict: RcVerdict | None, rc: str, commit: str) -> str | None:
    """Why the RC's report is not the complete, passing verdict of its commit (b); None when
    it is."""
    if verdict is None or verdict.error:
        return verdict.error if verdict else "no release_verify report was read"
    report, path = verdict.report, verdict.path
    if report is None:
        return (
            f"no release_verify report at {path} ({TABLE}.rc-report, or --report). Verify the "
            f"candidate first: `git switch --detach {rc} && mlrelease verify`, or pass "
            "--report with the RC's report.json from CI"
        )
    if report.commit != commit:
        return (
            f"{path} verifies commit {short(report.commit)}, not {rc}'s commit {short(commit)}. "
            f"Run release_verify on {rc} (`git switch --detach {rc} && mlrelease verify`) "
            "or pass --report with that run's report.json"
        )
    tree = report.worktree
    redo = f"; run release_verify again on a clean checkout of {rc}"
    if tree is None:
        return f"{path} does not record the tree it verified (an older mlrelease made it){redo}"
    if tree.hidden:
        return (
            f"{path} was made on a tree with changes git status hides (--skip-worktree or "
            f"--assume-unchanged: {', '.join(tree.hidden[:5])}), not on {rc}'s commit{redo}"
        )
    if tree.dirty:
        return (
            f"{path} was made on a tree with uncommitted changes ({', '.join(tree.dirty[:5])}), "
            f"not on {rc}'s commit{redo}"
        )
    if tree.tree != verdict.tree or tree.config_sha256 != verdict.config_sha256:
        return (
            f"{path} verified another tree or another pyproject.toml than {rc}'s commit "
            f"(an uncommitted configuration){redo}"
        )
    return _complete(report, verdict, rc, path)


def _complete(report: Report, verdict: RcVerdict, rc: str, path: str) -> str | None:
    ran = {r.name for r in report.results}
    missing = [g for g in verdict.gates if g not in ran]
    if report.shard is not None or missing:
        what = f"shard {report.shard[0]}/{report.shard[1]}" if report.shard else "partial"
        return (
            f"{path} is a {what} report: it lacks {', '.join(missing) or 'the other shards'} of "
            f"the gates configured at {rc}. Promotion needs the whole verdict: run `mlrelease "
            "verify` without --only/--skip, or merge every shard (`mlrelease report "
            "merge`)"
        )
    if not report.ok:
        failing = [
            f"{r.name} ({r.status.value}: {r.summary})" for r in report.results if not r.status.ok
        ]
        return (
            f"the release_verify report of {rc} ({path}) fails: {'; '.join(failing)}. Fix, "
            "cherry-pick, tag a new release candidate and verify it"
        )
    return None


def judge_final(
    world: World, target: Target, commit: str, manifest: Manifest, verdict: RcVerdict | None
) -> Tag | None:
    """The final tag if it exists and is this promotion's own (mlrelease's, on the RC's commit,
    naming the bound manifest); any other existing final tag is judged against (b), reported,
    and never adopted."""
    remote = world.origin()
    final, rc = target.final, str(target.rc)
    theirs = remote.refs.tags.get(final) if remote else None
    existing = theirs or world.local.tags.get(final)
    if existing is None:
        return None
    where = "on origin" if theirs else "only in this clone, not on origin"
    if existing.commit != commit and not theirs:
        raise Violation(
            f"promote: this clone has a tag {final} at {short(existing.commit)} that origin does "
            f"not, not at {rc}'s commit {short(commit)}: it was never released, and decides "
            f"nothing. Delete it here (`git tag -d {final}`), then re-run promote."
        )
    if existing.commit != commit:
        raise Violation(
            f"promote: {final} already exists at {short(existing.commit)} ({where}), not at {rc}'s "
            f"commit {short(commit)}. A release tag is never moved: release a new patch version."
        )
    # A tag only this clone has is promote's own only by this clone's record (a fork's final
    # tag, fetched here, carries the same annotation); origin's is judged by its annotation.
    made_here = theirs is not None or world.made_here(final, FINAL_MARKER)
    ours = (
        made_here
        and existing.made_by(FINAL_MARKER)
        and named_digest(existing.message) == manifest.digest
    )
    if ours:
        return existing
    problem = report_problem(verdict, rc, commit)
    judged = f"(b) is violated: {problem}" if problem else "(b) holds for it (the report passes)"
    kind = (
        f"{'an annotated' if existing.annotated else 'a lightweight'} tag without the manifest "
        f"of {rc}"
        if made_here
        else "this clone's record of the tags it made does not name it: made by hand, or a "
        "fork's fetched here"
    )
    fix = (
        "It is published: a published tag is never deleted or moved, so it stays the release "
        "of record, unproven by promote; release the next patch version through promote."
        if theirs
        else f"Only this clone has it: delete it (`git tag -d {final}`) and re-run promote, which "
        f"tags {final} naming the manifest's SHA-256."
    )
    raise Violation(
        f"promote: {final} exists ({where}) at {rc}'s commit, but `release promote` did not "
        f"make it ({kind}); it is not adopted. {judged}. {fix}"
    )


def before_upload(
    world: World,
    manifest: Manifest,
    entry: Entry,
    sha256: str,
    size: int,
    held: Index,
    channel: str,
) -> None:
    """Before ``entry`` is uploaded: the staged bytes are the bound file's, the index holds no
    foreign or other bytes (a, read just now), and on the release channel the report passes."""
    if manifest.entry(entry.name) != entry or (sha256, size) != (entry.sha256, entry.size):
        raise Violation(
            f"publish: the bytes staged for {entry.name} hash to {sha256[:16]}... ({size} bytes), "
            f"not the bound {entry.sha256[:16]}... ({entry.size} bytes); nothing was sent."
        )
    problem = index_problem(held, manifest, complete=False)
    if problem:
        raise Violation(f"publish: {problem}")
    if channel == "release":
        target = world.aimed()
        problem = report_problem(world.facts().verdict, str(target.rc), manifest.commit)
        problem = problem or upstream_problem(world, manifest, final=True)
        if problem:
            raise Violation(f"publish: {problem}; nothing was sent.")


def before_tag_push(world: World, manifest: Manifest, tag_object: str, held: Index | None) -> None:
    """Before the final tag is pushed: the tag object (its raw text, as it will be sent)
    points at the RC's commit and names the bound manifest, the report passes (b), and an
    index given holds exactly the manifest's files (a)."""
    target = world.aimed()
    head, _, message = tag_object.partition("\n\n")
    fields = dict(line.split(" ", 1) for line in head.splitlines() if " " in line)
    if (
        fields.get("object") != manifest.commit
        or fields.get("tag") != target.final
        or named_digest(message) != manifest.digest
        or FINAL_MARKER not in message.splitlines()
    ):
        raise Violation(
            f"promote: the tag object about to be pushed as {target.final} is not the one "
            f"promote made (object {short(fields.get('object'))}, {TRAILER} "
            f"{named_digest(message) or 'missing'}); nothing was pushed."
        )
    problem = report_problem(world.facts().verdict, str(target.rc), manifest.commit)
    problem = problem or index_problem(held, manifest, complete=True)
    problem = problem or upstream_problem(world, manifest, final=True)
    if problem:
        raise Violation(f"promote: {problem}; {target.final} was not pushed.")


def before_manifest_push(
    world: World, manifest: Manifest, blob_text: str, findings: tuple[str, ...]
) -> str:
    """Before a binding is pushed: the files are this release's, built from the RC's commit
    (c), and origin binds the RC to no other manifest (d). Returns the ref to push."""
    if findings:
        raise Violation(
            f"bind: the files are not {manifest.rc_tag}'s: {'; '.join(findings)}. Nothing was "
            "bound; build the candidate's files from its commit into an empty folder."
        )
    digest = hashlib.sha256(blob_text.encode()).hexdigest()
    if blob_text != manifest.text():
        raise Violation("bind: the manifest blob is not the manifest planned; nothing was pushed.")
    problem = upstream_problem(world, manifest, final=False)
    if problem:
        raise Violation(f"bind: {problem}. Nothing was bound.")
    remote = world.origin()
    others = set(remote.refs.bindings.get(manifest.rc_tag, {})) - {digest} if remote else set()
    if others:
        raise Violation(
            f"bind: {remote.name if remote else 'origin'} already binds {manifest.rc_tag} to "
            f"other files ({', '.join(o[:16] + '...' for o in sorted(others))}). A candidate's "
            "files are bound once; tag a new release candidate to ship others."
        )
    return f"{BOUND_PREFIX}{manifest.rc_tag}/{digest}"


def upstream_problem(world: World, manifest: Manifest, *, final: bool) -> str | None:
    """Why an upstream record of ``manifest`` (a train member's) is not current on its
    upstream's origin, as read for this command (T3); with ``final``, why that upstream is not
    released yet. None when every record is (or there is none)."""
    origins = world.facts().upstreams
    for record in manifest.upstream:
        problem = upstream.problem(record, origins.get(record.origin), final=final)
        if problem:
            return (
                f"{manifest.rc_tag} was built and tested against {record.project} "
                f"{record.version} ({record.rc_tag}), and {problem} (train invariant T3)"
            )
    return None
