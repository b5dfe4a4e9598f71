"""A candidate file compared whole with the reference build of its commit (pure).

An sdist: every member, none missing, none extra, the same bytes (members' bytes: the build's
own timestamps live in the archive's headers, which are not compared); ``PKG-INFO`` by its
fields. A wheel: every member that is not compiled code (sources, package data, entry points,
``.dist-info`` files) the same bytes as the reference wheel's, ``METADATA`` by its fields, its
``RECORD`` hashes true, a compiled extension for each module the reference compiled, each with
tags that agree with the file name. Every difference names the file, the member and both values.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
from collections.abc import Iterable, Mapping
from email.parser import HeaderParser
from typing import Any

from packaging.tags import Tag

FIELDS = ("Name", "Version", "Requires-Python", "Requires-Dist", "Provides-Extra")
"""The core metadata fields compared (PKG-INFO and METADATA)."""
COMPILED = (".so", ".pyd", ".dylib", ".dll")
BUILD_OWN = ("WHEEL", "RECORD", "METADATA")
"""``.dist-info`` files that are the build's own (checked by meaning, not by bytes)."""

SIGNATURES = (".dist-info/RECORD.jws", ".dist-info/RECORD.p7s")
"""RECORD's signatures: the files RECORD cannot list with a hash."""
Members = Mapping[str, bytes]


def metadata_fields(text: str) -> dict[str, tuple[str, ...]]:
    """The :data:`FIELDS` of a METADATA or PKG-INFO, each its values in a stable order."""
    message = HeaderParser().parsestr(text)
    found = {}
    for name in FIELDS:
        values = [" ".join(v.split()) for v in message.get_all(name) or []]
        if name == "Name":
            values = [re.sub(r"[-_.]+", "-", v).lower() for v in values]
        found[name] = tuple(sorted(values))
    return found


def json_fields(data: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The :data:`FIELDS` of ``python -m build --metadata``'s JSON."""
    found = {}
    for name in FIELDS:
        value = data.get(name.lower().replace("-", "_"))
        values = [value] if isinstance(value, str) else list(value or [])
        values = [" ".join(str(v).split()) for v in values]
        if name == "Name":
            values = [re.sub(r"[-_.]+", "-", v).lower() for v in values]
        found[name] = tuple(sorted(values))
    return found


def fields_differ(
    file: str, member: str, ours: Mapping[str, tuple[str, ...]], ref: Mapping[str, tuple[str, ...]]
) -> list[str]:
    return [
        f"{file}: {member} {name} is {_shown(ours[name])}, the reference build of the commit "
        f"has {_shown(ref[name])}"
        for name in FIELDS
        if ours[name] != ref[name]
    ]


def _shown(values: Iterable[str]) -> str:
    listed = list(values)
    return "; ".join(repr(v) for v in listed) if listed else "(none)"


def sdist(file: str, ours: Members, ref: Members) -> list[str]:
    """Differences of an sdist's members (top folder dropped) from the reference sdist's."""
    problems = [
        f"{file}: {m} is missing (the reference sdist of the commit has it)"
        for m in sorted(set(ref) - set(ours))
    ]
    problems += [
        f"{file}: {m} is not in the reference sdist of the commit (built from another tree)"
        for m in sorted(set(ours) - set(ref))
    ]
    for member in sorted(set(ours) & set(ref)):
        if member == "PKG-INFO" or member.endswith(".egg-info/PKG-INFO"):
            mine, theirs = (metadata_fields(_text(f[member])) for f in (ours, ref))
            problems += fields_differ(file, member, mine, theirs)
        elif ours[member] != ref[member]:
            problems.append(_bytes_differ(file, member, ours[member], ref[member]))
    return problems


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _bytes_differ(file: str, member: str, ours: bytes, ref: bytes) -> str:
    return (
        f"{file}: {member} differs from the reference build of the commit ("
        f"{_digest(ours)}, {len(ours)} bytes; the reference: {_digest(ref)}, {len(ref)} bytes)"
    )


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16] + "..."


def is_compiled(member: str) -> bool:
    name = member.rsplit("/", 1)[-1]
    return name.endswith(COMPILED) or ".so." in name


def module_of(member: str) -> str:
    """``pkg/_ext.cpython-312-x86_64-linux-gnu.so`` -> ``pkg/_ext``."""
    folder, _, name = member.rpartition("/")
    return f"{folder}/{name.split('.', 1)[0]}" if folder else name.split(".", 1)[0]


def record(file: str, ours: Members) -> list[str]:
    """The wheel's RECORD against its own members: each listed hash true, every member listed."""
    names = [m for m in ours if m.endswith(".dist-info/RECORD")]
    if len(names) != 1:
        return [f"{file}: {len(names)} .dist-info/RECORD files (a wheel has one)"]
    listed: dict[str, str] = {}
    for row in csv.reader(io.StringIO(_text(ours[names[0]]))):
        if row:
            listed[row[0]] = row[1] if len(row) > 1 else ""
    problems = []
    for member, data in sorted(ours.items()):
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


def wheel_tags(file: str, tags: frozenset[Tag], ours: Members) -> list[str]:
    """The ``Tag`` lines of the wheel's ``.dist-info/WHEEL`` against its file name's tags."""
    names = [m for m in ours if m.endswith(".dist-info/WHEEL")]
    if len(names) != 1:
        return [f"{file}: {len(names)} .dist-info/WHEEL files (a wheel has one)"]
    message = HeaderParser().parsestr(_text(ours[names[0]]))
    said = {str(t) for t in tags}
    listed = {v.strip() for v in message.get_all("Tag") or []}
    if listed != said:
        return [
            f"{file}: {names[0]} gives the tags {_shown(sorted(listed))}, the file name "
            f"{_shown(sorted(said))}"
        ]
    return []


def tags_agree(file: str, member: str, tags: frozenset[Tag]) -> list[str]:
    """A compiled extension's own suffix against the wheel's tags (its file name)."""
    name = member.rsplit("/", 1)[-1]
    found = re.search(r"\.cpython-3(\d+)[a-z]*-([^.]+)\.so$", name)
    if found:
        pythons = {f"cp3{found[1]}"}
        if not any(t.interpreter in pythons for t in tags):
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


def wheel(file: str, tags: frozenset[Tag], ours: Members, ref: Members) -> list[str]:
    """Differences of a wheel's members from the reference wheel's (see the module)."""
    problems = record(file, ours) + wheel_tags(file, tags, ours)
    mine = {m: d for m, d in ours.items() if not is_compiled(m)}
    theirs = {m: d for m, d in ref.items() if not is_compiled(m)}
    for member in sorted(set(theirs) - set(mine)):
        if not _build_own(member):
            problems.append(f"{file}: {member} is missing (the reference wheel has it)")
    for member in sorted(set(mine) - set(theirs)):
        if not _build_own(member):
            problems.append(f"{file}: {member} is not in the reference wheel of the commit")
    for member in sorted(set(mine) & set(theirs)):
        if member.endswith(".dist-info/METADATA"):
            problems += metadata(file, member, mine[member], metadata_fields(_text(theirs[member])))
        elif not _build_own(member) and mine[member] != theirs[member]:
            problems.append(_bytes_differ(file, member, mine[member], theirs[member]))
    problems += _metadata_present(file, mine, theirs)
    compiled = {module_of(m) for m in ours if is_compiled(m) and ".libs/" not in m}
    for module in sorted({module_of(m) for m in ref if is_compiled(m)} - compiled):
        problems.append(f"{file}: no compiled extension {module} (the reference wheel builds one)")
    for member in sorted(m for m in ours if is_compiled(m)):
        problems += tags_agree(file, member, tags)
    return problems


def _build_own(member: str) -> bool:
    folder, _, name = member.rpartition("/")
    return folder.endswith(".dist-info") and name in BUILD_OWN


def _metadata_present(file: str, mine: Members, theirs: Members) -> list[str]:
    ours = [m for m in mine if m.endswith(".dist-info/METADATA")]
    if not ours:
        return [f"{file}: no .dist-info/METADATA"]
    ref = [m for m in theirs if m.endswith(".dist-info/METADATA")]
    if ref and ours[0] not in theirs:
        return metadata(file, ours[0], mine[ours[0]], metadata_fields(_text(theirs[ref[0]])))
    return []


def metadata(file: str, member: str, data: bytes, ref: Mapping[str, tuple[str, ...]]) -> list[str]:
    return fields_differ(file, member, metadata_fields(_text(data)), ref)


def against_sdist(
    file: str,
    tags: frozenset[Tag],
    ours: Members,
    sdist_members: Members,
    fields: Mapping[str, tuple[str, ...]],
) -> list[str]:
    """A wheel compared where no reference wheel builds here: its METADATA with the reference
    metadata, its RECORD, its Python sources with the sdist's file at the same path (below the
    sdist's top, or below one folder of it: ``src/``, ``python/``)."""
    problems = record(file, ours)
    meta = [m for m in ours if m.endswith(".dist-info/METADATA")]
    if not meta:
        problems.append(f"{file}: no .dist-info/METADATA")
    for member in meta:
        problems += metadata(file, member, ours[member], fields)
    for member, data in sorted(ours.items()):
        if not member.endswith(".py") or ".dist-info/" in member or ".data/" in member:
            continue
        where = [p for p in sdist_members if p == member or p.endswith("/" + member)]
        if len(where) == 1 and sdist_members[where[0]] != data:
            problems.append(_bytes_differ(file, member, data, sdist_members[where[0]]))
    for member in sorted(m for m in ours if is_compiled(m)):
        problems += tags_agree(file, member, tags)
    return problems
