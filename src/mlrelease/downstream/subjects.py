"""The two versions of the project under test: the candidate and the baseline.

``--candidate`` is a folder of the RC's files (``dist/``), one wheel, or a version on an index
(the RC channel: TestPyPI, or any simple index); ``--baseline`` is a released version, or
nothing: then the newest final release on the index older than the candidate. A candidate
made of files is identified by their SHA-256 (the results cache is keyed by them), and after
installation the environment is checked to hold exactly one of those wheels, byte for byte
(its RECORD: every file and hash of the wheel), never a same-named build from an index.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import packaging
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from mlrelease.edges import index, proc
from mlrelease.edges.digests import sha256
from mlrelease.errors import UserError


@dataclass(frozen=True)
class Subject:
    """One side's version of the project under test, and where it comes from."""

    label: str
    version: str
    requirement: str
    find_links: tuple[str, ...] = ()
    identity: tuple[str, ...] = ()
    """``filename sha256`` of each local file (or ``version @ index`` for one on an index)."""
    wheels: tuple[Path, ...] = ()


def _dist_version(path: Path, package: str) -> Version | None:
    try:
        if path.name.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(path.name)
        elif path.name.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(path.name)
        else:
            return None
    except ValueError:
        return None
    return version if canonicalize_name(name) == canonicalize_name(package) else None


def from_files(path: Path, package: str) -> Subject:
    """A candidate made of files: a folder of the RC's distributions, or one wheel."""
    chosen = sorted(path.iterdir()) if path.is_dir() else [path]
    found = {p: v for p in chosen if (v := _dist_version(p, package)) is not None}
    versions = sorted({str(v) for v in found.values()})
    if not found:
        raise UserError(
            f"--candidate {path}: no wheel or sdist of {package} there; build the RC (`mlrelease "
            "wheels build`) or download its bound files into the folder."
        )
    if len(versions) > 1:
        raise UserError(
            f"--candidate {path}: {package} files of several versions ({', '.join(versions)}); "
            "keep only the candidate's files there."
        )
    version = versions[0]
    folder = path if path.is_dir() else path.parent
    identity = tuple(f"{p.name} {sha256(p)}" for p in sorted(found))
    wheels = tuple(p for p in sorted(found) if p.name.endswith(".whl"))
    shown = f"{len(found)} file{'s' if len(found) != 1 else ''} in {folder}"
    return Subject(
        f"{package} {version} ({shown})",
        version,
        f"{package}=={version}",
        (str(folder.resolve()),),
        identity,
        wheels,
    )


def from_version(version: str, package: str, index_url: str) -> Subject:
    """A released version on the index."""
    try:
        Version(version)
    except InvalidVersion:
        raise UserError(
            f"{version!r} is neither a folder/file of distributions nor a version of {package}."
        ) from None
    return Subject(
        f"{package} {version}",
        version,
        f"{package}=={version}",
        identity=(f"{version} @ {index_url}",),
    )


def interpreter_tags(python: Path) -> list[str]:
    """The wheel tags ``python`` accepts, best first (packaging's own answer, asked of it)."""
    here = Path(packaging.__file__).resolve().parents[1]
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from packaging import tags; "
        "print('\\n'.join(str(t) for t in tags.sys_tags()))"
    )
    done = proc.call(proc.python("-I", "-c", script, str(here), interpreter=python))
    if done.returncode != 0:
        raise UserError(f"cannot ask {python} for its wheel tags: {done.stderr.strip()[-300:]}")
    return done.stdout.split()


def from_channel(version: str, package: str, channel: str, python: Path, folder: Path) -> Subject:
    """A candidate on the RC channel: its wheel for ``python`` downloaded (SHA-256 checked
    against the channel), then tested as files: only the project under test comes from the
    channel, every dependency from the main index (no name on a test index can shadow one)."""
    Version(version)
    listed = {
        file.filename: file
        for file in index.project_files(channel, package)
        if not file.yanked and file.of_release(package, Version(version))
    }
    best = best_wheel(listed, interpreter_tags(python))
    if best is None:
        raise UserError(
            f"--candidate {version}: the RC channel {channel} has no {package} {version} wheel "
            f"for {python}; publish the RC there first (the checklist's rc-channel step)."
        )
    path = index.download(listed[best], folder / canonicalize_name(package) / version)
    subject = from_files(path, package)
    return replace(subject, label=f"{package} {version} (from {channel})")


def best_wheel(filenames: Iterable[str], accepted: Sequence[str]) -> str | None:
    """The wheel among ``filenames`` an interpreter accepting the tags ``accepted`` (best
    first, :func:`interpreter_tags`) installs first; None when it installs none."""
    rank = {tag: i for i, tag in enumerate(accepted)}
    best: tuple[int, str] | None = None
    for name in sorted(filenames):
        try:
            tags = parse_wheel_filename(name)[3]
        except InvalidWheelFilename:
            continue
        score = min((rank[str(t)] for t in tags if str(t) in rank), default=None)
        if score is not None and (best is None or score < best[0]):
            best = (score, name)
    return best[1] if best else None


def candidate(
    spec: str, package: str, *, root: Path, index_url: str, channel: str, python: Path, cache: Path
) -> Subject:
    """``--candidate``: a path (relative to the project root), or a version: on the RC channel
    when one is configured, else on the index."""
    path = Path(spec) if Path(spec).is_absolute() else root / spec
    if path.exists():
        return from_files(path, package)
    if channel:
        return from_channel(spec, package, channel, python, cache / "channel")
    return from_version(spec, package, index_url)


def newest_before(package: str, before: str, index_url: str) -> str | None:
    """The newest final release of ``package`` on the index older than ``before``; None when
    the index holds none (an index that cannot be read raises)."""
    limit = Version(before)
    versions = {
        v
        for f in index.project_files(index_url, package)
        if (v := f.version) is not None and not f.yanked
    }
    older = sorted(v for v in versions if not v.is_prerelease and not v.is_devrelease and v < limit)
    return str(older[-1]) if older else None


def previous_release(package: str, before: str, index_url: str) -> str:
    """The newest final release of ``package`` on the index older than ``before``."""
    found = newest_before(package, before, index_url)
    if found is None:
        raise UserError(
            f"no release of {package} older than {before} on {index_url}: pass --baseline "
            "VERSION (or set tool.mlrelease.downstream.baseline)."
        )
    return found


def installed_record(env: Path, package: str, version: str) -> set[str] | None:
    """The RECORD lines of ``package``'s installed distribution in the environment ``env``."""
    wanted = canonicalize_name(package)
    for record in env.glob("*/**/site-packages/*.dist-info/RECORD"):
        name, _, found = record.parent.name[: -len(".dist-info")].partition("-")
        if canonicalize_name(name) == wanted and found == version:
            return set(record.read_text(encoding="utf-8").splitlines())
    return None


def wheel_record(wheel: Path) -> set[str]:
    """The RECORD lines of a wheel for its files outside ``.dist-info``."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
        lines = archive.read(name).decode("utf-8").splitlines()
    return {line for line in lines if line and ".dist-info/" not in line.split(",")[0]}


def exact_bytes(subject: Subject, env: Path, package: str) -> str:
    """ "" when the environment holds one of the candidate's wheels byte for byte, else why
    not (a same-version build from an index shadowed the candidate's file)."""
    if not subject.wheels:
        return ""
    installed = installed_record(env, package, subject.version)
    if installed is None:
        return f"{package} {subject.version} is not installed in the candidate environment"
    if any(wheel_record(w) <= installed for w in subject.wheels):
        return ""
    return (
        f"the candidate environment's {package} {subject.version} is not one of the "
        f"candidate's wheels ({', '.join(w.name for w in subject.wheels)}): an index holds a "
        "different build of the same version, and the resolver took it"
    )
