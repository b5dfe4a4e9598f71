"""``train status``: the whole train, one row per member in dependency order (pure: a decision
over one :class:`~mlrelease.train.world.TrainWorld`; changes nothing).

Per member: its series (the release branch, cut or not), its candidates, what the newest is
bound to (its files, and the upstream candidates it was built against), what the staging and
release indexes hold of it, the next step and what blocks it. The steps follow the train's
order: cut after the upstream's first candidate is staged (``cut-after``), tag, build against
the staged upstream and bind (``train bind``), stage, then release in dependency order
(``train promote``), each member after its upstreams.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table

from mlrelease.release.promotion import gatekeeper as release_gatekeeper
from mlrelease.release.promotion.manifest import NOT_RUN, Manifest, Upstream
from mlrelease.train import gatekeeper
from mlrelease.train.declaration import Member
from mlrelease.train.world import MemberWorld, TrainWorld


@dataclass
class MemberStatus:
    """Where one member stands."""

    name: str
    version: str
    branch: str = ""
    cut: bool = False
    rcs: list[str] = field(default_factory=list)
    bound: str = ""
    """The newest candidate's binding: its manifest's SHA-256 and files."""
    upstream: list[str] = field(default_factory=list)
    """The upstream candidates the newest candidate was built against."""
    tested: list[str] = field(default_factory=list)
    """What its own tests found against each of them (``train bind`` ran them)."""
    staged: str = ""
    released: str = ""
    next: str = ""
    blocks: list[str] = field(default_factory=list)


def staged_problem(world: MemberWorld, manifest: Manifest) -> str | None:
    """Why the staging index does not hold exactly ``manifest``'s files."""
    if world.staged is None:
        return "the staging index was not read"
    return release_gatekeeper.index_problem(world.staged, manifest, complete=True)


def upstream_staged(up: MemberWorld) -> str | None:
    """Why the upstream has no candidate staged (the files of its newest bound candidate on
    the staging index); None when it has."""
    rc = up.newest_rc()
    manifest = up.manifest(rc)[0] if rc else None
    if manifest is None:
        return f"{up.member.name} has no bound candidate of {up.member.version} yet"
    if staged_problem(up, manifest):
        return f"{up.member.name}'s {rc} is not staged"
    return None


def cut_ready(world: TrainWorld, member: Member, row: MemberStatus) -> bool:
    """The cut step: True when the member is cut (the next steps apply); else its next step
    and what it waits for, in ``row``."""
    mine = world.of(member)
    row.branch, row.cut = mine.branch() or "", mine.cut()
    if row.cut:
        return True
    schedule = world.train.cut_after
    ups = world.upstreams(member)
    waits = []
    if schedule == "upstream-rc-staged":
        waits = [p for up in ups if (p := upstream_staged(up))]
    elif schedule == "upstream-final":
        waits = [p for up in ups if (p := gatekeeper.released_problem(up))]
    row.blocks += [f"cut waits: {w} (cut-after = {schedule!r})" for w in waits]
    row.next = "wait" if waits else f"cut {row.branch}: `mlrelease train cut --execute --push`"
    return False


def _bound(world: TrainWorld, member: Member, row: MemberStatus) -> Manifest | None:
    """The binding step; the newest candidate's manifest when it is bound."""
    mine = world.of(member)
    rc = mine.newest_rc()
    if rc is None:
        row.next = f"tag the first candidate on {row.branch}: `mlrelease release rc --execute`"
        return None
    manifest, why = mine.manifest(rc)
    if manifest is None:
        verb = "train bind" if member.upstream else "release bind"
        row.bound = why or ""
        row.next = f"build {rc} and bind it: `mlrelease {verb} --rc {rc} --execute --push`"
        return None
    row.bound = f"{manifest.digest[:12]} ({len(manifest.files)} files)"
    row.upstream = [f"{u.project} {u.version} ({u.rc_tag})" for u in manifest.upstream]
    row.tested = [tested_line(u) for u in manifest.upstream]
    stale = gatekeeper.bound_problems(world, member, manifest, final=False)
    untested = gatekeeper.tested_problems(member, manifest)
    row.blocks += stale + untested
    if stale:
        row.next = "build against the current upstream, tag a new candidate, bind it"
    elif untested:
        row.next = "fix what its tests found, tag a new candidate, bind it (`mlrelease train bind`)"
    return None if row.blocks else manifest


def tested_line(record: Upstream) -> str:
    """What the member's tests against ``record``'s candidate found, in one line."""
    found = record.tests
    against = f"{record.project} {record.rc_tag}"
    if found is None:
        return f"against {against}: not run (bound without them)"
    if found.verdict == NOT_RUN:
        return f"against {against}: not run ({found.why})"
    compared = f"compared with {found.baseline}" if found.baseline else "not compared"
    return f"against {against}: {found.verdict}, {found.tests} tests, {compared}"


def _release(world: TrainWorld, member: Member, manifest: Manifest, row: MemberStatus) -> None:
    """The staging and release steps of a bound, current candidate."""
    mine = world.of(member)
    problem = staged_problem(mine, manifest)
    row.staged = problem or f"holds the {len(manifest.files)} bound files"
    promoted = mine.promoted()
    if promoted is not None and promoted.digest == manifest.digest:
        done = release_gatekeeper.index_problem(mine.released, manifest, complete=True)
        row.released = done or f"released ({mine.member.version}, files and final tag)"
        row.next = "released" if not done else "finish: `mlrelease train promote --execute`"
        return
    row.released = "not released"
    if problem:
        row.next = f"stage it: `mlrelease release publish --rc {manifest.rc_tag} --channel rc`"
        return
    row.blocks += gatekeeper.variant_problems(world, member, manifest)
    after = [up.member.name for up in world.upstreams(member) if gatekeeper.released_problem(up)]
    then = f" (after {', '.join(after)})" if after else ""
    row.next = "fix what blocks it" if row.blocks else f"`mlrelease train promote --execute`{then}"


def member_status(world: TrainWorld, member: Member) -> MemberStatus:
    """Where ``member`` stands and what it does next."""
    mine = world.of(member)
    row = MemberStatus(member.name, member.version, rcs=mine.rcs())
    if mine.error:
        row.blocks.append(mine.error)
        row.next = "fix the origin (or the train file's origin URL)"
        return row
    if not cut_ready(world, member, row):
        return row
    manifest = _bound(world, member, row)
    if manifest is not None:
        _release(world, member, manifest, row)
    return row


def status(world: TrainWorld) -> dict[str, Any]:
    """The train's status, as ``train status --json`` prints it."""
    train = world.train
    rows = [asdict(member_status(world, m)) for m in train.ordered()]
    return {
        "train": train.name,
        "file": train.source,
        "staging_index": train.staging_index,
        "release_index": train.release_index,
        "series": dict(train.series),
        "members": rows,
    }


def table(data: dict[str, Any]) -> Table:
    """The status as a terminal table."""
    shown = Table(title=f"train {data['train']} ({data['file']})", show_lines=True)
    for column in ("member", "series", "candidates", "bound to", "indexes", "next", "blocks"):
        shown.add_column(column, overflow="fold")
    for row in data["members"]:
        bound = row["bound"] + "".join(f"\nbuilt against {u}" for u in row["upstream"])
        bound += "".join(f"\ntests {t}" for t in row["tested"])
        indexes = f"staging: {row['staged'] or '-'}\nrelease: {row['released'] or '-'}"
        shown.add_row(
            f"{row['name']} {row['version']}",
            f"{row['branch']} ({'cut' if row['cut'] else 'not cut'})",
            ", ".join(row["rcs"]) or "-",
            bound or "-",
            indexes,
            row["next"],
            "\n".join(row["blocks"]) or "-",
        )
    return shown
