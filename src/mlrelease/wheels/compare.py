"""A candidate file compared whole with the reference build of its commit, deny by default (pure).

An sdist: every entry (files, folders, links, under its top folder), none missing, none extra,
the same bytes; ``PKG-INFO`` field by field. A wheel: every entry the same bytes as the
reference wheel's, none missing, none extra (an import hook, ``.pth``, and a module Python
imports ahead of the committed one are entries like any other; a folder entry counts where it
makes a folder the reference's entries do not); METADATA, WHEEL and
``entry_points.txt`` field by field; RECORD true of every member. Compiled code is compared
as :mod:`mlrelease.wheels.compiled` says. Anything that is not equal is refused, unless it
falls in a class of :mod:`mlrelease.wheels.differences` the project accepts.

Permission bits: setuid, setgid and sticky, and whether a file is executable, as the
reference's; not compared: the read and write bits (the builder's umask).

What is not compared: the archives' own headers (timestamps, order, compression), and RECORD's
bytes, which are checked by meaning and form instead (every member listed once with its true
hash and size, no other row, three fields a row, sha256 or better): the order of its rows,
their CSV quoting and their line endings (auditwheel writes CRLF) are not compared.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
import stat
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from packaging.tags import Tag

from mlrelease.wheels import fields
from mlrelease.wheels.config import Accept
from mlrelease.wheels.differences import Difference, ReferenceVerdict, accepted, not_accepted
from mlrelease.wheels.evidence import Evidence
from mlrelease.wheels.members import Archive, ArchiveEntry, WheelContents, compiled, records

SIGNATURES = (".dist-info/RECORD.jws", ".dist-info/RECORD.p7s")
"""RECORD's signatures: the members RECORD cannot list with a hash."""


@dataclass(frozen=True)
class Acceptance:
    """What the project accepts, and what vouches for the members no comparison can make."""

    accept: Accept = field(default_factory=Accept)
    evidence: Evidence = field(default_factory=Evidence)


SPECIAL = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX
"""setuid, setgid and sticky: no build makes them, and an installer may keep them."""
EXECUTABLE = 0o111


def structure(file: str, archive: Archive) -> list[str]:
    """Names that occur twice (an installer takes one of them, unread here), and entries with
    setuid, setgid or sticky bits (:data:`SPECIAL`), which no build makes, whatever the path
    that judges the rest."""
    return [
        f"{file}: {name} occurs more than once in the archive (which one installs is the "
        "installer's choice)"
        for name in archive.duplicates
    ] + [
        f"{file}: {name} has mode {entry.mode:o} (setuid, setgid or sticky); no build makes one"
        for name, entry in sorted(archive.members.items())
        if entry.mode & SPECIAL
    ]


def bytes_differ(file: str, member: str, ours: bytes, ref: bytes, what: str = "") -> str:
    return (
        f"{file}: {member} differs from {what or 'the reference build of the commit'} ("
        f"{_digest(ours)}, {len(ours)} bytes; the reference: {_digest(ref)}, {len(ref)} bytes)"
    )


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16] + "..."


def _kinds(file: str, name: str, ours: ArchiveEntry, ref: ArchiveEntry) -> str | None:
    if ours.kind != ref.kind:
        return f"{file}: {name} is a {ours.kind}, in the reference build of the commit a {ref.kind}"
    if ours.kind == "link" and ours.data != ref.data:
        return (
            f"{file}: {name} links to {ours.data.decode(errors='replace')!r}, in the reference "
            f"build to {ref.data.decode(errors='replace')!r}"
        )
    return _modes(file, name, ours, ref)


def _modes(file: str, name: str, ours: ArchiveEntry, ref: ArchiveEntry) -> str | None:
    """Whether a file is executable, against the reference's, where both archives record modes
    (:func:`structure` refuses setuid, setgid and sticky bits anywhere). Not compared: the read
    and write bits, which follow the builder's umask."""
    runs = [bool(e.mode & EXECUTABLE) for e in (ours, ref)]
    if ours.kind == "file" and ours.mode and ref.mode and runs[0] != runs[1]:
        said = "executable" if runs[0] else "not executable"
        return f"{file}: {name} is {said} (mode {ours.mode:o}), in the reference build {ref.mode:o}"
    return None


def sdist(file: str, ours: Archive, ref: Archive) -> ReferenceVerdict:
    """Differences of an sdist's entries from the reference sdist's."""
    verdict = ReferenceVerdict(structure(file, ours))
    mine, theirs = ours.members, ref.members
    for name in sorted(set(mine) | set(theirs)):
        a, b = mine.get(name), theirs.get(name)
        if b is None:
            verdict.problems.append(
                f"{file}: {name} is not in the reference sdist of the commit (built from "
                "another tree)"
            )
        elif a is None:
            verdict.problems.append(f"{file}: {name} is missing (the reference sdist has it)")
        elif (problem := _kinds(file, name, a, b)) is not None:
            verdict.problems.append(problem)
        elif name.endswith("/PKG-INFO"):
            verdict.problems += fields.metadata_differ(
                file, name, a.data, fields.raw(b.data.decode("utf-8", errors="replace"))
            )
        elif a.data != b.data:
            verdict.problems.append(bytes_differ(file, name, a.data, b.data))
    return verdict


HASHES = ("sha256", "sha384", "sha512")
"""RECORD's hash algorithms: sha256 or better (the wheel specification forbids md5 and sha1)."""


def record(file: str, ours: Archive) -> list[str]:
    """The wheel's RECORD against its own members: each row exactly a path, a hash and a size
    (:func:`record_rows`), each file listed once with its true hash and size, no row for
    anything else."""
    names = records(ours)
    if len(names) != 1:
        return [f"{file}: {len(names)} .dist-info/RECORD files (a wheel has one)"]
    files = ours.files()
    rows, problems = record_rows(file, names[0], ours.members[names[0]].data, files)
    listed = {r[0]: r[1] for r in rows}
    counted = Counter(r[0] for r in rows)
    problems += [
        f"{file}: {names[0]} lists {name} more than once"
        for name, count in sorted(counted.items())
        if count > 1
    ]
    problems += [
        f"{file}: {names[0]} lists {name}, which the wheel does not hold"
        for name in sorted(set(listed) - set(files))
    ]
    for member, data in sorted(files.items()):
        if member == names[0] or member.endswith(SIGNATURES):
            continue
        if member not in listed:
            problems.append(f"{file}: {member} is not listed in {names[0]}")
            continue
        algo, _, want = listed[member].partition("=")
        got = (
            base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
            if algo in hashlib.algorithms_guaranteed
            else ""
        )
        if got != want:
            problems.append(
                f"{file}: {names[0]} gives {member} {listed[member] or '(no hash)'}, its bytes "
                f"hash to {algo}={got}"
            )
    return problems


def record_rows(
    file: str, name: str, data: bytes, files: Mapping[str, bytes]
) -> tuple[list[list[str]], list[str]]:
    """RECORD's rows, and what is wrong with their form: a row of other than
    three fields (a fourth column is text installers print), a hash by an algorithm not in
    :data:`HASHES`, a size that is not the member's (none for RECORD itself and its
    signatures, which carry neither hash nor size). Not compared: the order of the rows, their
    CSV quoting, blank lines and line endings (auditwheel writes CRLF), which change no row."""
    rows = list(csv.reader(io.StringIO(_text(data), newline="")))
    problems: list[str] = []
    for number, row in enumerate(rows, 1):
        if not row:  # a blank line changes no row
            continue
        if len(row) != 3:
            problems.append(f"{file}: {name} line {number} has {len(row)} fields, not 3: {row!r}")
            continue
        path, digest, size = row
        if path == name or path.endswith(SIGNATURES):
            if digest or size:
                problems.append(f"{file}: {name} gives {path} a hash or size; it has neither")
            continue
        algo = digest.partition("=")[0]
        if algo not in HASHES:
            problems.append(
                f"{file}: {name} hashes {path} with {algo or 'nothing'!r}, not one of "
                f"{', '.join(HASHES)}"
            )
        held = files.get(path)
        if held is not None and size != str(len(held)):
            problems.append(
                f"{file}: {name} gives {path} size {size!r}, its bytes are {len(held)} long"
            )
    return [r for r in rows if len(r) == 3], problems


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def dist_info_member(
    file: str,
    name: str,
    ours: ArchiveEntry,
    ref: ArchiveEntry,
    tags: frozenset[Tag],
    policy: Acceptance,
) -> ReferenceVerdict:
    """A member both wheels hold: the same kind and bytes; METADATA, WHEEL and
    ``entry_points.txt`` field by field."""
    verdict = ReferenceVerdict()
    problem = _kinds(file, name, ours, ref)
    if problem is not None:
        verdict.problems.append(problem)
    elif name.endswith(".dist-info/METADATA"):
        verdict.problems += fields.metadata_differ(
            file, name, ours.data, fields.raw(_text(ref.data))
        )
    elif name.endswith(".dist-info/WHEEL"):
        pure = all(t.platform == "any" for t in tags)
        found, generator = fields.wheel_differ(file, name, ours.data, ref.data, tags, pure)
        verdict.problems += found
        if generator:
            verdict.add(_generator(file, name, ours.data, policy))
    elif ours.data != ref.data:
        if name.endswith(".dist-info/entry_points.txt"):
            verdict.problems += fields.entry_points_differ(file, name, ours.data, ref.data)
        else:
            verdict.problems.append(bytes_differ(file, name, ours.data, ref.data))
    return verdict


def _generator(file: str, name: str, data: bytes, policy: Acceptance) -> ReferenceVerdict:
    said = fields.headers(data).get("Generator", [""])[0]
    if accepted(policy.accept, "generator"):
        return ReferenceVerdict(accepted=[Difference(file, f"{name} Generator", "generator", said)])
    return ReferenceVerdict([f"{file}: {name} Generator is {said!r}; {not_accepted('generator')}"])


def wheel(
    candidate: WheelContents, reference: WheelContents, policy: Acceptance
) -> ReferenceVerdict:
    """Differences of a wheel's entries from the reference wheel's, compiled code aside
    (:func:`mlrelease.wheels.compiled.against_reference` compares it)."""
    file, tags, ours = candidate.file, candidate.tags, candidate.archive
    verdict = ReferenceVerdict(structure(file, ours) + record(file, ours))
    mine, theirs = ours.members, reference.archive.members
    code = compiled(ours, tags) | compiled(reference.archive, reference.tags)
    implied = folders_of(theirs)
    both_records = set(records(ours)) & set(records(reference.archive))
    for name in sorted((set(mine) | set(theirs)) - code):
        a, b = mine.get(name), theirs.get(name)
        if name in both_records:  # the RECORDs: `record` above checks ours against our members
            continue
        if _folder_alike(a, b, name in implied):
            continue
        if b is None:
            verdict.problems.append(f"{file}: {name} is not in the reference wheel of the commit")
        elif a is None:
            verdict.problems.append(f"{file}: {name} is missing (the reference wheel has it)")
        else:
            verdict.add(dist_info_member(file, name, a, b, tags, policy))
    return verdict


def folders_of(members: Mapping[str, ArchiveEntry]) -> set[str]:
    """The folders the reference wheel's entries make on install: its folder entries and every
    parent folder of an entry."""
    found = {n for n, e in members.items() if e.kind == "dir"}
    for name in members:
        parts = name.split("/")[:-1]
        found.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return found


def _folder_alike(ours: ArchiveEntry | None, ref: ArchiveEntry | None, implied: bool) -> bool:
    """Folder entries (which carry no data: :mod:`mlrelease.wheels.framing` refuses one that
    does) make the same install where the reference's entries make that folder anyway:
    auditwheel writes an entry for every folder, setuptools none. A folder the reference
    does not make is an extra member, refused like any other."""
    if ours is not None and ours.kind != "dir":
        return False
    if ref is not None and ref.kind != "dir":
        return False
    return ours is None or implied


def tags_agree(file: str, member: str, tags: frozenset[Tag]) -> list[str]:
    """A compiled extension's own suffix against the wheel's tags (its file name)."""
    name = member.rsplit("/", 1)[-1]
    found = re.search(r"\.cpython-3(\d+)[a-z]*-([^.]+)\.so$", name)
    if found and not any(t.interpreter == f"cp3{found[1]}" for t in tags):
        return [
            f"{file}: {member} is built for cp3{found[1]}, the file name says "
            f"{', '.join(sorted({t.interpreter for t in tags}))}"
        ]
    windows = re.search(r"\.cp3(\d+)-(win[^.]*)\.pyd$", name)
    if windows and not any(t.interpreter == f"cp3{windows[1]}" for t in tags):
        return [f"{file}: {member} is built for cp3{windows[1]}, the file name says otherwise"]
    if name.endswith(".abi3.so") and not any(t.abi == "abi3" for t in tags):
        return [f"{file}: {member} is an abi3 extension in a wheel not tagged abi3"]
    return []
