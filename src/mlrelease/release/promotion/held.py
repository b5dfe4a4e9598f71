"""Invariant (a), pure: what an index holds against a manifest, read as installers read it.
The gatekeeper (:mod:`~mlrelease.release.promotion.gatekeeper`) asks it before each upload and
before the final tag; the facts are the index edge's entries
(:mod:`mlrelease.edges.simple_pages`), proven by :mod:`~mlrelease.release.promotion.index`.

- An entry installers would read otherwise than it is named is refused, whatever its version:
  its URL names another file than the name it states (pip reads the URL, uv the name), its URL
  names no plain file, carries a fragment or query pip reads as the file's identity (``#egg=``)
  or a fragment that is not one hash, it is no distribution file (named apart when its name is
  one only once lower-cased, ``DEMO-1.4.0.TAR.GZ``), it states two SHA-256, or it states a
  hash by an algorithm hashlib lacks (an installer that knows it checks it; it cannot be
  checked here).
- A file of the release the manifest does not list is foreign, whatever its spelling, yanked
  or not.
- A bound name holds the bound bytes: where it was downloaded (promote), the SHA-256 of its
  bytes, every SHA-256 the index states for it, and every hash it states by another algorithm
  (``#sha512=``, ``#md5=``, PEP 691 ``hashes``: installers check them), each against the
  downloaded bytes; elsewhere the SHA-256 the index states. The PEP 658 metadata file a
  downloaded bound file advertises is that file's own METADATA, byte for byte (pip resolves
  with it before it downloads the file).
- A downloaded bound file's ``Requires-Python`` as the index states it
  (``data-requires-python``, ``requires-python``: pip chooses files by it) is its own
  metadata's, equal as a ``SpecifierSet``; stated where its metadata has none, it is refused;
  not stated at all (pypiserver states none), installers read the file's own.
- ``complete`` (the final tag): every bound file is there, none yanked, each downloaded.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from mlrelease.edges.distnames import is_distribution
from mlrelease.edges.index import IndexFile
from mlrelease.release.promotion.manifest import Manifest
from mlrelease.release.world.snapshot import Index


@dataclass(frozen=True)
class Held:
    """What an index holds against a manifest, by file name (``release status`` shows it)."""

    foreign: tuple[str, ...]
    """Files of this version (any spelling) the manifest does not list."""
    differ: tuple[str, ...]
    """Bound names holding other bytes, or stating another SHA-256, each with both."""
    missing: tuple[str, ...]
    yanked: tuple[str, ...]
    """Bound files the index yanked."""
    odd: tuple[str, ...] = ()
    """Entries installers read otherwise than they are named, each with why."""
    metadata: tuple[str, ...] = ()
    """Bound files whose advertised metadata file is not their own METADATA."""
    unproven: tuple[str, ...] = ()
    """Bound files taken at the index's word, not downloaded and hashed."""
    python: tuple[str, ...] = ()
    """Downloaded bound files whose Requires-Python the index states otherwise than their own
    metadata."""


def odd(entry: IndexFile) -> str:
    """Why installers would read ``entry`` otherwise than it is named ("" when they would
    not)."""
    name = entry.filename
    if entry.listed and entry.listed != name:
        return f"its URL {entry.url} names {name}: pip reads that name, uv {entry.listed!r}"
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        return f"its URL {entry.url} names no plain file"
    if entry.fragment:
        return (
            f"its URL carries {entry.fragment}, which is not one hash (pip reads #egg= as the "
            "file's name and version)"
        )
    if is_distribution(name.lower()) and not is_distribution(name):
        return (
            "its extension is a distribution file's only once lower-cased: installers match it "
            "as spelt (pip skips it); rename it on the index, or remove it"
        )
    if not is_distribution(name):
        return "no distribution file (a wheel, an sdist or a legacy archive)"
    if len(entry.claims) > 1:
        shown = ", ".join(c[:16] + "..." for c in entry.claims)
        return f"the index states {len(entry.claims)} SHA-256 for it ({shown})"
    unknown = [a for a, _ in entry.hashes if a not in hashlib.algorithms_available]
    if unknown:
        return (
            f"the index states a {unknown[0]} hash for it, an algorithm unknown here (hashlib): "
            "an installer that knows it checks it, so the file cannot be proven"
        )
    return ""


def _differ(entry: IndexFile, bound: str) -> str:
    """How the bound name ``entry`` holds other bytes than ``bound`` ("" when it does not)."""
    how = "downloaded and hashed" if entry.downloaded else "its sha256"
    if entry.sha256 != bound:
        return f"{entry.filename} ({how}: {entry.sha256[:16]}..., bound: {bound[:16]}...)"
    lies = [c for c in entry.claims if c != bound]
    if lies:
        return (
            f"{entry.filename} (the index states SHA-256 {lies[0][:16]}... for its bytes, "
            f"{bound[:16]}...: installers checking it refuse the file)"
        )
    computed = dict(entry.digests)
    wrong = [(a, d) for a, d in entry.hashes if entry.downloaded and computed.get(a) != d]
    if wrong:
        algorithm, stated = wrong[0]
        return (
            f"{entry.filename} (the index states {algorithm} {stated[:16]}... for it, its "
            f"downloaded bytes hash to {computed.get(algorithm, '')[:16] or '(unknown)'}...: "
            "installers checking it refuse the file)"
        )
    return ""


def _python(entry: IndexFile) -> str:
    """How the index's Requires-Python for a downloaded file is not the file's own ("" when
    it is, when the index states none (installers then read the file's own, as they do from
    pypiserver, which states none), or when the file was not downloaded)."""
    said, own = entry.requires_python, entry.requires_python_inside
    if not entry.downloaded or said is None or said == own:
        return ""
    try:
        if said is not None and own is not None and SpecifierSet(said) == SpecifierSet(own):
            return ""
    except InvalidSpecifier:
        pass
    return (
        f"{entry.filename} (the index states requires-python {said or '(none)'!s}, its own "
        f"metadata Requires-Python {own or '(none)'!s}: pip chooses files by the index's)"
    )


def _metadata(entry: IndexFile) -> str:
    """How a downloaded file's advertised metadata file is not its own ("" when it is)."""
    if entry.metadata is None or not entry.downloaded:
        return ""
    served, inside = entry.metadata_served, entry.metadata_inside
    if served == inside and entry.metadata in ("", served):
        return ""
    stated = f", stated {entry.metadata[:16]}..." if entry.metadata not in ("", served) else ""
    return (
        f"{entry.url}.metadata (SHA-256 {served[:16]}...{stated}) is not {entry.filename}'s own "
        f"METADATA ({inside[:16] or 'none'}...)"
    )


def compare(index: Index, manifest: Manifest) -> Held:
    listed = {e.name: e.sha256 for e in manifest.files}
    held = {f.filename for f in index.files}
    bound = [f for f in index.files if f.filename in listed]
    return Held(
        foreign=tuple(dict.fromkeys(f.filename for f in index.files if f.filename not in listed)),
        differ=tuple(dict.fromkeys(d for f in bound if (d := _differ(f, listed[f.filename])))),
        missing=tuple(n for n in listed if n not in held),
        yanked=tuple(dict.fromkeys(f.filename for f in bound if f.yanked)),
        odd=tuple(
            dict.fromkeys(
                f"{f.listed or f.filename} ({why})"
                for f in (*index.files, *index.others)
                if (why := odd(f))
            )
        ),
        metadata=tuple(dict.fromkeys(m for f in bound if (m := _metadata(f)))),
        unproven=tuple(dict.fromkeys(f.filename for f in bound if not f.downloaded)),
        python=tuple(dict.fromkeys(p for f in bound if (p := _python(f)))),
    )


def index_problem(index: Index | None, manifest: Manifest, *, complete: bool) -> str | None:
    """Why the index does not hold only the manifest's files, byte for byte, as installers
    read it (a) (and, with ``complete``, all of them, none yanked, each downloaded and
    hashed); None when it does."""
    if index is None:
        return None
    if index.error:
        return (
            f"{index.error}: what the index holds decides what may be sent; fix the index URL "
            "or the connection and re-run"
        )
    found = compare(index, manifest)
    problems = []
    if found.odd:
        problems.append(
            f"{index.url} lists entries installers read otherwise than they are named: "
            f"{'; '.join(found.odd)}"
        )
    if found.foreign:
        problems.append(
            f"{index.url} holds {', '.join(found.foreign)}, files of this version that the "
            f"manifest of {manifest.rc_tag} does not list (installers pinning it may pick them, "
            "yanked or not)"
        )
    if found.differ:
        problems.append(
            f"{index.url} holds other bytes under the bound names: {'; '.join(found.differ)}"
        )
    if found.metadata:
        problems.append(
            f"{index.url} serves metadata files that installers resolve with and that are not "
            f"the files' own: {'; '.join(found.metadata)}"
        )
    if found.python:
        problems.append(
            f"{index.url} states a Python for bound files other than their own metadata's: "
            f"{'; '.join(found.python)}"
        )
    refused = bool(problems)
    if complete and found.unproven and not problems:
        problems.append(
            f"{', '.join(found.unproven)} not downloaded from {index.url} and hashed here: the "
            "final tag needs each bound file proven by its bytes"
        )
    if complete and found.missing and not problems:
        problems.append(f"{index.url} lacks {', '.join(found.missing)}: publish first")
    if complete and found.yanked and not problems:
        problems.append(
            f"{index.url} has yanked {', '.join(found.yanked)}: a release is not tagged over "
            "yanked files; find out who yanked them and why"
        )
    if not problems:
        return None
    return "; ".join(problems) + (
        ". Nothing was sent; remove them from the index (only its owner can), then re-run"
        if refused
        else ""
    )
