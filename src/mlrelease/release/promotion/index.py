"""What the index holds of one project at one version, read as installers read it (the
release's reading of the one index edge, :mod:`mlrelease.edges.index`).

Every entry of the project page counts as installers read it: by the name its URL ends with
(pip) and by the name it states (uv), of both pages an index may serve (PEP 691 JSON, and the
HTML an older pip asks for). A file of the project at the version, whatever its spelling
(:func:`~mlrelease.edges.index.of_release`: a local label, a build tag, another spelling of the
name or of the version), yanked or not, is in
:attr:`~mlrelease.release.world.Index.files`: an installer pinning the version picks it; every
other entry of the page is in :attr:`~mlrelease.release.world.Index.others`, where the
gatekeeper looks for entries installers would read otherwise than they are named.

The index's word about a file's bytes is a claim. The files named in ``download`` (the bound
ones, when publish or promote decides) are downloaded from the URL installers use, following
redirects, and hashed here; so is the PEP 658 metadata file an entry advertises, with the
file's own METADATA beside it. Other files are taken at the SHA-256 the index states, or
downloaded and hashed when it states none (invariant (a)). A page that is not a simple index
is an error, never "no files".
"""

from __future__ import annotations

import hashlib
import tarfile
import tempfile
import zipfile
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from packaging.version import Version

from mlrelease.edges import index
from mlrelease.edges.digests import sha256
from mlrelease.edges.index import IndexFile
from mlrelease.errors import UserError
from mlrelease.release.world import Index
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
        proofs: dict[str, tuple[str, str]] = {}
        files = [_proven(f, proofs) if f.filename in download else index.hashed(f) for f in mine]
    except UserError as exc:
        return Index(url, error=str(exc).rstrip("."), repository=repository_url)
    ordered = tuple(sorted(files, key=lambda f: (f.filename, f.url)))
    others = tuple(f for f in listed if not f.names_release(project, version))
    return Index(url, ordered, repository=repository_url, others=others)


def _proven(file: IndexFile, proofs: dict[str, tuple[str, str]]) -> IndexFile:
    """``file`` with the SHA-256 of the bytes at its URL (each URL downloaded once per read),
    and, when it advertises a metadata file, the SHA-256 of that file and of its own
    METADATA."""
    if file.url not in proofs:
        with tempfile.TemporaryDirectory(prefix="mlrelease-proof-") as tmp:
            got = index.download(replace(file, sha256=""), Path(tmp))
            proofs[file.url] = (sha256(got), _own_metadata(got))
    digest, inside = proofs[file.url]
    proven = replace(file, sha256=digest, downloaded=True)
    if file.metadata is None:
        return proven
    served = hashlib.sha256(index.metadata_file(file)).hexdigest()
    return replace(proven, metadata_served=served, metadata_inside=inside)


def _own_metadata(path: Path) -> str:
    """The SHA-256 of the downloaded file's own METADATA ("" when it has none, or is no
    archive: its bytes are then not the bound ones anyway)."""
    try:
        found = metadata_bytes(path)
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError):
        return ""
    return hashlib.sha256(found).hexdigest() if found is not None else ""
