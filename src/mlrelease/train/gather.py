"""The reader of the train world (the edge): every member's origin through the git edge,
and what the staging and release indexes hold of it through the index edge.

Per member, one ``git ls-remote`` lists its origin; the tip of its main branch is fetched one
commit deep into the train's store (a bare repository: never a member's clone) for its tag and
branch names (``[tool.mlrelease.release]``), then the tags of the train's version and the
manifests bound to its candidates. Objects already in the store are not fetched again, so a
warm read is one listing per member and two index pages, and the download of each bound file
the indexes list (a file is proven by its bytes, never by the index's word: invariant (a)).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.version import Version

from mlrelease import toml_tables
from mlrelease.edges import git
from mlrelease.edges import index as edge_index
from mlrelease.errors import UserError
from mlrelease.naming import Names
from mlrelease.release.config import TABLE, ReleaseConfig
from mlrelease.release.promotion import facts, index
from mlrelease.release.world import refs
from mlrelease.release.world.snapshot import BOUND_PREFIX, Index, Refs
from mlrelease.train import metadata
from mlrelease.train.declaration import Member, Train
from mlrelease.train.metadata import DistMetadata
from mlrelease.train.world import MemberWorld, TrainWorld

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

MAIN = ("main", "master")
"""The branches a member's names are read from, in this order (else its only branch)."""


def read(train: Train, store: Path, *, indexes: bool = True) -> TrainWorld:
    """Every member of ``train``, its objects fetched into ``store`` (a bare repository, made
    on first use); ``indexes`` False skips the staging and release indexes."""
    kept = refs.store_for(store)
    found = {m.key: member(train, m, kept, indexes) for m in train.members}
    return TrainWorld(train, found, kept)


def member(train: Train, one: Member, store: Path, indexes: bool) -> MemberWorld:
    """One member: its origin's refs of the train's version and what the indexes hold of it
    (the files its bound manifests list downloaded and hashed, as installers get them)."""
    try:
        listed, peeled = refs.ls_remote(store, one.origin)
        names = _names(store, one, listed)
    except UserError as exc:
        return MemberWorld(one, error=str(exc), **_indexes(train, one, indexes, frozenset()))
    kept = {r: o for r, o in listed.items() if _of_version(r, names, Version(one.version))}
    present = refs.fetch_objects(store, one.origin, sorted(set(kept.values())), "--depth=1")
    tags = refs.from_listing(store, kept, peeled, present)
    heads = {r[len("refs/heads/") :]: o for r, o in listed.items() if r.startswith("refs/heads/")}
    seen = Refs(heads, tags.tags, tags.bindings)
    shas = {b for by_rc in seen.bindings.values() for b in by_rc.values()}
    bound = facts.texts(store, shas)
    held = _indexes(train, one, indexes, facts.bound_names(bound))
    return MemberWorld(one, seen, names, bound, **held)


def _indexes(train: Train, one: Member, indexes: bool, bound: frozenset[str]) -> dict[str, Any]:
    """What the staging and release indexes hold of ``one`` (none when not ``indexes``), the
    files named in ``bound`` downloaded from the URLs installers use and hashed."""
    if not indexes:
        return {}
    version = Version(one.version)
    return {
        "staged": index.read(train.staging_index, one.name, version, download=bound),
        "released": index.read(train.release_index, one.name, version, download=bound),
    }


def _of_version(ref: str, names: Names, version: Version) -> bool:
    """A tag of the version (an RC or the final) or a binding of one of its RCs."""
    if ref.startswith("refs/tags/"):
        name = ref[len("refs/tags/") :]
    elif ref.startswith(BOUND_PREFIX):
        name = ref[len(BOUND_PREFIX) :].rpartition("/")[0]
    else:
        return False
    parsed = names.parse_tag(name)
    return parsed is not None and parsed[0] == version


def _names(store: Path, one: Member, listed: Mapping[str, str]) -> Names:
    """The member's tag and branch names, from ``[tool.mlrelease.release]`` of the
    pyproject.toml at the tip of its main branch on origin."""
    heads = sorted(r[len("refs/heads/") :] for r in listed if r.startswith("refs/heads/"))
    branch = next((b for b in MAIN if b in heads), heads[0] if len(heads) == 1 else None)
    if branch is None:
        raise UserError(
            f"{one.origin} has no main or master branch to read {one.name}'s "
            f"[{TABLE}] from (branches: {', '.join(heads) or 'none'})."
        )
    tip = listed[f"refs/heads/{branch}"]
    refs.fetch_objects(store, one.origin, [tip], "--depth=1")
    source = f"{one.origin} {branch}:pyproject.toml"
    data = git.blob_bytes(store, f"{tip}:pyproject.toml")
    try:
        parsed = tomllib.loads(data.decode()) if data is not None else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{source}: not TOML ({exc}).") from None
    table = parsed.get("tool", {}).get("mlrelease", {}).get("release", {})
    release = toml_tables.parse_section(ReleaseConfig, table, prefix=TABLE, source=source)
    return Names.of(release, source)


def declared(store: Path, held: Index, names: set[str]) -> tuple[DistMetadata, ...]:
    """The metadata of the files ``held`` lists under ``names``, each downloaded once (by its
    SHA-256, checked) into the cache beside ``store``."""
    found = []
    for file in held.files:
        if file.filename not in names:
            continue
        folder = store.parent / "files" / (file.sha256 or "unhashed")
        found.append(metadata.read(edge_index.download(file, folder)))
    return tuple(found)
