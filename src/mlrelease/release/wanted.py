"""Which fixes on main a release wants (``[tool.mlrelease.release] picks``), as maintainers
mark them: the release trailer (``Release-Target: 2.13``) wherever it is used, plus the pull
requests or commits a milestone file lists (``picks = "milestone"``), or every fix since the
fork (``picks = "fixes"``). Pure, but for :func:`read_milestone` (the reader's)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.release.config import TABLE, ReleaseConfig

_FIX = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)*(?:fix(?:\([^)]*\))?!?:|\[?(?:bug)?fix(?:es|ed)?\b)", re.I
)
_LINE = re.compile(r"^(?:#?(\d+)|([0-9a-f]{7,40}))\b", re.I)


def is_fix(subject: str) -> bool:
    """Whether a subject says it is a fix: a Conventional Commit ``fix`` (``fix(core): ...``),
    or a subject that starts with "fix"/"fixes"/"fixed"/"bugfix" (after a ``[tag]`` prefix),
    as PyTorch-family maintainers write them (``Fix dynamic shapes in ... (#4300)``)."""
    return bool(_FIX.match(subject))


@dataclass(frozen=True)
class Milestone:
    """What a milestone file lists: pull request numbers and commits (prefixes)."""

    prs: frozenset[str]
    commits: tuple[str, ...]


def parse_milestone(text: str, where: str) -> Milestone:
    """One entry a line: ``#1234`` or ``1234`` (a pull request: digits only), or a commit (7-40
    hex digits);
    the rest of a line is a note; blank lines and lines starting with ``# `` or ``//`` are
    comments. Anything else is refused, naming the line."""
    prs: set[str] = set()
    commits: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.strip()
        if not entry or entry.startswith(("# ", "//")) or entry == "#":
            continue
        found = _LINE.match(entry)
        if found is None:
            raise UserError(
                f"cherry-picks: {where}:{number}: {entry!r} is neither a pull request (#1234) nor "
                f"a commit (7-40 hex digits). Fix the line, or make it a comment ('# ...'); "
                f"{TABLE}.milestone names the file."
            )
        if found[1]:  # digits only: a pull request's number
            prs.add(found[1])
        else:
            commits.append(found[2].lower())
    return Milestone(frozenset(prs), tuple(commits))


def why_wanted(
    sha: str,
    subject: str,
    series: str,
    targets: tuple[str, ...],
    how: str,
    milestone: Milestone | None,
    pr: str | None,
    trailer: str,
) -> str | None:
    """Why the release wants fix ``sha`` (the evidence, shown), or None when it does not."""
    values = {v.strip() for t in targets for v in re.split(r"[,\s]+", t) if v.strip()}
    if series in values:
        return f"`{trailer}: {series}`"
    if how == "milestone" and milestone is not None:
        if pr is not None and pr in milestone.prs:
            return f"#{pr} in the milestone file"
        if any(sha.startswith(c) for c in milestone.commits):
            return "listed in the milestone file"
    if how == "fixes" and is_fix(subject):
        return "a fix since the fork"
    return None


def read_milestone(config: Config, branch: str) -> str:
    """The text of the milestone file of ``branch``'s series, from the work tree."""
    names, rel = config.names, config.table(ReleaseConfig)
    found = names.series_of_branch(branch)
    series = f"{found[0]}.{found[1]}" if found else branch
    name = rel.milestone.replace("{series}", series)
    path = config.path(name)
    if not path.is_file():
        raise UserError(
            f"cherry-picks: {TABLE}.picks is 'milestone', but there is no milestone file "
            f"{name} ({TABLE}.milestone). Write the release's pull requests into it, one "
            "a line (#1234), e.g. from the tracker's milestone or label."
        )
    return path.read_text(encoding="utf-8")
