"""The promotion planner's decisions, pure: one hand-buildable :class:`World` in, the steps
still to do (in their fixed order) or a refusal out. No git, no files, no network: the edge
(:mod:`.promotion`) reads the world once and turns the steps into actions.

Order: publish, then the final tag, then its push; each is planned only when the world shows
it not done (the index lacks a file; no final tag; origin lacks it), so a promotion killed
anywhere is completed by the next run and nothing is done twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlrelease.errors import PreconditionError
from mlrelease.release import manifest
from mlrelease.release.state import Tag, short
from mlrelease.wheels.published import split


@dataclass(frozen=True)
class World:
    """What promotion decides on, read once."""

    rc: str
    commit: str
    """The RC's commit (origin's RC tag, already checked)."""
    final: str
    existing: Tag | None
    """The final tag, origin's or (when origin lacks it) the local one."""
    final_on_origin: bool
    bound: manifest.Manifest
    """The manifest bound to the RC."""
    found: tuple[manifest.Entry, ...]
    """The artifacts in the folder to publish."""
    folder: str
    index: dict[str, str] | None = None
    """File name -> SHA-256 on the index; None when not publishing."""
    index_url: str = ""
    push: bool = False


@dataclass(frozen=True)
class Decision:
    steps: tuple[str, ...]
    """Of ``publish``, ``tag``, ``push``, in that order: what is still to do."""
    notes: tuple[str, ...]
    """What is already done, or verified."""


def decide(world: World) -> Decision:
    """The steps of a promotion, or a :class:`PreconditionError` saying why none may run."""
    rc, commit, final, made = world.rc, world.commit, world.final, world.bound
    existing = world.existing
    if existing is not None and existing.commit != commit:
        raise PreconditionError(
            f"promote: {final} already exists at {short(existing.commit)}, not at {rc}'s commit "
            f"{short(commit)}. A release tag is never moved: release a new patch version."
        )
    if made.commit != commit or made.rc_tag != rc:
        raise PreconditionError(
            f"promote: the manifest bound to {rc} is of {made.rc_tag} at {short(made.commit)}, "
            f"not of {rc} at {short(commit)}: the files were not built from the candidate."
        )
    problems = manifest.compare(made, world.found)
    if problems:
        raise PreconditionError(
            f"promote: the artifacts in {world.folder} are not the files {rc} built: "
            f"{'; '.join(problems)}. Download exactly the candidate's files there; nothing "
            "was published or tagged."
        )
    named = manifest.named_digest(existing.message if existing else "")
    if named is not None and named != made.digest:
        raise PreconditionError(
            f"promote: {final} names manifest {named[:16]}..., but the manifest bound to {rc} "
            f"is {made.digest[:16]}...: the release was promoted with other files. Publish "
            "nothing; find out how the binding changed."
        )
    steps: list[str] = []
    notes = [f"{len(made.files)} artifacts match the manifest of {rc}."]
    if world.index is not None:
        missing, differ = split({e.name: e.sha256 for e in made.files}, world.index)
        if differ:
            raise PreconditionError(
                f"promote: {world.index_url} already holds {', '.join(differ)} with other "
                f"content than {rc} built; nothing was published or tagged. Find out who "
                "published them before going on."
            )
        if missing:
            steps.append("publish")
        else:
            notes.append(f"the index holds all {len(made.files)} files of {rc} (same SHA-256).")
    if existing is None:
        steps.append("tag")
    else:
        notes.append(f"{final} already points at {rc}'s commit {short(commit)}.")
    if world.push and not world.final_on_origin:
        steps.append("push")
    return Decision(tuple(steps), tuple(notes))
