"""``release bind`` and ``release promote``: the irreversible steps, checked first.

Promotion's order, each step detected as done or not from the outside world:

1. checks, all before anything changes: the RC tag is origin's, annotated, made by
   ``release rc`` and on origin's release branch; the release_verify report covers every
   configured gate for exactly the RC's commit; every artifact matches the manifest bound to
   the RC (from origin, never a sums file next to the artifacts) and that manifest was built
   from the RC's commit;
2. publish (``--publish``), skipped when the index already holds these exact files (by hash),
   refused when it holds other files of the same names;
3. the final tag on the RC's commit, its annotation naming the manifest's SHA-256;
4. the push of the final tag (origin lacks it or has this very tag object).

Publishing before tagging means a promotion killed anywhere completes on re-run: a final tag
never exists without its files (the tag would otherwise say "released" while nothing is), and
the index check never uploads a file twice. In CI the final tag is the trigger and the publish
job runs after it; that job is re-runnable for the same reason (it checks the index too).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from mlrelease import report
from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.edges import proc as processes
from mlrelease.edges.faults import fault_env
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import decide, manifest, rules
from mlrelease.release.config import TABLE, ReleaseConfig, parse_release, series
from mlrelease.release.flow import Flow, _resolve_argv
from mlrelease.release.plan import Plan, call_action, git_action
from mlrelease.release.snapshot import NotGathered, PromoteFacts, ReleaseState
from mlrelease.release.state import (
    MANIFEST_PREFIX,
    Refs,
    Tag,
    rc_problem,
    short,
)
from mlrelease.wheels.promote import PYPI_UPLOAD_URL


@dataclass
class PromotionPlan:
    """A planned promotion (``release promote``); not :class:`mlrelease.wheels.promote.Promotion`,
    the files to upload."""

    plan: Plan
    rc_tag: str
    final_tag: str
    commit: str


def candidate(
    snap: ReleaseState, config: Config, verb: str, rc: str
) -> tuple[Version, int, Tag, Refs, str]:
    """The RC tag as origin has it, checked (pure): (version, number, tag, origin's refs,
    where)."""
    rel = config.table(ReleaseConfig)
    names = config.names
    parsed = names.parse_tag(rc)
    if parsed is None or parsed[1] is None:
        raise UserError(
            f"{verb} --rc {rc!r}: not a release-candidate tag of the configured pattern "
            f"{rel.rc_tag!r} ({TABLE}.rc-tag), e.g. "
            f"{names.rc_tag.format(major=1, minor=4, patch=0, rc=2)!r}."
        )
    target, number = parsed[0], parsed[1]
    remote = snap.origin()
    side = remote.refs if remote else snap.local
    where = remote.name if remote else "this repository"
    rules.check_tags(snap, names, verb, target)
    tag = side.tags.get(rc)
    branch = rc_branch(config, target)
    tip = side.heads.get(branch)
    reachable = bool(tag and tag.commit and tip and snap.is_ancestor(tag.commit, tip))
    problem = rc_problem(tag, rc, where, branch, reachable)
    if problem or tag is None or tag.commit is None:
        raise PreconditionError(f"{verb}: {problem}")
    return target, number, tag, side, where


def rc_branch(config: Config, version: Version) -> str:
    """The branch an RC of ``version`` is tagged on (main itself under the trunk model)."""
    rel = config.table(ReleaseConfig)
    if rel.model == "trunk":
        return rel.main_branch
    return config.names.branch_for(series(version))


def _bound(local: Refs, verb: str, rc: str, side: Refs, where: str) -> str | None:
    """The blob SHA of the RC's manifest (origin's), refusing a local one that differs."""
    theirs, mine = side.manifests.get(rc), local.manifests.get(rc)
    if theirs and mine and theirs != mine:
        raise PreconditionError(
            f"{verb}: the manifest of {rc} here ({short(mine)}) differs from {where}'s "
            f"({short(theirs)}); {where} is the truth: `git update-ref -d {MANIFEST_PREFIX}{rc}`."
        )
    return theirs or (mine if side is local else None)


def plan_bind(snap: ReleaseState, config: Config, rc: str, push: bool = False) -> Plan:
    """``release bind --rc TAG``: record the RC's artifact manifest where a rebuild cannot
    overwrite it (run in the checkout that built the files, at the RC's commit). Pure: it
    decides on ``snap`` (its refs and :class:`~.snapshot.BindFacts`) only."""
    root = snap.root
    plan = Plan("bind", root)
    rules.preflight(snap, "bind")
    _, _, tag, side, where = candidate(snap, config, "bind", rc)
    commit = str(tag.commit)
    if snap.head != commit:
        raise PreconditionError(
            f"bind: HEAD is {short(snap.head)}, but {rc} is {short(commit)}. The manifest records "
            f"the commit the files were built from: `git switch --detach {rc}`, build, then bind."
        )
    rules.require_clean(snap, "bind", why=" (the files must be built from exactly the RC's commit)")
    facts = snap.bind
    if facts is None:
        raise NotGathered("the snapshot holds no bind facts")
    found = facts.found
    if not found or facts.findings:
        shown = "; ".join(facts.findings) or "no wheel or sdist"
        raise PreconditionError(
            f"bind: {facts.folder} does not hold a verified build ({shown}). Build the "
            f"candidate's artifacts there (`nox -s wheels`) and re-run."
        )
    made = manifest.Manifest(rc, commit, found)
    blob = str(facts.made_blob)
    # A local ref not yet pushed (a run killed before its push) counts as bound here.
    bound = _bound(snap.local, "bind", rc, side, where) or snap.local.manifests.get(rc)
    ref = f"{MANIFEST_PREFIX}{rc}"
    if bound and bound != blob:
        old = manifest.Manifest.parse(facts.blobs[bound], ref)
        differ = manifest.compare(old, found)
        raise PreconditionError(
            f"bind: {rc} is already bound to other files ({'; '.join(differ) or 'other commit'})"
            ". A candidate's files are bound once; tag a new release candidate to ship others."
        )
    if bound:
        plan.notes.append(f"{rc} is bound to these {len(found)} files ({short(blob)}).")
    else:
        plan.actions.append(
            call_action("object", f"store the manifest of {rc}", lambda: _store(root, made.text()))
        )
        plan.actions.append(git_action("ref", "update-ref", ref, blob, ""))
    if push:
        remote = rules.require_remote(snap, "bind", config.table(ReleaseConfig).remote)
        if remote.refs.manifests.get(rc) != blob:
            plan.actions.append(git_action("push", "push", "--atomic", remote.name, ref))
    return plan


def _store(root: Path, text: str) -> None:
    git.run(root, "hash-object", "--stdin", "-w", input=text)


def plan_promote(
    snap: ReleaseState,
    config: Config,
    rc: str | None,
    version: str | None = None,
    push: bool = False,
    publish: bool = False,
    repository_url: str = PYPI_UPLOAD_URL,
) -> PromotionPlan:
    """``release promote --rc vX.Y.Z-rcN``: verify, publish, tag vX.Y.Z on the RC's commit.

    Pure: it decides on ``snap`` (its refs and :class:`~.snapshot.PromoteFacts`) only."""
    root, rel = snap.root, config.table(ReleaseConfig)
    names = config.names
    plan = Plan("promote", root)
    rules.preflight(snap, "promote")
    if rc is None:
        if version is None:
            raise UserError("promote: give --rc TAG (e.g. --rc v1.4.0-rc2) or --version X.Y.Z.")
        asked = parse_release(version)
        found = rules.rc_tags(snap, names, asked)
        if not found:
            raise PreconditionError(
                f"promote: {asked} has no release candidate; tag one with "
                "`mlrelease release rc --execute` on its release branch."
            )
        rc = found[max(found)][0]
    parsed = names.parse_tag(rc)
    if parsed and parsed[1] is not None:
        rcs = rules.rc_tags(snap, names, parsed[0])
        newer = sorted(n for n in rcs if n > parsed[1])
        if newer:
            newest = rcs[newer[-1]][0]
            raise PreconditionError(
                f"promote: {newest} is newer than {rc}; only the newest release candidate can "
                f"be promoted. Verify and promote it instead: `mlrelease release promote --rc "
                f"{newest}`."
            )
    target, _, tag, side, where = candidate(snap, config, "promote", rc)
    commit = str(tag.commit)
    final = names.final_tag(target)
    existing = side.tags.get(final) or snap.local.tags.get(final)
    if existing is not None and existing.commit != commit:
        raise PreconditionError(
            f"promote: {final} already exists at {short(existing.commit)}, not at {rc}'s commit "
            f"{short(commit)}. A release tag is never moved: release a new patch version."
        )
    facts = snap.promote
    if facts is None:
        raise NotGathered("the snapshot holds no promotion facts")
    if existing is None:
        carried = snap.version_at(commit)
        if carried != str(target):
            raise PreconditionError(
                f"promote: {rc}'s commit carries version {carried}, not {target}; its artifacts "
                f"would not be {target}. Tag a candidate whose files carry {target} "
                f"(`mlrelease release prepare --version {target}`)."
            )
        check_report(facts, config.gates, rc, commit)
    bound = _bound(snap.local, "promote", rc, side, where)
    if bound is None:
        raise PreconditionError(
            f"promote: no artifact manifest is bound to {rc} on {where}; bind the candidate's "
            f"files where they were built: `mlrelease release bind --rc {rc} --execute --push`."
        )
    remote = snap.origin()
    world = decide.World(
        rc=rc,
        commit=commit,
        final=final,
        existing=existing,
        final_on_origin=bool(remote and final in remote.refs.tags),
        bound=manifest.Manifest.parse(facts.blobs[bound], f"{MANIFEST_PREFIX}{rc}"),
        found=facts.found,
        folder=facts.folder,
        index=facts.index if publish else None,
        index_url=facts.index_url,
        push=push,
    )
    decision = decide.decide(world)  # the pure part: every refusal is made here or above
    plan.notes += decision.notes
    command = [
        a.format(
            artifacts=facts.folder,
            version=str(target),
            rc_tag=rc,
            final_tag=final,
            repository_url=repository_url,
        )
        for a in rel.publish
    ]
    shown = shlex.join(command)
    if "publish" in decision.steps:
        plan.actions.append(call_action("publish", f"publish: {shown}", _publish(root, command)))
    elif not publish and existing is None:
        plan.after.append(f"Next, publish the RC's verified artifacts (no rebuild): {shown}")
    if "tag" in decision.steps:
        subject = f"{target} (promoted from {rc})"
        trailer = f"{manifest.TRAILER}: {world.bound.digest}"
        plan.actions.append(
            git_action("tag", "tag", "-a", final, commit, "-m", subject, "-m", trailer)
        )
    if "push" in decision.steps:
        name = rules.require_remote(snap, "promote", rel.remote).name
        plan.actions.append(git_action("push", "push", "--atomic", name, f"refs/tags/{final}"))
    return PromotionPlan(plan, rc, final, commit)


def plan_untagged_final(
    flow: Flow, rc: str | None, version: str | None, push: bool, publish: bool
) -> PromotionPlan:
    """``release promote`` under ``rc-model = "bump"`` (no RC tag to promote): the final
    version and its tag, planned by :func:`mlrelease.release.untagged.plan_final`."""
    from mlrelease.release.untagged import plan_final

    if rc is not None or publish:
        raise UserError(
            f"promote: {TABLE}.rc-model is 'bump': there is no RC tag to promote and the "
            "final release is built from its own tag; omit --rc and --publish."
        )
    done = plan_final(flow, version, push)
    final = flow.names.final_tag(Version(version)) if version else ""
    return PromotionPlan(done, "", final, git.head(flow.root) or "")


def check_report(facts: PromoteFacts, gates: list[str], rc: str, commit: str) -> None:
    """The RC's release_verify report must pass :func:`verdict_problem`."""
    if facts.report_error:
        raise UserError(facts.report_error)
    path = facts.report_path
    if facts.report is None:
        raise PreconditionError(
            f"promote: no release_verify report at {path} ({TABLE}.rc-report, or --report). "
            f"Verify the candidate first: `git switch --detach {rc} && nox -s release_verify`, "
            "or pass --report with the RC's report.json from CI."
        )
    problem = verdict_problem(facts.report, gates, rc, commit, path)
    if problem:
        raise PreconditionError(f"promote: {problem}")


def verdict_problem(
    verdict: report.Report, gates: list[str], rc: str, commit: str, path: str
) -> str | None:
    """Why a report does not allow promoting ``rc``: not of its commit, not complete (every
    configured gate, not a shard or an ``--only`` run), or failing; None when it allows it."""
    if verdict.commit != commit:
        return (
            f"{path} verifies commit {short(verdict.commit)}, not {rc}'s commit "
            f"{short(commit)}. Run release_verify on {rc} (`git switch --detach {rc} && nox -s "
            "release_verify`) or pass --report with that run's report.json."
        )
    ran = {r.name for r in verdict.results}
    missing = [g for g in gates if g not in ran]
    if verdict.shard is not None or missing:
        what = f"shard {verdict.shard[0]}/{verdict.shard[1]}" if verdict.shard else "partial"
        return (
            f"{path} is a {what} report: it lacks "
            f"{', '.join(missing) or 'the other shards'} of the configured gates. Promotion "
            "needs the whole verdict: run `nox -s release_verify` without --only/--skip, or "
            "merge every shard (`mlrelease report merge`)."
        )
    if not verdict.ok:
        failing = [
            f"{r.name} ({r.status.value}: {r.summary})" for r in verdict.results if not r.status.ok
        ]
        return (
            f"the release_verify report of {rc} ({path}) fails: {'; '.join(failing)}. "
            "Fix, cherry-pick, tag a new release candidate and verify it."
        )
    return None


def _publish(root: Path, command: list[str]) -> Callable[[], None]:
    def run() -> None:
        proc = processes.call(_resolve_argv(command), cwd=root, env=fault_env(), capture=False)
        if proc.returncode != 0:
            raise UserError(
                f"`{shlex.join(command)}` exited {proc.returncode}; nothing was tagged. Fix the "
                "cause and re-run: files the index already holds are not uploaded again."
            )

    return run
