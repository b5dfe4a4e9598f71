"""The upstream record of a member's candidate (pure): what ``train bind`` writes into its
manifest, resolved from the staging index alone.

The upstream's version is what the member's files say they were built against (their
``Requires-Dist`` pins it exactly, as the PyTorch domain libraries stamp the torch they were
built with), else the train's. It must be the version the train releases: a member built
against another upstream (torchvision 0.16.2 against torch 2.2.0 while the train releases
2.1.2, December 2023) is refused here. The upstream's files are those the staging index holds
of that version, each by SHA-256; the candidate they are is the upstream RC whose bound
manifest lists exactly them, found by content, never by a version string or a tag name.
"""

from __future__ import annotations

from collections.abc import Sequence

from packaging.utils import canonicalize_name
from packaging.version import Version

from mlrelease.release.promotion import upstream
from mlrelease.release.promotion.gatekeeper import Violation
from mlrelease.release.promotion.manifest import Manifest, Upstream
from mlrelease.train.declaration import Member
from mlrelease.train.metadata import DistMetadata
from mlrelease.train.world import MemberWorld, TrainWorld


def built_against(files: Sequence[DistMetadata], project: str, train_version: str) -> str:
    """The version of ``project`` the member's files pin exactly (they must agree), else the
    train's."""
    pins = {pin for f in files for pin in f.pins(project)}
    if len(pins) > 1:
        shown = "; ".join(f"{f.filename}: {sorted(f.pins(project))}" for f in files)
        raise Violation(
            f"train bind: the member's files pin {project} at several versions ({shown}): they "
            "were built against different upstreams. Rebuild them all against the staged one."
        )
    return next(iter(pins)) if pins else train_version


def _candidate(up: MemberWorld, version: str) -> Manifest:
    """The upstream candidate whose bound manifest lists exactly what staging holds."""
    name = f"{up.member.name} {version}"
    staged = up.staged
    if staged is None or staged.error:
        why = staged.error if staged else "not read"
        raise Violation(f"train bind: the staging index could not be read for {name} ({why}).")
    held = {(f.filename, f.sha256) for f in staged.files}
    if not held:
        raise Violation(
            f"train bind: the staging index ({staged.url}) holds no file of {name}: stage the "
            f"upstream candidate first (`mlrelease release publish --channel rc` in "
            f"{up.member.name})."
        )
    for rc in reversed(up.rcs()):
        manifest, _ = up.manifest(rc)
        if manifest is not None and {(e.name, e.sha256) for e in manifest.files} == held:
            return manifest
    shown = ", ".join(f"{n} ({s[:12]}...)" for n, s in sorted(held))
    raise Violation(
        f"train bind: the staging index holds {shown} for {name}, which no candidate bound on "
        f"{up.member.origin} lists exactly (rebuilt, or uploaded by hand). Nothing was bound; "
        "stage the upstream's bound files (and only them), then re-run."
    )


def resolve(
    world: TrainWorld, member: Member, files: Sequence[DistMetadata]
) -> tuple[Upstream, ...]:
    """The upstream records of ``member``'s candidate built as ``files``: one per edge."""
    found = []
    for edge in member.edges():
        up = world.of(world.train.member(edge.name))
        train_version = up.member.version
        version = built_against(files, edge.name, train_version)
        if Version(version) != Version(train_version):
            raise Violation(
                f"train bind: {member.name}'s files were built against {up.member.name} "
                f"{version} (their Requires-Dist pins it), but the train releases "
                f"{up.member.name} {train_version} ({world.train.source}: {edge}). The wrong "
                f"upstream: rebuild against {up.member.name} {train_version} from the staging "
                "index. Nothing was bound."
            )
        manifest = _candidate(up, version)
        if up.names is None:
            raise Violation(f"train bind: {up.member.name}'s names could not be read.")
        record = Upstream(
            project=canonicalize_name(up.member.name),
            version=version,
            rc_tag=manifest.rc_tag,
            manifest=manifest.digest,
            origin=up.member.origin,
            index=world.train.staging_index,
            tags=(up.names.tag.template, up.names.rc_tag.template),
            files=manifest.files,
        )
        problem = upstream.problem(record, up.origin(), final=False)
        if problem:
            raise Violation(f"train bind: {problem}. Nothing was bound.")
        found.append(record)
    return tuple(found)
