"""``release cherry-picks``: each fix on main since the fork, whether the release wants it
(:mod:`~mlrelease.release.wanted`: the trailer, a milestone file, or every fix), and whether it
reached the release branch (invariant (e): a fix reaches it at most once), with the evidence used.

A fix is picked when a commit of the branch has its patch id, names it in a ``(cherry picked
from commit ...)`` line (in full or abbreviated), or names the same pull request; it is
**maybe picked** when one has the same normalised subject (``--mark`` decides); it is
**withdrawn** when main reverted it, **reverted on the branch** when the branch reverted its
pick; a fix the release does not want and the branch lacks is **not wanted**; a commit of main
that is no fix but reached the branch is listed as picked. Only a missing
(wanted) fix is picked by ``--execute``. :func:`plan_picks` is pure: it decides on
a :class:`~.world.snapshot.World` only."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import pushes, rules, wanted
from mlrelease.release.commit_subjects import named_prs, normalised, pr_number
from mlrelease.release.config import TABLE, ReleaseConfig, series_text
from mlrelease.release.plan import Plan, git_action
from mlrelease.release.world.snapshot import BranchCommit, NotGathered, PickFacts, World, short

OVERRIDE = "Release-Pick-Override"
"""The trailer of an empty commit on the release branch: ``<sha> picked|not-needed``."""
STATES = ("picked", "not-needed")
PICKED = ("picked", "adapted", "same-pr", "marked")
"""States in which a fix counts as on the branch."""


@dataclass
class Pick:
    commit: str
    subject: str
    state: str
    """picked, adapted (by its -x line), same-pr, marked, maybe (same subject), withdrawn
    (reverted on main), reverted (on the branch) or missing."""
    on_branch: str | None = None
    """The branch commit that carries it (or resembles it, or reverted its pick)."""
    override: tuple[str, str] | None = None
    """(``picked`` or ``not-needed``, reason) recorded by ``--mark`` on the branch."""
    evidence: str = ""
    """How it was found on the branch (or withdrawn): a patch id, a ``-x`` line, a PR number."""
    wanted: str | None = None
    """Why the release wants it (the trailer, the milestone file, a fix since the fork)."""

    @property
    def picked(self) -> bool:
        return self.state in PICKED


def _carrier(sha: str, equivalent: bool, facts: PickFacts) -> tuple[str, str | None] | None:
    """(how, the branch commit) that carries fix ``sha``, if one does."""
    if equivalent:
        mine = facts.own_patches.get(sha, ())
        return "picked", next((facts.on_branch[p] for p in mine if p in facts.on_branch), None)
    for commit in facts.branch_commits:
        if any(len(s) >= 7 and sha.startswith(s) for s in commit.picked_from):
            return "adapted", commit.sha
    return None


EVIDENCE = {
    "picked": "the same patch (patch id)",
    "adapted": "its `(cherry picked from commit ...)` line",
    "maybe": "the same subject only",
    "marked": "a `--mark` record on the branch",
}


def identify(sha: str, subject: str, equivalent: bool, facts: PickFacts) -> Pick:
    """Whether fix ``sha`` reached the branch, and how (invariant (e))."""
    if sha in facts.marked:
        return Pick(sha, subject, "marked", override=facts.marked[sha], evidence=EVIDENCE["marked"])
    withdrawn = _undone_by(sha, list(facts.main_reverts.items()))
    if withdrawn is not None:
        return Pick(sha, subject, "withdrawn", withdrawn, evidence="its revert on main")
    found = _carrier(sha, equivalent, facts)
    pr = pr_number(subject)
    evidence = EVIDENCE[found[0]] if found else ""
    if found is None and pr:
        same = next((c for c in facts.branch_commits if pr in named_prs(c.subject)), None)
        found = ("same-pr", same.sha) if same else None
        evidence = f"#{pr} in the subject of the branch's commit"
    if found is not None:
        how, carrier = found
        undone = _reverted(carrier, facts.branch_commits)
        state = "reverted" if undone else how
        return Pick(sha, subject, state, undone or carrier, evidence=evidence)
    alike = next(
        (c for c in facts.branch_commits if normalised(c.subject) == normalised(subject)), None
    )
    if alike is not None:
        return Pick(sha, subject, "maybe", alike.sha, evidence=EVIDENCE["maybe"])
    return Pick(sha, subject, "missing")


def _undone_by(sha: str, reverts: list[tuple[str, str]]) -> str | None:
    """The commit whose revert leaves ``sha`` undone, following the whole chain: a revert of
    ``sha`` undoes it, a revert of that revert (a reland) brings it back, and so on. None when
    ``sha`` is in effect."""
    undone, current, seen = None, sha, {sha}
    while True:
        by = next((b for s, b in reverts if len(s) >= 7 and current.startswith(s)), None)
        if by is None or by in seen:
            return undone
        undone = by if undone is None else None
        seen.add(by)
        current = by


def _reverted(carrier: str | None, commits: tuple[BranchCommit, ...]) -> str | None:
    """The branch commit whose revert leaves ``carrier`` undone (a revert not itself
    reverted), if one does."""
    if carrier is None:
        return None
    return _undone_by(carrier, [(r, c.sha) for c in commits for r in c.reverts])


_LABELS = {
    "picked": "- [x] picked",
    "adapted": "- [x] picked (adapted)",
    "same-pr": "- [x] picked (same pull request)",
    "maybe": "- [ ] maybe picked",
    "withdrawn": "- [x] withdrawn",
    "reverted": "- [ ] reverted on the branch",
    "missing": "- [ ] missing",
    "not-wanted": "- not wanted",
}


def _where(p: Pick) -> str:
    """The "on the branch" cell of a fix."""
    there = f"`{p.on_branch[:12]}`" if p.on_branch else "yes"
    if p.state == "maybe":
        return (
            f"same subject as {there}: decide with `--mark {p.commit[:12]}=picked` (or "
            "`=not-needed`) `--reason ...`"
        )
    if p.state == "withdrawn":
        return f"reverted on main by {there}"
    if p.state == "reverted":
        return f"by {there}; not picked again (revert the revert to restore it)"
    if p.state == "missing":
        return f"`git cherry-pick -x {p.commit[:12]}`"
    if p.state == "not-wanted":
        return "no"
    return f"{there}, by {p.evidence}" if p.evidence else there


@dataclass
class CherryPicks:
    branch: str
    main: str
    series: str
    trailer: str
    wanting: str = "trailer"
    """``[tool.mlrelease.release] picks``: which fixes the release wants."""
    milestone: str = ""
    picks: list[Pick] = field(default_factory=list)
    plan: Plan | None = None

    @property
    def missing(self) -> list[Pick]:
        return [p for p in self.picks if p.state == "missing"]

    @property
    def unwanted(self) -> list[Pick]:
        """The fixes the release does not want (picked or not)."""
        return [p for p in self.picks if p.wanted is None and wanted.is_fix(p.subject)]

    @property
    def others(self) -> list[Pick]:
        """Commits of main that are neither fixes nor wanted but reached the branch."""
        return [p for p in self.picks if p.wanted is None and not wanted.is_fix(p.subject)]

    def _wanted_cell(self, p: Pick) -> str:
        if p.wanted is not None:
            return p.wanted
        if self.wanting == "milestone":
            return f"no: no `{self.trailer}: {self.series}`, not in {self.milestone}"
        return f"no: no `{self.trailer}: {self.series}`"

    def markdown(self) -> str:
        wanted = [p for p in self.picks if p.wanted is not None]
        which = {
            "trailer": f"those marked `{self.trailer}: {self.series}`",
            "milestone": f"those marked `{self.trailer}: {self.series}` or listed in "
            f"`{self.milestone}`",
            "fixes": "every fix since the fork",
        }[self.wanting]
        lines = [
            f"## Cherry-picks for `{self.branch}`",
            "",
            f"Fixes on `{self.main}` since the fork; the release wants {which}. Each is found on "
            f"`{self.branch}` by patch identity (`git cherry`), by the `(cherry picked from "
            "commit ...)` line or by the pull request's number in the subject: a rebased, "
            "hand-made or adapted pick counts as picked; a pick with the same subject only is "
            "*maybe picked*; reverts withdraw.",
            "",
        ]
        if not self.picks:
            return "\n".join([*lines, f"No fix on `{self.main}` since the fork.", ""])
        lines += ["| | commit | subject | wanted | on the branch |", "|---|---|---|---|---|"]
        for p in self.picks:
            subject = p.subject.replace("|", "\\|")
            why = self._wanted_cell(p).replace("|", "\\|")
            if p.override:
                state, reason = p.override[0], p.override[1].replace("|", "\\|")
                lines.append(
                    f"| - [x] {state} (marked) | `{p.commit[:12]}` | {subject} | {why} | {reason} |"
                )
                continue
            lines.append(
                f"| {_LABELS[p.state]} | `{p.commit[:12]}` | {subject} | {why} | {_where(p)} |"
            )
        others = {s: sum(p.state == s for p in wanted) for s in ("maybe", "withdrawn", "reverted")}
        extra = "".join(
            f", {n} {s.replace('maybe', 'maybe picked')}" for s, n in others.items() if n
        )
        picked = sum(p.picked for p in wanted)
        lines += [
            "",
            f"**{picked} of {len(wanted)} picked, {len(self.missing)} missing{extra}"
            + (f"; {len(self.unwanted)} not wanted" if self.unwanted else "")
            + (f"; {len(self.others)} other commit(s) of main picked" if self.others else "")
            + ".**",
            "",
        ]
        return "\n".join(lines)


def plan_picks(
    world: World,
    config: Config,
    branch: str | None,
    push: bool = False,
    mark: list[str] | None = None,
    reason: str = "",
) -> CherryPicks:
    """Fixes on main marked for the branch's series, each identified (:func:`identify`); the
    plan picks the missing ones (``git cherry-pick -x``) or records ``--mark`` overrides."""
    rel = config.table(ReleaseConfig)
    names = config.names
    branch = branch or world.branch
    wanted = names.series_of_branch(branch)
    if branch is None or wanted is None:
        raise UserError(
            f"cherry-picks: {branch or 'a detached HEAD'} is not a release branch "
            f"({TABLE}.branch = {rel.branch!r}); pass --branch release/X.Y."
        )
    if branch not in world.local.heads:
        raise PreconditionError(f"cherry-picks: no branch {branch}; cut it first.")
    facts = world.picks
    if facts is None:
        raise NotGathered("the world holds no cherry-pick facts")
    text = series_text(wanted)
    listed = rel.milestone.replace("{series}", text)
    result = CherryPicks(branch, rel.main_branch, text, rel.trailer, rel.picks, listed)
    result.picks = _fixes(facts, result)
    result.plan = _plan(world, config, result, branch, push, (mark or [], reason))
    return result


def _fixes(facts: PickFacts, result: CherryPicks) -> list[Pick]:
    """Each fix on main since the fork (and each commit the release wants), identified."""
    milestone = None
    if facts.milestone is not None:
        milestone = wanted.parse_milestone(facts.milestone, result.milestone)
    found = []
    for equivalent, sha in facts.candidates:
        subject, targets = facts.info[sha]
        pr = pr_number(subject)
        why = wanted.why_wanted(
            sha, subject, result.series, targets, result.wanting, milestone, pr, result.trailer
        )
        pick = identify(sha, subject, equivalent, facts)
        if why is None and not wanted.is_fix(subject) and not pick.picked:
            continue  # neither wanted, nor a fix, nor on the branch: not the release's business
        pick.wanted = why
        if why is None and pick.state in ("missing", "maybe"):
            pick.state = "not-wanted"
        found.append(pick)
    return found


def _plan(
    world: World,
    config: Config,
    result: CherryPicks,
    branch: str,
    push: bool,
    marking: tuple[list[str], str],
) -> Plan:
    rel = config.table(ReleaseConfig)
    plan = Plan("cherry-picks", world.root)
    rules.preflight(world, "cherry-picks")
    changed: set[str] = set()
    records = _marks(result, *marking)
    remote = world.remote
    mine = world.local.heads.get(rel.main_branch)
    theirs = remote.heads.get(rel.main_branch) if remote else None
    if remote and theirs and mine and mine != theirs:
        plan.notes.append(
            f"the fixes are {rel.main_branch}'s as {remote.name} has it ({short(theirs)}; "
            f"{remote.name} is the truth); local {rel.main_branch} is at {short(mine)}: a fix "
            "only this clone has counts once it is pushed."
        )
    if records or result.missing:
        if world.branch != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        rules.require_clean(world, "cherry-picks")
        # Origin is the truth: a colleague may have pushed these very picks; picking them
        # again on a stale branch would land the fix twice (invariant (h)).
        rules.require_current(world, "cherry-picks", [branch])
        changed.add(branch)
    for sha, marked in records:
        plan.actions.append(
            git_action(
                f"mark:{sha[:12]}",
                "commit",
                "--allow-empty",
                "-m",
                f"chore(release): mark {sha[:12]} as {marked} on {branch}",
                "--trailer",
                f"{OVERRIDE}: {sha} {marked}",
                "--trailer",
                f"Reason: {marking[1]}",
            )
        )
    if not records:
        for p in result.missing:
            plan.actions.append(
                git_action(
                    f"pick:{p.commit[:12]}",
                    "cherry-pick",
                    "-x",
                    p.commit,
                    undo=("cherry-pick", "--abort"),
                )
            )
    undecided = [p.commit[:12] for p in result.picks if p.state == "maybe"]
    if undecided:
        plan.notes.append(
            f"{', '.join(undecided)} may be picked already (a commit with the same subject is on "
            f"{branch}): not picked again; decide with --mark COMMIT=picked|not-needed --reason."
        )
    if not changed and not undecided:
        plan.notes.append(f"every fix the release wants is on {branch}.")
    unmarked = len(result.unwanted)
    if unmarked and rel.picks == "trailer":
        plan.notes.append(
            f"{unmarked} fixes since the fork carry no `{rel.trailer}: {result.series}` "
            f'trailer. If fixes are picked by hand, set {TABLE}.picks = "fixes" '
            '(every fix since the fork) or "milestone" (the pull requests a file lists).'
        )
    if push:
        action = pushes.push_action(world, rel.remote, [branch], changed, config.names)
        if action:
            plan.actions.append(action)
    return plan


def _marks(result: CherryPicks, mark: list[str], reason: str) -> list[tuple[str, str]]:
    """(commit, state) of the ``--mark`` overrides still to record; checked first."""
    records = []
    for item in mark:
        prefix, _, state = item.partition("=")
        found = [p for p in result.picks if prefix and p.commit.startswith(prefix)]
        if state not in STATES or len(found) != 1:
            raise UserError(
                f"cherry-picks --mark {item!r}: expected COMMIT=picked or COMMIT=not-needed, "
                f"COMMIT one of the fixes marked {result.trailer}: {result.series} (shown above)."
            )
        if not reason.strip() or "\n" in reason:
            raise UserError("cherry-picks --mark needs --reason TEXT (one line): it is recorded.")
        if found[0].override is None:  # recorded once; a record is history, not undone here
            records.append((found[0].commit, state))
    return records
