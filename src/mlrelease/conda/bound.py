"""The bound release, read through the release feature's public reading of it: origin's
binding (``refs/mlrelease/bound/<rc>/<sha256>``, :mod:`mlrelease.release.promotion.manifest`)
and the content-addressed store (:mod:`mlrelease.release.promotion.store`), each file hashed
again as it is read. A final version is the release candidate its tag promoted
(:func:`mlrelease.release.promotion.promoted.candidate_promoted_by`), never a rebuild or
whatever ``dist/`` holds.

With ``source = "archive"`` the recipe's hash is of the tag's source archive as GitHub serves
it: ``git archive`` of the tag under ``<name>-<version>/``, compressed by ``gzip -n`` (the
bytes GitHub's ``/archive/<tag>.tar.gz`` serves, checked on onnx's tags 1.18.0 to 1.22.0).
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import replace
from pathlib import Path

from packaging.version import Version

from mlrelease.conda import release as facts
from mlrelease.conda.config import CondaConfig
from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.edges.proc import call_bytes
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release.config import ReleaseConfig
from mlrelease.release.promotion import store
from mlrelease.release.promotion.manifest import Manifest
from mlrelease.release.promotion.promoted import candidate_promoted_by
from mlrelease.release.world import reader
from mlrelease.release.world.snapshot import BOUND_PREFIX, World


def candidate(config: Config, world: World, version: Version) -> tuple[str, str]:
    """(the RC tag whose files are ``version``'s, the tag its source archive is named after).

    A final version is the candidate origin's final tag promoted; before the promotion (the
    gate on the RC), the newest candidate of the version that origin binds: the final tag will
    be on its commit, so the archive is the same."""
    names = config.names
    remote = world.origin()
    tags = remote.refs.tags if remote else {}
    if not version.is_prerelease:
        final = names.final_tag(version)
        if final in tags:
            bump = config.table(ReleaseConfig).rc_model == "bump"
            return candidate_promoted_by(world, names, final, bump=bump), final
    found = []
    for tag in tags:
        parsed = names.parse_tag(tag)
        if parsed is None or parsed[1] is None or parsed[0] != Version(version.base_version):
            continue
        wanted = not version.is_prerelease or _rc_version(parsed) == version
        if wanted and remote and remote.refs.bindings.get(tag):
            found.append((parsed[1], tag))
    if not found:
        raise PreconditionError(
            f"origin has no bound release candidate of {version}"
            + ("" if version.is_prerelease else f" and no tag {names.final_tag(version)}")
            + ": tag and bind it first (`mlrelease release rc`, `release bind`)."
        )
    rc = max(found)[1]
    return rc, rc if version.is_prerelease else names.final_tag(version)


def _rc_version(parsed: tuple[Version, int | None]) -> Version:
    base, number = parsed
    return Version(f"{base.base_version}rc{number}")


def manifest(config: Config, world: World, rc: str) -> Manifest:
    """The manifest origin binds to ``rc``, its SHA-256 checked against the ref's name."""
    remote = world.origin()
    bound = remote.refs.bindings.get(rc, {}) if remote else {}
    if len(bound) != 1:
        found = ", ".join(f"{BOUND_PREFIX}{rc}/{d}" for d in bound) or "none"
        raise PreconditionError(
            f"origin binds {'no' if not bound else 'more than one'} manifest to {rc} ({found}): "
            "the feedstock change is made from the bound release only. Bind it "
            f"(`mlrelease release bind --rc {rc} --execute --push`)."
        )
    digest, blob = next(iter(bound.items()))
    data = git.blob_bytes(config.root, blob)
    if data is None or hashlib.sha256(data).hexdigest() != digest:
        raise PreconditionError(
            f"{BOUND_PREFIX}{rc}/{digest} on origin does not hold the manifest its name hashes: "
            "the binding was changed. Restore the binding `release bind` pushed."
        )
    return Manifest.parse(data.decode(), f"{BOUND_PREFIX}{rc}/{digest}")


def read(
    config: Config, version: Version | None = None, rc: str | None = None
) -> facts.ReleaseFacts:
    """The release facts of the final ``version`` (its promoted candidate's files), or of the
    release candidate tagged ``rc``, from the bound files in the store."""
    world = reader.read(config)
    if rc is not None:
        tag = rc
    elif version is not None:
        rc, tag = candidate(config, world, version)
    else:
        raise UserError("a version or a release-candidate tag is needed.")
    bound = manifest(config, world, rc)
    sdist, wheels = _files(config, bound, rc)
    options = config.table(CondaConfig)
    source = sources = None
    if options.source == "archive":
        # GitHub's prefix: the repository, then the tag without its "v".
        data = archive(config.root, rc, f"{config.project_name}-{tag.removeprefix('v')}")
        source = (f"{tag}.tar.gz", hashlib.sha256(data).hexdigest())
        sources = facts.tar_files(data)
    found = facts.from_files(config.project_name, sdist, wheels, source=source, sources=sources)
    if version is not None and found.version != version:
        raise PreconditionError(
            f"the sdist bound to {rc} is version {found.version}, not {version}."
        )
    return replace(found, candidate=tag == rc and version is None)


def _files(
    config: Config, bound: Manifest, rc: str
) -> tuple[tuple[str, bytes], list[tuple[str, bytes]]]:
    """(the sdist, the wheels) of the manifest, copied out of the store and hashed again."""
    sdists = [e for e in bound.files if e.name.endswith((".tar.gz", ".zip"))]
    if len(sdists) != 1:
        raise UserError(
            f"the manifest of {rc} binds {len(sdists)} sdists; the recipe's source is one sdist."
        )
    with tempfile.TemporaryDirectory(prefix="mlrelease-conda-") as folder:
        read_files = {}
        for entry in bound.files:
            path = store.stage(config.root, entry, Path(folder))
            read_files[entry.name] = path.read_bytes()
    sdist = (sdists[0].name, read_files.pop(sdists[0].name))
    return sdist, [(n, d) for n, d in read_files.items() if n.endswith(".whl")]


def archive(root: Path, tag: str, prefix: str) -> bytes:
    """The source archive of tag ``tag``'s commit as GitHub serves it: ``git archive`` under
    ``prefix/``, compressed by ``gzip -n``."""
    proc = git.run_bytes(root, "archive", "--format=tar", f"--prefix={prefix}/", f"refs/tags/{tag}")
    if proc.returncode != 0:
        raise git.GitError(f"git archive {tag}: {proc.stderr.decode(errors='replace').strip()}")
    try:
        packed = call_bytes(["gzip", "-n"], input=proc.stdout)
    except FileNotFoundError:
        raise UserError(
            "gzip is not on PATH: the source archive's hash is of GNU gzip's output "
            "(GitHub's); install gzip."
        ) from None
    if packed.returncode != 0:
        raise UserError(f"gzip -n failed: {packed.stderr.decode(errors='replace').strip()}")
    return packed.stdout


def previous(config: Config, version: str) -> facts.ReleaseFacts | None:
    """The release the feedstock packages now, when this clone can read it bound (its tag and
    binding on origin, its files in the store); None otherwise."""
    try:
        return read(config, Version(version))
    except (UserError, ValueError):
        return None
