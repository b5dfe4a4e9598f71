"""``release rc`` (the annotated, mlrelease-made release-candidate tag): a pure planner over a
:class:`~.world.snapshot.World`."""

from __future__ import annotations

from packaging.version import Version

from mlrelease import version_files
from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.project import changelog
from mlrelease.release import branch_edits, own_publishing, pins, pushes, rules
from mlrelease.release.config import (
    KEEP_BUMPED,
    TABLE,
    ReleaseConfig,
    series,
    series_text,
    version_model,
)
from mlrelease.release.plan import Plan
from mlrelease.release.world import made
from mlrelease.release.world.snapshot import RC_MARKER, NotGathered, World, parse_version, short

# --- rc -------------------------------------------------------------------------------------


TAG_HELP = (
    "the expected tag name: the next number, or any number above the newest RC (the numbers "
    "skipped are named); with --rebuild, a run whose tag exists finds nothing to do; under "
    'version-source = "scm", where no file carries a version, it names the version too '
    "(default: the next patch of the newest release)"
)
"""``release rc --tag``'s help: what the tag asked for decides."""


def _branch_version(
    world: World, config: Config, names: Names, name: str, tag: str | None = None
) -> tuple[str, tuple[int, int], Version]:
    """On a release branch with consistent version files that the version model releases
    from: (branch, series, the version the RC is of). ``tag``: the RC tag asked for, which
    names the version under ``scm``, where no file carries one."""
    rel = config.table(ReleaseConfig)
    branch = world.branch
    wanted = names.series_of_branch(branch)
    tree = world.worktree
    if tree is None:
        raise NotGathered("the snapshot holds no work tree")
    named = _scm_version(config, names, tag)
    if wanted is None and branch == rel.main_branch and rel.model == "trunk":
        # Trunk model: main carries the release; its series is the version's.
        wanted = series(named or parse_version(tree.current, "pyproject.toml"))
    if branch is None or wanted is None:
        where = f"on {branch}" if branch else "on a detached HEAD"
        example = names.branch.template.format(major="X", minor="Y", patch="Z")
        raise PreconditionError(
            f"{name}: you are {where}, not on a release branch ({TABLE}.branch = "
            f"{rel.branch!r}). Release candidates are tagged on the release branch: "
            f"`git switch {example}` (cut it "
            "with `mlrelease release cut --version X.Y` if it does not exist)."
        )
    rules.require_clean(world, name)
    if tree.hand_edit:
        raise PreconditionError(
            f"{name}: {version_files.stale_current(tree.current, tree.hand_edit)}.",
            repair=version_files.SYNC_REPAIR,
        )
    if tree.stale:
        raise PreconditionError(
            f"{name}: the version files disagree (current_version {tree.current}): "
            f"{'; '.join(tree.stale)}. Fix them (`mlrelease verify --only versions` shows each)."
        )
    if named is not None:
        if series(named) != wanted:
            raise PreconditionError(
                f"{name} --tag {tag}: {named} is not of the {series_text(wanted)} series "
                f"{branch} releases."
            )
        return branch, wanted, named
    carried = parse_version(tree.current, "pyproject.toml")
    model = version_model(config)
    pre = carried.pre
    if not model.from_tag and pre and pre[0] == "rc" and series(carried) == wanted:
        tag = names.rc_tag_for(Version(carried.base_version), pre[1])
        raise PreconditionError(
            f"{name}: {branch} carries {carried}, a release candidate's own version (the "
            f'version files name it: version-bump RCs). Under {TABLE}.rc-model = "tag" a '
            "candidate's files carry the final version, and promote tags that commit final. "
            f'To keep {carried}: set {TABLE}.rc-model = "bump" and rc-tagged = true, then '
            f"re-run (release rc tags {tag} on HEAD, and promote sets and tags the final "
            "version).",
            repair=KEEP_BUMPED,
        )
    if not model.releasable(carried) or series(carried) != wanted:
        promise = "a version" if model.from_tag else "the final version"
        raise PreconditionError(
            f"{name}: {branch} carries {carried}; a release candidate needs {promise} "
            f"of the {series_text(wanted)} series. Run `mlrelease release prepare --version "
            f"{wanted[0]}.{wanted[1]}.0 --execute` (or the patch version you are releasing)."
        )
    released = [v for v, rc in filter(None, map(names.read_tag, world.tags())) if rc is None]
    return branch, wanted, model.release_of(carried, released)


def _scm_version(config: Config, names: Names, tag: str | None) -> Version | None:
    """The version ``--tag`` names under ``version-source = "scm"``, where the tags are the
    version and no file says the next one (None otherwise: the files say it)."""
    if tag is None or version_model(config).files_carry:
        return None
    parsed = names.parse_tag(tag)
    return parsed[0] if parsed is not None and parsed[1] is not None else None


def _check_changelog(world: World, config: Config, version: Version, notes: list[str]) -> None:
    """Invariant (k): the changelog section is required only when the changelog gate is
    configured; under ``version-source = "tag"`` the gate checks it at verify time (a note)."""
    tree = world.worktree
    if "changelog" not in config.gates or tree is None:
        return
    if changelog.has_section(tree.changelog, version):
        return
    if version_model(config).from_tag:
        notes.append(f"{config.changelog} has no {version} section yet (the changelog gate).")
        return
    raise PreconditionError(
        f"rc: {config.changelog} has no {version} section (the changelog gate requires one). "
        f"Run `mlrelease release prepare --version {version} --execute`, which writes it."
    )


def _check_edits(world: World, config: Config, branch: str, wanted: tuple[int, int]) -> None:
    """What ``release status`` flags on the branch is refused here: a release-only edit the
    branch lacks (never made, or undone by a pick that brought back, e.g., a nightly pin)."""
    rel = config.table(ReleaseConfig)
    if rel.model == "trunk" or not rel.edits:
        return
    text = series_text(wanted)
    missing = branch_edits.missing_edits(world, config, text)
    if missing:
        raise PreconditionError(
            f"rc: {branch} lacks release-only edits ({TABLE}.edits): {'; '.join(missing)}. "
            "A candidate built now would ship them unmade. "
            f"`{branch_edits.cut_command(world, config, text)} --execute --push` commits them "
            "on the existing branch; then re-run."
        )


def _refuse_released_head(tags: dict[str, str], names: Names, head: str, version: Version) -> None:
    """A new candidate of ``version`` on a commit already released as another version would
    ship the same bytes under a second version (under ``version-source = "tag"`` the files do
    not change between releases, so nothing else stops it)."""
    for tag, commit in sorted(tags.items()):
        parsed = names.parse_tag(tag)
        if commit == head and parsed and parsed[1] is None and parsed[0] != version:
            raise PreconditionError(
                f"rc: HEAD ({short(head)}) is already released as {tag}; a {version} release "
                "candidate needs new commits on the branch: cherry-pick a fix first "
                "(`mlrelease release cherry-picks` lists them)."
            )


def _problem_at_head(world: World, name: str, branch: str) -> str | None:
    """Why the RC tag ``name`` at HEAD is no candidate (a hand-made tag: promotion would refuse
    it later), as origin has it (here, without it); None when it is one."""
    remote = world.origin()
    theirs = remote.refs.tags.get(name) if remote else None
    where = remote.name if remote and theirs else "this repository"
    return rules.rc_problem(theirs or world.local.tags.get(name), name, where, branch, True)


def _asked_number(
    tag: str | None, names: Names, rel: ReleaseConfig, version: Version, branch: str
) -> int | None:
    """The RC number ``--tag`` asks for (None without it); refused unless it is an RC tag of
    the configured pattern and of the version the branch carries."""
    if tag is None:
        return None
    parsed = names.parse_tag(tag)
    if parsed is None or parsed[1] is None:
        example = names.rc_tag_for(version, 1)
        raise UserError(
            f"rc --tag {tag!r}: not a release-candidate tag of the configured pattern "
            f"{rel.rc_tag!r} ({TABLE}.rc-tag), e.g. {example!r}. Omit --tag to use "
            "the next free number."
        )
    if parsed[0] != version:
        raise UserError(
            f"rc --tag {tag}: tags {parsed[0]}, but {branch} carries {version}. Omit --tag."
        )
    return parsed[1]


def _number(
    rcs: dict[int, tuple[str, str]],
    first: int,
    asked: int | None,
    tag: str | None,
    notes: list[str],
) -> int:
    """The new candidate's number: after origin's newest RC (``first`` when there is none), or
    the one ``--tag`` asks for when it is above (the numbers skipped are named: a gap is the
    maintainer's call)."""
    number = max(rcs, default=first - 1) + 1
    if asked is None or asked == number:
        return number
    if asked < number:
        taken = ", ".join(rcs[n][0] for n in sorted(rcs)) or "none"
        raise UserError(
            f"rc --tag {tag}: release candidates are numbered after the newest one; the next "
            f"free number is {number} (taken: {taken}). Omit --tag, or pass a number of "
            f"{number} or above."
        )
    skipped = ", ".join(f"rc{n}" for n in range(number, asked))
    notes.append(f"{tag} skips {skipped}: no candidate will carry those numbers.")
    return asked


def require_after_newest(
    world: World, rcs: dict[int, tuple[str, str]], head: str, branch: str
) -> None:
    """Refuse a new candidate on a HEAD that does not contain the newest RC tag."""
    if rcs:
        last_name, last_commit = rcs[max(rcs)]
        if not world.is_ancestor(last_commit, head):
            raise PreconditionError(
                f"rc: HEAD does not contain {last_name} ({short(last_commit)}); a new "
                f"release candidate must build on the previous one. Was {branch} reset?"
            )


def _at_head(world: World, rcs: dict[int, tuple[str, str]], head: str) -> list[int]:
    """The numbers of the RCs of the version tagged on HEAD, oldest first."""
    return sorted(n for n, (_, commit) in rcs.items() if commit == head)


def plan_rc(
    world: World, config: Config, tag: str | None = None, push: bool = False, rebuild: bool = False
) -> Plan:
    """``release rc``: the annotated tag vX.Y.Z-rcN (N = the number after origin's newest RC)
    on HEAD; with ``rebuild``, on HEAD again when HEAD is already a candidate (a rebuild of the
    same commit, e.g. after the build infrastructure changed)."""
    root, rel = world.root, config.table(ReleaseConfig)
    names = config.names
    plan = Plan("rc", root)
    rules.preflight(world, "rc")
    branch, wanted, version = _branch_version(world, config, names, "rc", tag)
    head = str(world.head)
    rcs = rules.rc_tags(world, names, version)
    at_head = _at_head(world, rcs, head)
    asked = _asked_number(tag, names, rel, version, branch)
    if rebuild and asked is not None and asked in at_head:  # made and pushed: nothing to do
        at_head, rebuild = [asked], False
    problem = _problem_at_head(world, rcs[at_head[-1]][0], branch) if at_head else None
    # HEAD rebuilt already by `release rc` (a re-run): another rebuild only when --tag asks.
    rebuilt = rebuild and asked is None and len(at_head) > 1 and problem is None
    if rebuilt:
        rebuild = False
    if not at_head or problem or rebuild:  # only the shipped candidate at HEAD is nothing to do
        rules.refuse_released(world, config, version, "rc")  # invariant (j): before the rest
    _check_changelog(world, config, version, plan.notes)
    if not at_head or rebuild:  # a new tag: nothing the branch is known to lack
        _check_edits(world, config, branch, wanted)
        pins.refuse(world, "rc", branch)
    rules.check_tags(world, names, "rc", version)
    changed: set[str] = set()
    if at_head and not rebuild:
        name = rcs[at_head[-1]][0]
        if problem:
            raise PreconditionError(f"rc: {problem}")
        if tag is not None and tag != name:
            raise PreconditionError(
                f"rc: HEAD is already release candidate {name}; tag a new commit for {tag}, or "
                f"pass --rebuild to tag HEAD again as {tag} (a rebuild of the same commit)."
            )
        again = names.rc_tag_for(version, max(rcs) + 1)
        how = f"--rebuild --tag {again}" if rebuilt else "--rebuild"
        plan.notes.append(
            f"HEAD ({short(head)}) is already {name}"
            + (" (a rebuild)" if rebuilt else "")
            + ". To build the same commit again as a new candidate: "
            f"`mlrelease release rc {how} --execute --push` (tags {again})."
        )
    else:
        name = _new_tag(world, config, (version, branch, head), rcs, (asked, tag, rebuild), plan)
        changed.add(f"refs/tags/{name}")
    if push:
        action = pushes.push_action(
            world, rel.remote, [branch, f"refs/tags/{name}"], changed, names
        )
        if action:
            plan.actions.append(action)
    return plan


def _new_tag(
    world: World,
    config: Config,
    where: tuple[Version, str, str],
    rcs: dict[int, tuple[str, str]],
    asked: tuple[int | None, str | None, bool],
    plan: Plan,
) -> str:
    """The new candidate's tag on HEAD: planned (or found made here, not pushed yet)."""
    names = config.names
    version, branch, head = where
    number_asked, tag, rebuild = asked
    if rebuild and not _at_head(world, rcs, head):
        raise UserError(
            f"rc --rebuild: HEAD ({short(head)}) is no release candidate of {version} yet: "
            "there is nothing to rebuild. Omit --rebuild to tag it as a new candidate."
        )
    _refuse_released_head(world.tags(), names, head, version)
    first = config.table(ReleaseConfig).rc_first
    number = _number(rcs, first, number_asked, tag, plan.notes)
    name = names.rc_tag_for(version, number)
    own_publishing.refuse(world, config, version, name)
    require_after_newest(world, rcs, head, branch)
    if rules.own_unpushed(world, name, head, RC_MARKER, "rc"):
        plan.notes.append(f"HEAD ({short(head)}) is already {name} here, not pushed yet.")
        return name
    subject = f"{version} release candidate {number}"
    lines = ["-m", subject, "-m", RC_MARKER]
    if rebuild:
        of = rcs[_at_head(world, rcs, head)[-1]][0]
        lines = ["-m", f"{subject} (a rebuild of {of})", "-m", f"{RC_MARKER}\nRebuild-of: {of}"]
    plan.actions.append(made.tag_action(world.root, name, head, "rc", "-a", name, *lines))
    return name
