"""What the reader gathers for ``release bind``, ``publish`` and ``promote`` (the edge): the RC's
verdict and what it must be bound to, the manifests bound to the RC here and on origin, the
artifacts offered (hashed, checked against the RC's commit), the store, what the index
holds, and the origins a train member's upstream records name.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from mlrelease import report
from mlrelease.config import Config
from mlrelease.edges import checkout, git
from mlrelease.edges.digests import sha256
from mlrelease.errors import UserError
from mlrelease.release.config import TABLE, ReleaseConfig
from mlrelease.release.promotion import channels, index, provenance, record, store
from mlrelease.release.promotion.manifest import Entry, Manifest, Upstream
from mlrelease.release.promotion.verdict import RcVerdict
from mlrelease.release.world import refs
from mlrelease.release.world.snapshot import (
    BOUND_PREFIX,
    PromoteFacts,
    Target,
    UpstreamOrigin,
    World,
)
from mlrelease.wheels import artifacts, evidence
from mlrelease.wheels.differences import ReferenceVerdict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class Asked(Protocol):
    @property
    def report(self) -> Path | None: ...
    @property
    def artifacts(self) -> str | None: ...
    @property
    def index(self) -> str | None: ...
    @property
    def known_index(self) -> bool: ...
    @property
    def proven(self) -> bool: ...
    @property
    def upstream(self) -> tuple[Upstream, ...]: ...


def read(
    config: Config, world: World, target: Target, commit: str | None, ask: Asked
) -> PromoteFacts:
    """The promotion facts of ``target``'s RC at ``commit`` (None: the tag is not here)."""
    rel = config.table(ReleaseConfig)
    root = config.root
    folder = config.path(ask.artifacts or rel.artifacts)
    bound = blobs(root, world, str(target.rc))
    found, others, verdict = offered(config, target, commit, folder, trusted(world, target, bound))
    held, home = None, store.home(world.common_dir or git.common_dir(root))
    published = record.read(home, target.rc) if target.rc else {}
    url, source = which_index(config, published, ask)
    if url:
        download = bound_names(bound) if ask.proven else frozenset()
        found_there = index.read(url, config.project_name, target.version, download=download)
        held = replace(found_there, source=source)
    return PromoteFacts(
        verdict=rc_verdict(config, ask.report or config.path(rel.rc_report), commit),
        blobs=bound,
        folder=str(folder),
        found=found,
        others=others,
        findings=tuple(verdict.problems),
        accepted=tuple(verdict.accepted),
        reference=verdict.reference,
        unlike=unlike_worktree(root, world, commit, found and verdict.problems),
        stored=store.objects(home),
        index=held,
        published=published,
        upstreams=upstreams(root, home, [*ask.upstream, *recorded(bound)]),
    )


def unlike_worktree(
    root: Path, world: World, commit: str | None, refused: object
) -> tuple[str, ...]:
    """The working tree's files that a fresh checkout of ``commit`` writes otherwise, when files
    built here were refused and HEAD is at the commit (why no build of it can match)."""
    if not refused or commit is None or world.head != commit:
        return ()
    return tuple(checkout.unlike_worktree(root, commit))


def which_index(config: Config, published: dict[str, str], ask: Asked) -> tuple[str, str]:
    """(the upload URL of the index to read, why): the one asked; for promote and status
    (``known_index``) else the one ``release publish`` recorded, else the release channel's
    configured ``index``; ("", "") when none is known."""
    if ask.index:
        return ask.index, "--repository-url"
    if not ask.known_index:
        return "", ""
    if published.get("release"):
        return published["release"], "recorded by `release publish`"
    url, explicit = channels.configured(config, "release")
    return (url, f"{TABLE}.index") if explicit and url else ("", "")


def trusted(world: World, target: Target, bound: dict[str, tuple[str, str]]) -> str:
    """The reference digest recorded in the manifest that binds ``target``'s RC on origin
    (here, without a remote), if exactly one does and it is what its name says: a digest no
    build could have written, against which the reference cache is read."""
    remote = world.origin()
    side = remote.refs if remote else world.local
    bindings = side.bindings.get(str(target.rc), {})
    if len(bindings) != 1:
        return ""
    ((digest, blob),) = bindings.items()
    if bound.get(blob, ("", ""))[0] != digest:
        return ""
    try:
        return Manifest.parse(bound[blob][1], digest).reference
    except UserError:
        return ""


def offered(
    config: Config, target: Target, commit: str | None, folder: Path, reference: str = ""
) -> tuple[tuple[Entry, ...], tuple[str, ...], ReferenceVerdict]:
    """(the wheels and sdists of ``folder``, hashed; its other files; why they are not this
    release's files built from ``commit``, and what differs by a class the project accepts).
    The provenance statements of the wheels' builds (``*.intoto.json``) are read as such."""
    if not folder.is_dir():
        return (), (), ReferenceVerdict()
    paths: list[Path] = []
    others: list[Path] = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name == artifacts.SUMS or path.name.startswith("."):
            continue
        if path.name.endswith(evidence.SUFFIX):
            continue
        (paths if path.name.endswith((".whl", ".tar.gz", ".zip")) else others).append(path)
    found = tuple(Entry(p.name, p.stat().st_size, sha256(p)) for p in paths)
    statements, unreadable = evidence.read(folder)
    problems = [f"{n}: neither a wheel nor an sdist" for n in (p.name for p in others)]
    verdict = ReferenceVerdict(problems + unreadable)
    if paths and commit:
        verdict.add(
            provenance.findings(
                config,
                target.version,
                commit,
                [(p.name, p) for p in paths],
                evidence=evidence.Evidence(statements=statements),
                trusted=reference,
            )
        )
    return found, tuple(p.name for p in others), verdict


def rc_verdict(config: Config, path: Path, commit: str | None) -> RcVerdict:
    """The report at ``path`` and what it must be bound to: the tree, the configuration and the
    gate set of ``commit``."""
    found, error = None, None
    if path.is_file():
        try:
            found = report.read(path)
        except UserError as exc:
            error = str(exc)
    if commit is None:
        return RcVerdict(str(path), found, error)
    root = config.root
    tree = git.run(root, "rev-parse", f"{commit}^{{tree}}", check=False) or None
    data = git.blob_bytes(root, f"{commit}:pyproject.toml", filters=True)
    return RcVerdict(
        str(path),
        found,
        error,
        tree=tree,
        config_sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
        gates=gates_at(data),
    )


def gates_at(data: bytes | None) -> tuple[str, ...]:
    """The gates a pyproject.toml configures (its ``[tool.mlrelease] gates``, else the
    default)."""
    try:
        parsed: Any = tomllib.loads(data.decode()) if data else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        parsed = {}
    gates = parsed.get("tool", {}).get("mlrelease", {}).get("gates")
    if isinstance(gates, list) and all(isinstance(g, str) for g in gates):
        return tuple(gates)
    return tuple(Config().gates)


def bound_names(bound: dict[str, tuple[str, str]]) -> frozenset[str]:
    """The file names the manifests bound to the RC list, which publish and promote download
    from the index and hash (a manifest that does not parse is refused by the gatekeeper)."""
    names: set[str] = set()
    for _, text in bound.values():
        try:
            names |= {e.name for e in Manifest.parse(text, "a binding").files}
        except UserError:
            continue
    return frozenset(names)


def blobs(root: Path, world: World, rc: str) -> dict[str, tuple[str, str]]:
    """blob SHA -> (SHA-256 of its bytes, its text) of the manifests bound to ``rc`` here and
    on origin."""
    remote = world.remote
    shas = {*world.local.bindings.get(rc, {}).values()}
    if remote:
        shas |= {*remote.refs.bindings.get(rc, {}).values()}
    return texts(root, shas)


def texts(root: Path, shas: set[str]) -> dict[str, tuple[str, str]]:
    """blob SHA -> (SHA-256 of its bytes, its text), for the blobs present in ``root``."""
    found = {}
    for sha in sorted(shas):
        data = git.blob_bytes(root, sha)
        if data is not None:
            found[sha] = (hashlib.sha256(data).hexdigest(), data.decode("utf-8", errors="replace"))
    return found


def recorded(bound: dict[str, tuple[str, str]]) -> list[Upstream]:
    """The upstream records of the manifests bound to the RC (an unreadable one has none)."""
    found: list[Upstream] = []
    for _, text in bound.values():
        try:
            found += Manifest.parse(text, BOUND_PREFIX).upstream
        except UserError:
            continue
    return found


def upstreams(root: Path, home: Path, records: list[Upstream]) -> dict[str, UpstreamOrigin]:
    """Each origin the records name: its RC and final tags and its bindings, with the manifests
    they bind, fetched shallow into this clone's upstream store (in ``home``, this clone's
    mlrelease folder)."""
    found: dict[str, UpstreamOrigin] = {}
    urls = sorted({r.origin for r in records})
    kept = refs.store_for(home / "upstream.git") if urls else root
    for url in urls:
        try:
            seen = refs.read_url(kept, url, ("refs/tags/", BOUND_PREFIX))
        except UserError as exc:
            found[url] = UpstreamOrigin(url, error=str(exc))
            continue
        shas = {b for by_rc in seen.bindings.values() for b in by_rc.values()}
        found[url] = UpstreamOrigin(url, seen, texts(kept, shas))
    return found
