"""Whether a set of files is this release's, built from the RC's commit (invariant (c)).

Every file must be a wheel or a ``.tar.gz`` sdist (PEP 625) of the project at the release's
version, the set exactly the declared one (``[tool.mlrelease.wheels]``: nothing missing,
nothing extra), and built from the commit: each file is compared whole with the reference
build of the commit (:mod:`mlrelease.wheels.reference`), deny by default
(:mod:`mlrelease.wheels.compare`, :mod:`mlrelease.wheels.compiled`): every member equal, or
different by a class of :mod:`mlrelease.wheels.differences` the project accepts.
"""

from __future__ import annotations

import hashlib
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.edges.digests import sha256
from mlrelease.release.world import queries
from mlrelease.wheels import artifacts, compare, compiled, framing, members, reference
from mlrelease.wheels.compare import Acceptance
from mlrelease.wheels.differences import CLASSES, Difference, ReferenceVerdict, accepted
from mlrelease.wheels.evidence import Evidence
from mlrelease.wheels.members import Archive, WheelContents
from mlrelease.wheels.project import Project, from_config, restamp
from mlrelease.wheels.promote import completeness
from mlrelease.wheels.reference import Reference


def blob_id(data: bytes) -> str:
    """The SHA-1 git gives a blob of ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


Named = list[tuple[str, Path]]
"""(file name, where its bytes are): a file of dist/, or a store object named by its hash."""


def identity(project: Project, version: Version, files: Named, *, whole: bool = True) -> list[str]:
    """Files that are not a wheel or ``.tar.gz`` sdist of the project at ``version``, and (a
    ``whole`` set) what the set lacks; one line each, naming the file."""
    problems, found = [], []
    for name, path in files:
        if name.endswith(".zip"):
            problems.append(f"{name}: a .zip sdist; an sdist is a .tar.gz (PEP 625)")
            continue
        try:
            artifact = replace(artifacts.identify(Path(name)), path=path)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        problems += [str(f) for f in artifacts.check_identity(artifact, project.name, str(version))]
        found.append(artifact)
    if whole and not problems:
        problems += [str(f) for f in completeness(project, found)]
    return problems


def built_from(reference: Reference, files: Named, policy: Acceptance) -> ReferenceVerdict:
    """Every difference of the files from the reference build of their commit, one line each,
    and the differences of a class the project accepts (see :mod:`mlrelease.wheels.compare`)."""
    if reference.broken:
        return ReferenceVerdict([f"the RC's commit is no release: {reference.broken}"])
    assert reference.sdist is not None  # a reference that is not broken has its sdist
    sdist = members.read(reference.sdist.name, reference.sdist)
    wheels = [
        WheelContents(w.name, artifacts.identify(w).tags, members.read(w.name, w))
        for w in reference.wheels
    ]
    verdict = ReferenceVerdict()
    for file, path in files:
        framed = framing.problems(file, path)
        if framed:  # every reader must read what is compared
            verdict.problems += framed
            continue
        try:
            ours = members.read(file, path)
        except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
            verdict.problems.append(f"{file}: cannot be read as an archive ({exc})")
            continue
        if not file.endswith(".whl"):
            verdict.add(compare.sdist(file, ours, sdist))
            continue
        candidate = WheelContents(file, artifacts.identify(Path(file)).tags, ours)
        if wheels:
            verdict.add(_closest(candidate, wheels, policy))
        else:
            verdict.add(_metadata_only(candidate, sdist, reference, policy))
    return verdict


def _closest(
    candidate: WheelContents, wheels: list[WheelContents], policy: Acceptance
) -> ReferenceVerdict:
    """The wheel against the reference wheels (from the sdist, then from the tree): the first
    it matches, else the differences from the first."""
    found = []
    for ref in wheels:
        verdict = compare.wheel(candidate, ref, policy)
        verdict.add(compiled.against_reference(candidate, ref, policy))
        if not verdict.problems:
            return verdict
        found.append(verdict)
    return found[0]


def _metadata_only(
    candidate: WheelContents, sdist: Archive, ref: Reference, policy: Acceptance
) -> ReferenceVerdict:
    file = candidate.file
    note = ref.notes[0] if ref.notes else f"no wheel of {ref.commit[:12]} builds on this machine"
    reason = accepted(policy.accept, "metadata-only")
    if not reason:
        return ReferenceVerdict(
            [
                f"{file}: {note}, so it cannot be compared with a wheel built from the commit. "
                f"The metadata-only path is an exception the project declares: set "
                f"{CLASSES['metadata-only'].key} to the reason (its members are then compared "
                "with the sdist's files), or make the wheel build from the commit alone"
            ]
        )
    verdict = compiled.against_sdist(candidate, sdist, ref.metadata, policy)
    detail = f"{note}; the project: {reason}"
    verdict.accepted.insert(0, Difference(file, "(the wheel)", "metadata-only", detail))
    return verdict


def findings(
    config: Config,
    version: Version,
    commit: str,
    files: Named,
    *,
    whole: bool = True,
    evidence: Evidence | None = None,
    trusted: str = "",
) -> ReferenceVerdict:
    """Every reason the files are not this release's, built from ``commit`` (no problem: they
    are), and the differences of an accepted class. ``evidence``: the provenance offered
    with the files, or recorded in the bound manifest; ``trusted``: the reference digest the
    bound manifest records (the cache is read only when it holds that)."""
    project = from_config(config)
    problems = identity(project, version, files, whole=whole)
    if problems:
        return ReferenceVerdict(problems)
    ref = reference_of(project, commit, version, trusted)
    digests = {name: sha256(path) for name, path in files}
    offered = replace(evidence or Evidence(), commit=commit, source=ref.source, sha256=digests)
    accept = project.wheels.accept
    verdict = built_from(ref, files, Acceptance(accept, offered))
    verdict.reference = ref.digest
    unseen = reference.left_out()
    if verdict.problems and unseen:
        verdict.problems.append(
            "the reference build does not see these variables of this shell, as a fresh CI "
            f"machine has none of them: {', '.join(unseen)}; a file or byte that a build makes "
            "only with them is refused: build the release files without them, or in CI"
        )
    return verdict


def reference_of(project: Project, commit: str, version: Version, trusted: str = "") -> Reference:
    """The reference build of ``commit`` at ``version`` (written into the export first where
    the commit's files carry another: the version comes from the tag)."""
    config = project.config
    if Version(queries.version_at(config.root, commit)) == version:
        return reference.build(config.root, commit, trusted=trusted)
    return reference.build(
        config.root,
        commit,
        str(version),
        lambda tree: restamp(project, tree, str(version)),
        trusted=trusted,
    )
