"""Compiled code with evidence, and the metadata-only path (pure).

A wheel whose tags the reference builds here (the same interpreter, ABI and platform) is
*rebuilt*: each of its compiled members equals the reference's byte for byte, or (class
``compiled-normalised``) maps the same image (:mod:`mlrelease.wheels.elf`); an extension's
sources are the whole tree the reference checked out (``csrc/`` and the like, submodules
too), so a fix outside the package shows. Any other wheel (another platform, Python or
toolchain) is not rebuilt: its extensions must be the modules the reference compiles, and each
compiled member is accepted only on the provenance of the build that made the wheel (class
``provenance``): otherwise refused, and shown as "provenance, not rebuilt" when accepted.

A compiled member whose module Python would import ahead of a committed one (``pkg/core.so``
beside ``pkg/core.py``) is never accepted on evidence: only a reference that compiles it too.

Where no wheel builds here (class ``metadata-only``, declared by the project), every member
that is not compiled code is still compared: with the sdist's file at the same path (below its
top folder, or one folder of it: ``src/``, ``python/``), METADATA with the metadata the sdist's
backend prepares, WHEEL with what a wheel of its tags says; a member with no counterpart needs
provenance, like compiled code.
"""

from __future__ import annotations

from mlrelease.wheels import fields
from mlrelease.wheels.compare import (
    Acceptance,
    bytes_differ,
    record,
    structure,
    tags_agree,
)
from mlrelease.wheels.differences import Difference, ReferenceVerdict, accepted, not_accepted
from mlrelease.wheels.elf import same_image
from mlrelease.wheels.members import Archive, WheelContents, compiled, is_record, module_of


def _python(archive: Archive, code: set[str]) -> set[str]:
    """The modules of ``archive``'s members that are not compiled code."""
    return {module_of(m) or "" for m in archive.members if m not in code} - {""}


def against_reference(
    candidate: WheelContents, reference: WheelContents, policy: Acceptance
) -> ReferenceVerdict:
    """The compiled members of a wheel against the reference wheel's (see the module)."""
    file, tags, ours = candidate.file, candidate.tags, candidate.archive
    ref, ref_tags = reference.archive, reference.tags
    mine, theirs = compiled(ours, tags), compiled(ref, ref_tags)
    verdict = ReferenceVerdict([p for m in sorted(mine) for p in tags_agree(file, m, tags)])
    if tags == ref_tags:
        return verdict.add(_rebuilt(file, ours, ref, mine, theirs, policy))
    modules = {module_of(m) for m in theirs} - {None}
    have = {module_of(m) for m in mine}
    verdict.problems += [
        f"{file}: no compiled extension {module} (the reference wheel builds one)"
        for module in sorted(m for m in modules - have if m)
    ]
    python = _python(ours, mine) | _python(ref, theirs)
    for name in sorted(mine):
        module = module_of(name)
        if module is not None and module not in modules:
            ahead = (
                f"; Python imports it ahead of the committed {module}" if module in python else ""
            )
            verdict.problems.append(
                f"{file}: {name} is compiled code of {module}, which the reference build of the "
                f"commit does not compile{ahead}"
            )
            continue
        verdict.add(
            vouched(file, name, policy, "compiled code of a wheel this machine does not build")
        )
    return verdict


def _rebuilt(
    file: str, ours: Archive, ref: Archive, mine: set[str], theirs: set[str], policy: Acceptance
) -> ReferenceVerdict:
    verdict = ReferenceVerdict()
    for name in sorted(mine | theirs):
        if name not in theirs:
            verdict.problems.append(
                f"{file}: {name} is compiled code the reference build of the commit does not make"
            )
            continue
        if name not in mine:
            verdict.problems.append(f"{file}: {name} is missing (the reference wheel builds it)")
            continue
        a, b = ours.members[name].data, ref.members[name].data
        if a == b:
            continue
        if not same_image(a, b):
            verdict.problems.append(
                bytes_differ(file, name, a, b) + ": other code or data, rebuilt here from the "
                "commit's sources"
            )
        elif accepted(policy.accept, "compiled-normalised"):
            detail = "rebuilt here: the same loaded image, build-id and debug info aside"
            verdict.accepted.append(Difference(file, name, "compiled-normalised", detail))
        else:
            verdict.problems.append(
                f"{file}: {name} differs from the reference build of the commit; "
                + not_accepted("compiled-normalised")
            )
    return verdict


def vouched(file: str, name: str, policy: Acceptance, what: str) -> ReferenceVerdict:
    """``name`` accepted on the provenance of its wheel's build (class ``provenance``), or why
    not."""
    detail, why = policy.evidence.provenance(file, name)
    if not accepted(policy.accept, "provenance"):
        return ReferenceVerdict(
            [f"{file}: {name} is {what} (provenance, not rebuilt); {not_accepted('provenance')}"]
        )
    if why:
        return ReferenceVerdict(
            [f"{file}: {name} is {what}, accepted only on the provenance of its build: {why}"]
        )
    return ReferenceVerdict(accepted=[Difference(file, name, "provenance", detail)])


def against_sdist(
    candidate: WheelContents, sdist: Archive, metadata: dict[str, object], policy: Acceptance
) -> ReferenceVerdict:
    """A wheel where no wheel builds here: the metadata-only path (see the module)."""
    file, tags, ours = candidate.file, candidate.tags, candidate.archive
    verdict = ReferenceVerdict(structure(file, ours) + record(file, ours))
    code = compiled(ours, tags)
    files = {n.split("/", 1)[1]: d for n, d in sdist.files().items() if "/" in n}
    python = (
        _python(ours, code)
        | {module_of(p) or "" for p in files}
        | {module_of(p.split("/", 1)[1]) or "" for p in files if "/" in p}
    )
    pure = all(t.platform == "any" for t in tags)
    for name, entry in sorted(ours.members.items()):
        if entry.kind == "dir" or is_record(name):
            continue
        module = module_of(name)
        if name in code and module in python:
            verdict.problems.append(
                f"{file}: {name} is compiled code Python imports ahead of the committed {module}"
            )
        elif name in code:
            verdict.add(vouched(file, name, policy, "compiled code"))
        elif name.endswith(".dist-info/METADATA"):
            what = "the metadata the sdist's backend prepares"
            verdict.problems += fields.metadata_differ(file, name, entry.data, metadata, what)
        elif name.endswith(".dist-info/WHEEL"):
            verdict.problems += fields.wheel_differ(file, name, entry.data, None, tags, pure)[0]
        else:
            verdict.add(_in_sdist(file, name, entry.data, files, policy))
    return verdict


def _in_sdist(
    file: str, name: str, data: bytes, files: dict[str, bytes], policy: Acceptance
) -> ReferenceVerdict:
    """A wheel member against the sdist's file at its path (below the sdist's top folder, or
    one folder of it); without one, its build's provenance."""
    rel = name
    if ".dist-info/licenses/" in name:
        rel = name.split(".dist-info/licenses/", 1)[1]
    elif ".data/" in name.split("/", 1)[0] + "/":
        rel = name.split("/", 2)[-1]
    where = [
        p
        for p in files
        if p == rel or (p.endswith("/" + rel) and p.count("/") == rel.count("/") + 1)
    ]
    if len(where) == 1:
        if files[where[0]] == data:
            return ReferenceVerdict()
        return ReferenceVerdict(
            [bytes_differ(file, name, data, files[where[0]], f"the sdist's {where[0]}")]
        )
    return vouched(file, name, policy, "not in the sdist (only the build makes it)")
