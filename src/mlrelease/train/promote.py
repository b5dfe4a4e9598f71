"""``train promote``: the members released in dependency order (pure planner over one
:class:`~mlrelease.train.world.TrainWorld` and the promotion's journal).

Each member's step is its own ``release promote --publish`` in its checkout (publish its bound
files from its store to the train's release index, then tag and push its final tag), behind the
train's gatekeeper before each upload and each push. Before anything, every member's candidate
is checked: bound, to the upstream candidates the edges name (T3), its own tests passed against
them (T6), shipping its upstreams' variants (T5). The candidates chosen are journalled before
the first step; a promotion killed at any step resumes with them (a member re-tagged meanwhile
is refused, named), and each step is found done or not from the world: the index's files and
origin's final tag, never the journal alone. A member's step runs only after its upstreams'
(T1, T2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlrelease.errors import PreconditionError
from mlrelease.release.plan import Plan, call_action
from mlrelease.release.promotion import gatekeeper as release_gatekeeper
from mlrelease.release.promotion.manifest import Manifest
from mlrelease.train import gatekeeper
from mlrelease.train.declaration import Member
from mlrelease.train.world import TrainWorld


@dataclass(frozen=True)
class MemberStep:
    """One member's promotion: its candidate, the manifest bound to it, whether it is done."""

    member: Member
    rc: str
    manifest: Manifest
    done: bool


def _chosen(world: TrainWorld, member: Member, journal: Mapping[str, Any] | None) -> str:
    """The candidate to promote: the newest on origin, or the one the journal chose."""
    mine = world.of(member)
    if mine.error:
        raise PreconditionError(f"train promote: {member.name}: {mine.error}")
    rc = mine.newest_rc()
    if rc is None:
        raise PreconditionError(
            f"train promote: {member.name} has no candidate of {member.version} on origin; tag "
            "one (`mlrelease release rc`), bind it, then promote the train."
        )
    chosen = (journal or {}).get("chosen", {}).get(member.key)
    if chosen and chosen != rc:
        raise PreconditionError(
            f"train promote: this promotion chose {member.name}'s {chosen} when it began, and "
            f"origin's newest candidate is now {rc} (tagged since). Verify {rc}, then begin "
            "again with `mlrelease train promote --restart --execute`; nothing was sent."
        )
    return rc


def steps(world: TrainWorld, journal: Mapping[str, Any] | None) -> list[MemberStep]:
    """Every member's step in dependency order, each checked (T3, T5, T6) before any is
    taken."""
    found = []
    for member in world.train.ordered():
        rc = _chosen(world, member, journal)
        mine = world.of(member)
        manifest, why = mine.manifest(rc)
        if manifest is None:
            raise PreconditionError(
                f"train promote: {member.name}'s {rc}: {why}; bind it first (`mlrelease "
                f"{'train' if member.upstream else 'release'} bind --rc {rc} --execute --push`)."
            )
        promoted = mine.promoted()
        held = release_gatekeeper.index_problem(mine.released, manifest, complete=True)
        done = promoted is not None and promoted.digest == manifest.digest and not held
        problems = (
            [] if done else gatekeeper.candidate_problems(world, member, manifest, final=False)
        )
        problems += [] if done else gatekeeper.variant_problems(world, member, manifest)
        if problems:
            raise gatekeeper.Violation(
                f"train promote: {member.name} {member.version}: {'; '.join(problems)}. "
                "Nothing was published or tagged."
            )
        found.append(MemberStep(member, rc, manifest, done))
    return found


def plan_promote(
    world: TrainWorld,
    journal: Mapping[str, Any] | None,
    root: Path,
    record: Callable[[dict[str, str] | None], Callable[[], None]],
    act: Callable[[MemberStep], Callable[[], None]],
) -> Plan:
    """The plan: journal the candidates chosen, then each member's step not done yet (``act``
    makes it), in dependency order, then close the journal; ``record`` makes the journal's
    write (None: its removal)."""
    plan = Plan("train", root)
    found = steps(world, journal)
    chosen = {s.member.key: s.rc for s in found}
    if (journal or {}).get("chosen") != chosen and not all(s.done for s in found):
        shown = ", ".join(f"{s.member.name} {s.rc}" for s in found)
        plan.actions.append(
            call_action("journal", f"journal the candidates: {shown}", record(chosen))
        )
    for step in found:
        name = f"{step.member.name} {step.member.version}"
        if step.done:
            plan.notes.append(f"{name} is released from {step.rc} (files and final tag).")
            continue
        after = [u.name for u in world.train.upstreams(step.member)]
        then = f", after {', '.join(after)}" if after else ""
        line = (
            f"promote {name} from {step.rc}: publish its {len(step.manifest.files)} bound files "
            f"to {world.train.release_index}, then tag and push its final tag{then}"
        )
        plan.actions.append(call_action(step.member.key, line, act(step)))
    if journal is not None or plan.actions:
        plan.actions.append(call_action("journal-end", "close the journal", record(None)))
    return plan
