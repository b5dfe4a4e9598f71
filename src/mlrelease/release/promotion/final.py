"""``release promote --rc vX.Y.Z-rcN``: the final tag vX.Y.Z on exactly the RC's commit (pure
planner), after publishing with ``--publish``.

Checks first, all before anything changes: the RC is origin's annotated tag made by ``release
rc`` on origin's release branch, the newest RC of its version; its binding is intact (d); its
release_verify report is the complete, passing verdict of its commit, tree and configuration
(b) (read on every run: an existing final tag never skips it); a final tag that already exists
and is not this promotion's is judged and reported, never adopted. Then, in order, each
detected as done or not from the outside world: publish (the one publish path), the final tag
(its annotation names the manifest's SHA-256), and its push by SHA behind
:func:`~.gatekeeper.before_tag_push`. Publishing before tagging means a final tag never exists
without its files, and a promotion killed anywhere completes on re-run.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release import pushes, rules
from mlrelease.release.config import TABLE, ReleaseConfig, version_model
from mlrelease.release.plan import Action, Plan, git_action
from mlrelease.release.promotion import gatekeeper, index
from mlrelease.release.promotion.manifest import TRAILER, Manifest
from mlrelease.release.promotion.publish import plan_publish
from mlrelease.release.world import made
from mlrelease.release.world.snapshot import (
    FINAL_MARKER,
    PromoteFacts,
    Tag,
    Target,
    World,
    parse_version,
    short,
)


@dataclass
class PromotionPlan:
    """A planned promotion: the plan, the RC, the final tag and the commit."""

    plan: Plan
    rc_tag: str
    final_tag: str
    commit: str


@dataclass(frozen=True)
class _Chosen:
    """What :func:`plan_promote` settled before it plans the index and the push, read from the
    snapshot once: the target, the RC's manifest and the promotion facts."""

    target: Target
    manifest: Manifest
    facts: PromoteFacts


def _newest(world: World, names: Names, target: Target) -> None:
    rc = target.rc
    if rc is None:
        raise PreconditionError(
            f"promote: {target.version} has no release candidate; tag one with `mlrelease "
            "release rc --execute` on its release branch."
        )
    parsed = rules.rc_named(world, names, rc)
    if parsed and parsed[1] is not None:
        rcs = rules.rc_tags(world, names, parsed[0])
        newer = sorted(n for n in rcs if n > parsed[1])
        if newer:
            newest = rcs[newer[-1]][0]
            raise PreconditionError(
                f"promote: {newest} is newer than {rc}; only the newest release candidate can "
                f"be promoted. Verify and promote it instead: `mlrelease release promote --rc "
                f"{newest}`."
            )


def _candidate(world: World, config: Config, names: Names) -> tuple[Target, Tag]:
    """The RC to promote, checked (the newest of its version, origin's annotated tag made by
    ``release rc``). Invariant (j): when the version is already released, that is the refusal,
    not what would only matter for releasing it (a lightweight or older RC tag); promote goes on
    only with a valid candidate, to complete or judge the existing final tag."""
    try:
        _newest(world, names, world.aimed())
        target, tag, _ = gatekeeper.candidate(world, config, names, "promote")
    except PreconditionError:
        reason = rules.released_reason(world, config, world.aimed().version)
        if reason is None:
            raise
        raise PreconditionError(f"promote: {reason}") from None
    other = rules.released_tag(world, names, target.version)
    if other is not None and other != target.final:  # invariant (i): released in another spelling
        raise PreconditionError(
            f"promote: {rules.released_reason(world, config, target.version)} Its final tag in "
            f"the configured spelling, {target.final}, would release it a second time."
        )
    twice = _released_twice(world, names, target.version)
    if twice is not None:
        raise PreconditionError(
            f"promote: {target.version} has final tags on more than one commit on origin "
            f"({twice}): it was released twice. Nothing was done. Which one is the release is "
            "a person's call (who installed what); mlrelease moves and deletes no final tag."
        )
    return target, tag


def _released_twice(world: World, names: Names, version: Version) -> str | None:
    """Invariant (b): the final tags of ``version`` on origin, in every spelling the project has
    used, when they name more than one commit (``v1.4.0`` on C, ``1.4.0`` on D), as a phrase;
    None when at most one commit was released as ``version``."""
    remote = world.remote
    tags = remote.refs.tags if remote is not None else world.local.tags
    finals = sorted(n for n in tags if names.read_tag(n) == (version, None))
    if len({tags[n].commit for n in finals}) < 2:
        return None
    return ", ".join(f"{n} on {short(tags[n].commit)}" for n in finals)


def plan_promote(
    world: World,
    config: Config,
    *,
    push: bool = False,
    publish: bool = False,
    repository_url: str | None = None,
    elsewhere: bool = False,
) -> PromotionPlan:
    """The plan of ``release promote`` for ``world.target``'s RC: the index the facts hold
    (``repository_url``, the one ``release publish`` recorded, or the configured one) must
    hold exactly the bound files; ``publish`` uploads to it first; with no index known it
    refuses unless ``elsewhere`` (publishing happens elsewhere)."""
    rel = config.table(ReleaseConfig)
    names = config.names
    plan = Plan("promote", world.root)
    rules.preflight(world, "promote")
    target, tag = _candidate(world, config, names)
    rc, commit, final = str(target.rc), str(tag.commit), target.final
    manifest = gatekeeper.bound(world, rc, commit, "promote")
    facts = world.facts()
    existing = gatekeeper.judge_final(world, target, commit, manifest, facts.verdict)
    carried = world.version_at(commit)
    model = version_model(config)  # under version-source = "tag" the RC's tag gave the version
    if not model.agrees(target.version, parse_version(carried, commit)):
        promise = "a version of its series up to" if model.from_tag else ""
        raise PreconditionError(
            f"promote: {rc}'s commit carries version {carried}, not {promise}"
            f"{' ' if promise else ''}{target.version}; its artifacts would not be "
            f"{target.version}. Tag a candidate whose files carry {target.version} (`mlrelease "
            f"release prepare --version {target.version}`)."
        )
    problem = gatekeeper.report_problem(facts.verdict, rc, commit)
    problem = problem or gatekeeper.upstream_problem(world, manifest, final=True)
    if problem:
        raise gatekeeper.Violation(f"promote: {problem}; nothing was published or tagged.")
    plan.notes.append(f"{rc}'s report passes for its commit, tree and configuration.")
    chosen = _Chosen(target, manifest, facts)
    _index(plan, world, config, chosen, publish, repository_url, elsewhere)
    if existing is None:
        plan.actions.append(
            made.tag_action(
                world.root,
                final,
                commit,
                "promote",
                "-a",
                final,
                commit,
                "-m",
                f"{target.version} (promoted from {rc})",
                "-m",
                FINAL_MARKER,
                "-m",
                f"{TRAILER}: {manifest.digest}",
            )
        )
    else:
        plan.notes.append(f"{final} already points at {rc}'s commit, naming its manifest.")
    remote = world.origin()
    if push and not (remote and final in remote.refs.tags):
        name = rules.require_remote(world, "promote", rel.remote).name
        held = facts.index
        url = repository_url or (held.repository if held else None)
        plan.actions.append(_push(world, chosen, name, url, config))
    return PromotionPlan(plan, rc, final, commit)


def _index(
    plan: Plan,
    world: World,
    config: Config,
    chosen: _Chosen,
    publish: bool,
    repository_url: str | None,
    elsewhere: bool,
) -> None:
    """Publish first (``publish``), or check that the known index holds exactly the bound
    files (a); refused when no index is known, unless ``elsewhere``."""
    target, held, manifest = chosen.target, chosen.facts.index, chosen.manifest
    if publish:
        if repository_url is None:
            raise UserError("promote --publish: give --repository-url (the index to publish to).")
        plan_publish(world, config, "release", repository_url, plan)
    elif held is not None:
        problem = gatekeeper.index_problem(held, manifest, complete=True)
        if problem:
            raise gatekeeper.Violation(f"promote: {problem}; {target.final} was not tagged.")
        plan.notes.append(f"{held.url} ({held.source}) holds exactly the bound files.")
    elif elsewhere:
        plan.notes.append(
            "the index was not read (--published-elsewhere): make sure it holds exactly the "
            f"bound files of {target.rc} before anyone installs {target.version}."
        )
    else:
        raise PreconditionError(
            f"promote: no index is known for {target.rc}: it was not published from this clone "
            f"(`mlrelease release publish` records where), {TABLE}.index is not set, and no "
            "--repository-url was given, so nothing proves the files are there. Give the index "
            "(--repository-url, or index in pyproject.toml), or --published-elsewhere when "
            f"another system publishes; {target.final} was not tagged."
        )


def _push(
    world: World, chosen: _Chosen, remote: str, repository_url: str | None, config: Config
) -> Action:
    """The push of the final tag, behind :func:`~.gatekeeper.before_tag_push`: the tag object
    is read and checked right before ``git push`` sends it."""
    final, version, manifest = chosen.target.final, chosen.target.version, chosen.manifest
    project = config.project_name

    def check() -> tuple[str, ...]:
        sha = git.run(world.root, "rev-parse", "--verify", f"refs/tags/{final}")
        text = git.run(world.root, "cat-file", "tag", sha, strip=False)
        held = None
        if repository_url is not None:
            names = {e.name for e in manifest.files}
            held = index.read(repository_url, project, version, download=names)
        gatekeeper.before_tag_push(world, manifest, text, held)
        args = pushes.recheck(world, [f"refs/tags/{final}"], config.names)
        if f"{sha}:refs/tags/{final}" not in args:  # re-made here while it was checked
            raise pushes.PushRefused(
                f"push: {final} in this clone moved while it was checked; nothing was pushed. "
                "Re-run the command."
            )
        return args

    pushed = [f"refs/tags/{final}"]
    return git_action(
        "push",
        "push",
        "--atomic",
        remote,
        rules.refspec(pushed[0]),
        check=check,
        after=lambda: pushes.after_push(world, pushed, config.names),
    )
