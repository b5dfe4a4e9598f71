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
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from mlrelease import git, report
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import decide, manifest, repo
from mlrelease.release.flow import Flow, _resolve_argv
from mlrelease.release.plan import Plan, call_action, fault_env, git_action
from mlrelease.release.settings import TABLE, parse_release, series
from mlrelease.release.state import (
    MANIFEST_PREFIX,
    Refs,
    Tag,
    rc_problem,
    short,
)
from mlrelease.wheels import artifacts as wheel_artifacts
from mlrelease.wheels import published as index
from mlrelease.wheels.promote import PYPI_UPLOAD_URL


@dataclass
class Promotion:
    plan: Plan
    rc_tag: str
    final_tag: str
    commit: str


def _candidate(flow: Flow, verb: str, rc: str) -> tuple[Version, int, Tag, Refs, str]:
    """The RC tag as origin has it, checked: (version, number, tag, origin's refs, where)."""
    parsed = flow.names.parse_tag(rc)
    if parsed is None or parsed[1] is None:
        raise UserError(
            f"{verb} --rc {rc!r}: not a release-candidate tag of the configured pattern "
            f"{flow.rel.rc_tag!r} ({TABLE}.rc-tag), e.g. "
            f"{flow.names.rc_tag.format(major=1, minor=4, patch=0, rc=2)!r}."
        )
    target, number = parsed[0], parsed[1]
    remote, local = flow.remote(), flow.local()
    side = remote.refs if remote else local
    where = remote.name if remote else "this repository"
    flow.check_tags(verb, target)
    tag = side.tags.get(rc)
    trunk = flow.rel.model == "trunk"  # RCs are tagged on main itself
    branch = flow.rel.main_branch if trunk else flow.names.branch_for(series(target))
    tip = side.heads.get(branch)
    reachable = bool(tag and tag.commit and tip and repo.is_ancestor(flow.root, tag.commit, tip))
    problem = rc_problem(tag, rc, where, branch, reachable)
    if problem or tag is None or tag.commit is None:
        raise PreconditionError(f"{verb}: {problem}")
    return target, number, tag, side, where


def _bound(flow: Flow, verb: str, rc: str, side: Refs, where: str) -> str | None:
    """The blob SHA of the RC's manifest (origin's), refusing a local one that differs."""
    theirs, mine = side.manifests.get(rc), flow.local().manifests.get(rc)
    if theirs and mine and theirs != mine:
        raise PreconditionError(
            f"{verb}: the manifest of {rc} here ({short(mine)}) differs from {where}'s "
            f"({short(theirs)}); {where} is the truth: `git update-ref -d {MANIFEST_PREFIX}{rc}`."
        )
    return theirs or (mine if side is flow.local() else None)


def plan_bind(flow: Flow, rc: str, folder: str | None, push: bool = False) -> Plan:
    """``release bind --rc TAG``: record the RC's artifact manifest where a rebuild cannot
    overwrite it (run in the checkout that built the files, at the RC's commit)."""
    root = flow.root
    plan = Plan("bind", root)
    _, _, tag, side, where = _candidate(flow, "bind", rc)
    commit = str(tag.commit)
    head = git.head(root)
    if head != commit:
        raise PreconditionError(
            f"bind: HEAD is {short(head)}, but {rc} is {short(commit)}. The manifest records the "
            f"commit the files were built from: `git switch --detach {rc}`, build, then bind."
        )
    flow.require_clean("bind", why=" (the files must be built from exactly the RC's commit)")
    path = flow.config.path(folder or flow.rel.artifacts)
    findings = wheel_artifacts.verify_sums(path) if path.is_dir() else []
    found = manifest.entries(path) if path.is_dir() else ()
    if not found or findings:
        shown = "; ".join(str(f) for f in findings) or "no wheel or sdist"
        raise PreconditionError(
            f"bind: {path} does not hold a verified build ({shown}). Build the candidate's "
            f"artifacts there (`nox -s wheels`) and re-run."
        )
    made = manifest.Manifest(rc, commit, found)
    blob = _hash(root, made.text(), write=False)
    # A local ref not yet pushed (a run killed before its push) counts as bound here.
    bound = _bound(flow, "bind", rc, side, where) or flow.local().manifests.get(rc)
    ref = f"{MANIFEST_PREFIX}{rc}"
    if bound and bound != blob:
        old = manifest.Manifest.parse(_blob(root, bound), ref)
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
        remote = flow.require_remote("bind")
        if remote.refs.manifests.get(rc) != blob:
            plan.actions.append(git_action("push", "push", "--atomic", remote.name, ref))
    return plan


def _hash(root: Path, text: str, write: bool = True) -> str:
    args = ["git", "hash-object", "--stdin", *(["-w"] if write else [])]
    proc = subprocess.run(args, cwd=root, input=text, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def _store(root: Path, text: str) -> None:
    _hash(root, text)


def _blob(root: Path, sha: str) -> str:
    return git.run(root, "cat-file", "blob", sha) + "\n"


def plan_promote(
    flow: Flow,
    rc: str | None,
    version: str | None = None,
    report_path: Path | None = None,
    push: bool = False,
    publish: bool = False,
    artifacts: str | None = None,
    repository_url: str = PYPI_UPLOAD_URL,
) -> Promotion:
    """``release promote --rc vX.Y.Z-rcN``: verify, publish, tag vX.Y.Z on the RC's commit."""
    if flow.rel.rc_model == "bump":
        from mlrelease.release.untagged import plan_final

        if rc is not None or publish:
            raise UserError(
                f"promote: {TABLE}.rc-model is 'bump': there is no RC tag to promote and the "
                "final release is built from its own tag; omit --rc and --publish."
            )
        done = plan_final(flow, version, push)
        final = flow.names.final_tag(Version(version)) if version else ""
        return Promotion(done, "", final, git.head(flow.root) or "")
    root, names = flow.root, flow.names
    plan = Plan("promote", root)
    if rc is None:
        if version is None:
            raise UserError("promote: give --rc TAG (e.g. --rc v1.4.0-rc2) or --version X.Y.Z.")
        asked = parse_release(version)
        found = flow.rc_tags(asked)
        if not found:
            raise PreconditionError(
                f"promote: {asked} has no release candidate; tag one with "
                "`mlrelease release rc --execute` on its release branch."
            )
        rc = found[max(found)][0]
    parsed = flow.names.parse_tag(rc)
    if parsed and parsed[1] is not None:
        rcs = flow.rc_tags(parsed[0])
        newer = sorted(n for n in rcs if n > parsed[1])
        if newer:
            newest = rcs[newer[-1]][0]
            raise PreconditionError(
                f"promote: {newest} is newer than {rc}; only the newest release candidate can "
                f"be promoted. Verify and promote it instead: `mlrelease release promote --rc "
                f"{newest}`."
            )
    target, _, tag, side, where = _candidate(flow, "promote", rc)
    commit = str(tag.commit)
    final = names.final_tag(target)
    existing = side.tags.get(final) or flow.local().tags.get(final)
    if existing is not None and existing.commit != commit:
        raise PreconditionError(
            f"promote: {final} already exists at {short(existing.commit)}, not at {rc}'s commit "
            f"{short(commit)}. A release tag is never moved: release a new patch version."
        )
    if existing is None:
        carried = repo.version_at(root, commit)
        if carried != str(target):
            raise PreconditionError(
                f"promote: {rc}'s commit carries version {carried}, not {target}; its artifacts "
                f"would not be {target}. Tag a candidate whose files carry {target} "
                f"(`mlrelease release prepare --version {target}`)."
            )
        check_report(flow, report_path, rc, commit)
    bound = _bound(flow, "promote", rc, side, where)
    if bound is None:
        raise PreconditionError(
            f"promote: no artifact manifest is bound to {rc} on {where}; bind the candidate's "
            f"files where they were built: `mlrelease release bind --rc {rc} --execute --push`."
        )
    folder = flow.config.path(artifacts or flow.rel.artifacts)
    remote = flow.remote()
    held = None
    if publish:
        name = str(flow.config.pyproject.get("project", {}).get("name", ""))
        held = index.index_files(repository_url, name)
    world = decide.World(
        rc=rc,
        commit=commit,
        final=final,
        existing=existing,
        final_on_origin=bool(remote and final in remote.refs.tags),
        bound=manifest.Manifest.parse(_blob(root, bound), f"{MANIFEST_PREFIX}{rc}"),
        found=manifest.entries(folder) if folder.is_dir() else (),
        folder=str(folder),
        index=held,
        index_url=index.simple_url(repository_url),
        push=push,
    )
    decision = decide.decide(world)  # the pure part: every refusal is made here or above
    plan.notes += decision.notes
    command = [
        a.format(
            artifacts=str(folder),
            version=str(target),
            rc_tag=rc,
            final_tag=final,
            repository_url=repository_url,
        )
        for a in flow.rel.publish
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
        name = flow.require_remote("promote").name
        plan.actions.append(git_action("push", "push", "--atomic", name, f"refs/tags/{final}"))
    return Promotion(plan, rc, final, commit)


def check_report(flow: Flow, path: Path | None, rc: str, commit: str) -> None:
    """The RC's release_verify report must pass :func:`verdict_problem`."""
    path = path or flow.config.path(flow.rel.rc_report)
    if not path.is_file():
        raise PreconditionError(
            f"promote: no release_verify report at {path} ({TABLE}.rc-report, or --report). "
            f"Verify the candidate first: `git switch --detach {rc} && nox -s release_verify`, "
            "or pass --report with the RC's report.json from CI."
        )
    problem = verdict_problem(report.read(path), flow.config.gates, rc, commit, str(path))
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
        proc = subprocess.run(_resolve_argv(command), cwd=root, env=fault_env(), check=False)
        if proc.returncode != 0:
            raise UserError(
                f"`{shlex.join(command)}` exited {proc.returncode}; nothing was tagged. Fix the "
                "cause and re-run: files the index already holds are not uploaded again."
            )

    return run
