"""``release cherry-picks``: fixes on main marked for a release, picked (same patch, or an
adapted pick carrying its ``(cherry picked from commit ...)`` line) or missing.

:func:`plan_picks` is pure: it decides on a :class:`~.snapshot.ReleaseState` only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import rules
from mlrelease.release.config import TABLE, ReleaseConfig, series_text
from mlrelease.release.plan import Plan, git_action
from mlrelease.release.snapshot import NotGathered, ReleaseState

# --- cherry-picks ---------------------------------------------------------------------------


@dataclass
class Pick:
    commit: str
    subject: str
    picked: bool
    on_branch: str | None = None
    adapted: bool = False
    """Picked with changes: found by its ``(cherry picked from commit ...)`` line only."""
    override: tuple[str, str] | None = None
    """(``picked`` or ``not-needed``, reason) recorded by ``--mark`` on the branch."""


@dataclass
class CherryPicks:
    branch: str
    main: str
    series: str
    trailer: str
    picks: list[Pick] = field(default_factory=list)
    plan: Plan | None = None

    @property
    def missing(self) -> list[Pick]:
        return [p for p in self.picks if not p.picked]

    def markdown(self) -> str:
        picked = len(self.picks) - len(self.missing)
        lines = [
            f"## Cherry-picks for `{self.branch}`",
            "",
            f"Commits on `{self.main}` marked `{self.trailer}: {self.series}`, compared with "
            f"`{self.branch}` by patch identity (`git cherry`) and by the `(cherry picked from "
            "commit ...)` line: a rebased, hand-made or adapted pick counts as picked.",
            "",
        ]
        if not self.picks:
            return "\n".join([*lines, "No commit is marked for this release.", ""])
        lines += ["| | commit | subject | on the branch |", "|---|---|---|---|"]
        for p in self.picks:
            subject = p.subject.replace("|", "\\|")
            if p.override:
                state, reason = p.override[0], p.override[1].replace("|", "\\|")
                lines.append(
                    f"| - [x] {state} (marked) | `{p.commit[:12]}` | {subject} | {reason} |"
                )
            elif p.picked:
                where = f"`{p.on_branch[:12]}`" if p.on_branch else "yes"
                how = "picked (adapted)" if p.adapted else "picked"
                lines.append(f"| - [x] {how} | `{p.commit[:12]}` | {subject} | {where} |")
            else:
                lines.append(
                    f"| - [ ] missing | `{p.commit[:12]}` | {subject} | "
                    f"`git cherry-pick -x {p.commit[:12]}` |"
                )
        lines += ["", f"**{picked} of {len(self.picks)} picked, {len(self.missing)} missing.**", ""]
        return "\n".join(lines)


OVERRIDE = "Release-Pick-Override"
"""The trailer of an empty commit on the release branch: ``<sha> picked|not-needed``."""
STATES = ("picked", "not-needed")


def plan_picks(
    snap: ReleaseState,
    config: Config,
    branch: str | None,
    push: bool = False,
    mark: list[str] | None = None,
    reason: str = "",
) -> CherryPicks:
    """Fixes on main marked for the branch's series: picked (same patch id, or by its ``-x``
    line), marked by hand (``--mark SHA=picked|not-needed --reason``), or missing."""
    root, rel = snap.root, config.table(ReleaseConfig)
    names = config.names
    branch = branch or snap.branch
    wanted = names.series_of_branch(branch)
    if branch is None or wanted is None:
        raise UserError(
            f"cherry-picks: {branch or 'a detached HEAD'} is not a release branch "
            f"({TABLE}.branch = {rel.branch!r}); pass --branch release/X.Y."
        )
    if branch not in snap.local.heads:
        raise PreconditionError(f"cherry-picks: no branch {branch}; cut it first.")
    facts = snap.picks
    if facts is None:
        raise NotGathered("the snapshot holds no cherry-pick facts")
    text = series_text(wanted)
    result = CherryPicks(branch, rel.main_branch, text, rel.trailer)
    for equivalent, sha in facts.candidates:
        subject, targets = facts.info[sha]
        values = {v.strip() for t in targets for v in re.split(r"[,\s]+", t) if v.strip()}
        if text not in values:
            continue
        pick = Pick(sha, subject, equivalent)
        if sha in facts.marked:
            pick = Pick(sha, subject, True, override=facts.marked[sha])
        elif not equivalent and sha in facts.by_trailer:
            pick = Pick(sha, subject, True, facts.by_trailer[sha], adapted=True)
        elif equivalent:
            mine = facts.own_patches.get(sha, ())
            pick.on_branch = next((facts.on_branch[p] for p in mine if p in facts.on_branch), None)
        result.picks.append(pick)
    plan = Plan("cherry-picks", root)
    rules.preflight(snap, "cherry-picks")
    changed: set[str] = set()
    records = _marks(result, mark or [], reason)
    if records or result.missing:
        if snap.branch != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        rules.require_clean(snap, "cherry-picks")
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
                f"Reason: {reason}",
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
    if not changed:
        plan.notes.append(f"every fix marked {rel.trailer}: {text} is on {branch}.")
    if push:
        action = rules.push_action(snap, rel.remote, [branch], changed)
        if action:
            plan.actions.append(action)
    elif changed and snap.origin():
        # Origin is the truth: a colleague may have pushed these very picks; picking them
        # again on a stale branch would land the fix twice. (Refuses when origin is ahead.)
        rules.push_action(snap, rel.remote, [branch], changed)
    result.plan = plan
    return result


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
