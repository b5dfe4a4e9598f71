"""``release cherry-picks``: fixes on main marked for a release, picked (same patch, or an
adapted pick carrying its ``(cherry picked from commit ...)`` line) or missing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mlrelease import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import repo
from mlrelease.release.flow import Flow
from mlrelease.release.plan import (
    Plan,
    git_action,
)
from mlrelease.release.settings import (
    TABLE,
    series_text,
)

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


def cherry_picks(
    flow: Flow,
    branch: str | None,
    push: bool = False,
    mark: list[str] | None = None,
    reason: str = "",
) -> CherryPicks:
    """Fixes on main marked for the branch's series: picked (same patch id, or by its ``-x``
    line), marked by hand (``--mark SHA=picked|not-needed --reason``), or missing."""
    root = flow.root
    branch = branch or git.current_branch(root)
    wanted = flow.names.series_of_branch(branch)
    if branch is None or wanted is None:
        raise UserError(
            f"cherry-picks: {branch or 'a detached HEAD'} is not a release branch "
            f"({TABLE}.branch = {flow.rel.branch!r}); pass --branch release/X.Y."
        )
    if not repo.branch_exists(root, branch):
        raise PreconditionError(f"cherry-picks: no branch {branch}; cut it first.")
    main = flow.rel.main_branch
    text = series_text(wanted)
    result = CherryPicks(branch, main, text, flow.rel.trailer)
    candidates = repo.cherry(root, branch, main)
    base = repo.merge_base(root, branch, main)
    on_branch = repo.patch_ids(root, f"{base}..{branch}" if base else branch)
    by_trailer = repo.picked_from(root, f"{base}..{branch}" if base else branch)
    marked = repo.overrides(root, f"{base}..{branch}" if base else branch, OVERRIDE)
    for equivalent, sha in candidates:
        subject, targets = repo.commit_info(root, sha, flow.rel.trailer)
        values = {v.strip() for t in targets for v in re.split(r"[,\s]+", t) if v.strip()}
        if text not in values:
            continue
        pick = Pick(sha, subject, equivalent)
        if sha in marked:
            pick = Pick(sha, subject, True, override=marked[sha])
        elif not equivalent and sha in by_trailer:
            pick = Pick(sha, subject, True, by_trailer[sha], adapted=True)
        elif equivalent:
            mine = repo.patch_ids(root, f"{sha}^!")
            pick.on_branch = next((on_branch[p] for p in mine if p in on_branch), None)
        result.picks.append(pick)
    plan = Plan("cherry-picks", root)
    changed: set[str] = set()
    records = _marks(result, mark or [], reason)
    if records:
        if git.current_branch(root) != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        flow.require_clean("cherry-picks")
        for sha, state in records:
            plan.actions.append(
                git_action(
                    f"mark:{sha[:12]}",
                    "commit",
                    "--allow-empty",
                    "-m",
                    f"chore(release): mark {sha[:12]} as {state} on {branch}",
                    "--trailer",
                    f"{OVERRIDE}: {sha} {state}",
                    "--trailer",
                    f"Reason: {reason}",
                )
            )
        changed.add(branch)
    elif result.missing:
        if git.current_branch(root) != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        flow.require_clean("cherry-picks")
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
        changed.add(branch)
    else:
        plan.notes.append(f"every fix marked {flow.rel.trailer}: {text} is on {branch}.")
    if push:
        action = flow.push_action([branch], changed)
        if action:
            plan.actions.append(action)
    elif changed and flow.remote():
        # Origin is the truth: a colleague may have pushed these very picks; picking them
        # again on a stale branch would land the fix twice. (Refuses when origin is ahead.)
        flow.push_action([branch], changed)
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
