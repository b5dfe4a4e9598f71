"""Where a consumer's tests come from: its released sdist, a git checkout, or this project.

An sdist is downloaded once (SHA-256 checked against the index) and unpacked once per digest
under the cache; a git repository is cloned once per (URL, ref). The tests then run against the
*installed* consumer, never its source: the import packages at the top of the unpacked tree
(``skl2onnx/`` beside ``tests/``) are removed, so ``import skl2onnx`` in a test finds the
wheel the environment installed, not a shadowing folder.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name
from packaging.version import Version

from mlrelease.downstream.config import Consumer
from mlrelease.edges import git, index
from mlrelease.edges.digests import sha256
from mlrelease.errors import UserError


@dataclass(frozen=True)
class Tests:
    """A prepared folder of tests and what it is."""

    path: Path
    origin: str
    """``skl2onnx-1.20.0.tar.gz (sha256 3f2a...)``, ``https://... @ v1.1.0 (commit ...)``."""
    digest: str
    """Identifies the content (cache keys)."""
    install: str = ""
    """A requirement installing the consumer from this source (a git checkout), or ""."""


def _safe_members(names: list[str], archive: str) -> None:
    for name in names:
        parts = PurePosixPath(name).parts
        if name.startswith("/") or ".." in parts:
            raise UserError(f"{archive}: member {name!r} points outside the archive; refused.")


def unpack(archive: Path, target: Path) -> Path:
    """Unpack an sdist into ``target`` (done once, atomically); returns its top folder."""
    if not target.is_dir():
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                _safe_members(z.namelist(), archive.name)
                z.extractall(partial)
        else:
            with tarfile.open(archive) as t:
                _safe_members(t.getnames(), archive.name)
                members = [m for m in t.getmembers() if m.isfile() or m.isdir()]
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                t.extractall(partial, members=members, **safe)  # type: ignore[arg-type]
        try:
            partial.rename(target)
        except OSError:  # another run unpacked it meanwhile
            shutil.rmtree(partial, ignore_errors=True)
    tops = [p for p in target.iterdir() if p.is_dir()]
    return tops[0] if len(tops) == 1 else target


def strip_packages(tree: Path, keep: list[str]) -> list[str]:
    """Remove the import packages at the top of ``tree`` (folders with ``__init__.py``) except
    those the selection names; returns what was removed."""
    kept = {PurePosixPath(k).parts[0] for k in keep if k not in (".", "")}
    removed = []
    for child in sorted(tree.iterdir()):
        if child.is_dir() and (child / "__init__.py").is_file() and child.name not in kept:
            shutil.rmtree(child)
            removed.append(child.name)
    return removed


def sdist(
    consumer: Consumer,
    name: str,
    version: str,
    cache: Path,
    *,
    index_url: str,
    find_links: tuple[str, ...],
) -> Tests:
    """The released tests of ``name==version``: its sdist from the find-links folders or the
    index, unpacked, its top-level packages removed."""
    wanted = Version(version)
    found = [
        f
        for f in index.files(name, index_url=index_url, find_links=find_links)
        if f.is_sdist and f.version == wanted and not f.yanked
    ]
    if not found:
        raise UserError(
            f"consumer {consumer.name}: {name} {version} has no sdist on {index_url} or in "
            f"{', '.join(find_links) or 'the find-links folders'}, so its released tests cannot "
            "be run; set git + ref (its repository at that tag) or tests-dir instead."
        )
    archive = index.download(found[0], cache / "downloads")
    digest = sha256(archive)
    top = unpack(archive, cache / "unpacked" / f"{canonicalize_name(name)}-{version}-{digest[:12]}")
    tree = cache / "trees" / f"{consumer.name}-{digest[:12]}-{_selection_digest(consumer)}"
    if not tree.is_dir():
        partial = tree.with_name(tree.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(top, partial, symlinks=True)
        strip_packages(partial, consumer.selection)
        partial.rename(tree)
    return Tests(tree, f"{archive.name} (sha256 {digest[:16]})", digest)


def checkout(consumer: Consumer, cache: Path) -> Tests:
    """The tests of a git repository at ``ref``, cloned once per (URL, ref)."""
    key = hashlib.sha256(f"{consumer.git}\0{consumer.ref}".encode()).hexdigest()[:16]
    target = cache / "git" / f"{consumer.name}-{key}"
    if not (target / ".git").is_dir():
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        git.run(partial.parent, "clone", "--quiet", "--no-checkout", consumer.git, partial.name)
        git.run(partial, "-c", "advice.detachedHead=false", "checkout", "--quiet", consumer.ref)
        partial.rename(target)
    commit = git.run(target, "rev-parse", "HEAD")
    install = "" if consumer.requirement else str(target)
    origin = f"{consumer.git} @ {consumer.ref} (commit {commit[:12]})"
    return Tests(target, origin, commit, install)


def project(consumer: Consumer, root: Path) -> Tests:
    """Tests kept in this project (``tests-dir``)."""
    folder = root / consumer.tests_dir
    digest = hashlib.sha256()
    for path in sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return Tests(folder, f"{consumer.tests_dir} (this project)", digest.hexdigest())


def _selection_digest(consumer: Consumer) -> str:
    return hashlib.sha256("\0".join(consumer.selection).encode()).hexdigest()[:8]
