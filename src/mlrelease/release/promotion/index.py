"""What the index holds of one project at one version, read as installers read it (the
release's reading of the one index edge, :mod:`mlrelease.edges.index`).

Every entry of the project page counts as installers read it: by the name its URL ends with
(pip) and by the name it states (uv), of both pages an index may serve (PEP 691 JSON, and the
HTML an older pip asks for). A file of the project at the version, whatever its spelling
(:func:`~mlrelease.edges.index.of_release`: a local label, a build tag, another spelling of the
name or of the version), yanked or not, is in
:attr:`~mlrelease.release.world.snapshot.Index.files`: an installer pinning the version picks it;
every other entry of the page is in :attr:`~mlrelease.release.world.snapshot.Index.others`, where
the gatekeeper looks for entries installers would read otherwise than they are named.

The index's word about a file's bytes is a claim. The files named in ``download`` (the bound
ones, when publish or promote decides) are downloaded from the URL installers use, following
redirects, and hashed here, by SHA-256 and by every other algorithm the entry states a hash in;
so is the PEP 658 metadata file an entry advertises, with the file's own METADATA beside it,
whose ``Requires-Python`` is read beside the one the index states. Other files are taken at the
SHA-256 the index states, or downloaded and hashed when it states none (invariant (a)). A page
that is not a simple index is an error, never "no files".
"""

from __future__ import annotations

import email.parser
import hashlib
import tarfile
import tempfile
import zipfile
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.version import Version

from mlrelease.edges import index
from mlrelease.edges.digests import sha256
from mlrelease.edges.index import IndexFile
from mlrelease.errors import UserError
from mlrelease.release.world.snapshot import Index
from mlrelease.wheels.artifacts import metadata_bytes


def read(
    repository_url: str, project: str, version: Version, *, download: Collection[str] = ()
) -> Index:
    """The entries of ``project`` on the index ``repository_url`` takes uploads at: the files
    of ``version`` (those named in ``download`` proven by their bytes, the others by a hash)
    and the page's other entries; an index that cannot be read is an :class:`Index` with the
    reason in ``error`` (refused when a decision needs it)."""
    url = index.page_url(index.simple_url(repository_url), project)
    try:
        listed = index.project_page(url, project) or []
        mine = [f for f in listed if f.names_release(project, version)]
        proofs: dict[tuple[str, tuple[str, ...]], Proof] = {}
        files = [_proven(f, proofs) if f.filename in download else index.hashed(f) for f in mine]
    except UserError as exc:
        return Index(url, error=str(exc).rstrip("."), repository=repository_url)
    ordered = tuple(sorted(files, key=lambda f: (f.filename, f.url)))
    others = tuple(f for f in listed if not f.names_release(project, version))
    return Index(url, ordered, repository=repository_url, others=others)


@dataclass(frozen=True)
class Proof:
    """What the bytes at a URL are: their SHA-256, their digest by each other algorithm
    asked, and their own metadata's SHA-256 and ``Requires-Python``."""

    sha256: str
    digests: tuple[tuple[str, str], ...]
    metadata: str
    requires_python: str | None


def _proven(file: IndexFile, proofs: dict[tuple[str, tuple[str, ...]], Proof]) -> IndexFile:
    """``file`` with the SHA-256 of the bytes at its URL (each URL downloaded once per read
    and set of algorithms), their digest by each algorithm the entry states another hash in,
    their own ``Requires-Python``, and, when it advertises a metadata file, the SHA-256 of that
    file and of its own METADATA."""
    key = (file.url, tuple(f"{a}={len(d)}" for a, d in file.hashes))
    if key not in proofs:
        with tempfile.TemporaryDirectory(prefix="mlrelease-proof-") as tmp:
            got = index.download(replace(file, sha256=""), Path(tmp))
            digests = tuple((a, _digest(got, a, len(d) // 2)) for a, d in file.hashes)
            proofs[key] = Proof(sha256(got), digests, *_own_metadata(got))
    proof = proofs[key]
    proven = replace(
        file,
        sha256=proof.sha256,
        downloaded=True,
        digests=proof.digests,
        requires_python_inside=proof.requires_python,
    )
    if file.metadata is None:
        return proven
    served = hashlib.sha256(index.metadata_file(file)).hexdigest()
    return replace(proven, metadata_served=served, metadata_inside=proof.metadata)


def _digest(path: Path, algorithm: str, length: int) -> str:
    """The hex digest of ``path`` by ``algorithm`` ("" when hashlib lacks it); a SHAKE
    digest as long as the stated one (``length`` bytes)."""
    try:
        found = hashlib.new(algorithm, usedforsecurity=False)  # a check, not a secret
    except ValueError:
        return ""
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            found.update(chunk)
    if algorithm.startswith("shake_"):  # an extendable output: as long as the stated one
        return str(found.hexdigest(length))  # type: ignore[call-arg]
    return found.hexdigest()


def _own_metadata(path: Path) -> tuple[str, str | None]:
    """The SHA-256 of the downloaded file's own METADATA and its ``Requires-Python`` ("" and
    None when it has none, or is no archive: its bytes are then not the bound ones anyway)."""
    try:
        found = metadata_bytes(path)
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError):
        return "", None
    if found is None:
        return "", None
    python = email.parser.BytesHeaderParser().parsebytes(found).get("Requires-Python")
    return hashlib.sha256(found).hexdigest(), None if python is None else str(python)
