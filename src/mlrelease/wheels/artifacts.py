"""Release artifacts (pure, plus reading local files): names, contents, ``SHA256SUMS``.

``SHA256SUMS`` uses the GNU coreutils format (``<hex digest>  <file name>``), so
``sha256sum -c SHA256SUMS`` checks it too, without mlrelease.
"""

from __future__ import annotations

import email.parser
import fnmatch
import re
import tarfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.tags import Tag
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from mlrelease.edges.digests import sha256
from mlrelease.wheels.evidence import SUFFIX as STATEMENT

SUMS = "SHA256SUMS"
SUMS_LINE = re.compile(r"^(?P<digest>[0-9a-f]{64}) [ *](?P<name>[^/\\]+)$")


@dataclass(frozen=True)
class FileProblem:
    """One problem with one file: reports name the file first."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(frozen=True)
class Artifact:
    """A wheel or sdist, identified by its file name."""

    path: Path
    kind: str
    """``wheel`` or ``sdist``."""
    name: str
    """Normalized distribution name."""
    version: Version
    tags: frozenset[Tag] = frozenset()

    @property
    def filename(self) -> str:
        return self.path.name

    @property
    def pure(self) -> bool:
        return all(t.abi == "none" and t.platform == "any" for t in self.tags)

    @property
    def abi3(self) -> bool:
        return any(t.abi == "abi3" for t in self.tags)

    @property
    def platforms(self) -> set[str]:
        """Platform tags, with manylinux aliases folded: ``manylinux_2_17_x86_64`` and
        ``manylinux2014_x86_64`` both give ``manylinux_x86_64`` (cibuildwheel's spelling)."""
        return {platform_family(t.platform) for t in self.tags}


def platform_family(platform: str) -> str:
    """``manylinux_2_28_aarch64`` -> ``manylinux_aarch64``; ``macosx_11_0_arm64`` ->
    ``macosx_arm64``; ``pyemscripten_2025_0_wasm32`` -> ``pyemscripten_wasm32``; ``win_amd64``
    stays."""
    match = re.match(r"^(manylinux|musllinux)(?:_\d+_\d+|1|2010|2014)_(?P<arch>.+)$", platform)
    if match:
        return f"{match[1]}_{match['arch']}"
    match = re.match(r"^macosx_\d+_\d+_(?P<arch>.+)$", platform)
    if match:
        return f"macosx_{match['arch']}"
    # Pyodide's ABI is named by year (pyemscripten_2025_0 -> 2026_0), as manylinux by glibc.
    match = re.match(r"^pyemscripten_\d+_\d+_(?P<arch>.+)$", platform)
    if match:
        return f"pyemscripten_{match['arch']}"
    return platform


def identify(path: Path) -> Artifact:
    """Parse a wheel or sdist file name; ValueError (naming the file) for anything else."""
    name = path.name
    try:
        if name.endswith(".whl"):
            dist, version, _build, tags = parse_wheel_filename(name)
            return Artifact(path, "wheel", str(dist), version, frozenset(tags))
        if name.endswith((".tar.gz", ".zip")):
            dist, version = parse_sdist_filename(name)
            return Artifact(path, "sdist", str(dist), version)
    except (InvalidWheelFilename, InvalidSdistFilename) as exc:
        raise ValueError(f"{name}: not a valid wheel or sdist file name ({exc})") from None
    raise ValueError(f"{name}: not a wheel (.whl) or an sdist (.tar.gz)")


def collect(folder: Path) -> list[Path]:
    """Artifact files of ``folder`` (wheels and sdists), sorted by name."""
    return sorted(
        p for p in folder.iterdir() if p.is_file() and p.name.endswith((".whl", ".tar.gz"))
    )


def statements(folder: Path) -> list[Path]:
    """The provenance statements of ``folder`` (``*.intoto.json``, which vouch for the builds of
    its wheels), sorted by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(STATEMENT))


def members(artifact: Artifact) -> list[str]:
    """File names inside the artifact; for an sdist, relative to its top folder."""
    if artifact.kind == "wheel":
        with zipfile.ZipFile(artifact.path) as archive:
            return [n for n in archive.namelist() if not n.endswith("/")]
    with tarfile.open(artifact.path) as archive:
        names = [m.name for m in archive.getmembers() if m.isfile()]
    return [n.split("/", 1)[1] for n in names if "/" in n]


def check_archive(artifact: Artifact) -> list[FileProblem]:
    """The file must open as what its name says (a wheel is a zip archive, an sdist a gzipped
    tar): a truncated download or an HTML error page saved as ``.whl`` is a finding naming the
    file, read no further."""
    try:
        if artifact.kind == "wheel":
            with zipfile.ZipFile(artifact.path) as archive:
                archive.namelist()
        else:
            with tarfile.open(artifact.path) as archive:
                archive.getmembers()
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as exc:
        what = "a zip archive (a wheel)" if artifact.kind == "wheel" else "a gzipped tar (an sdist)"
        return [
            FileProblem(
                artifact.filename,
                f"not {what}: {exc}. Rebuild or re-download it, or remove it from its folder.",
            )
        ]
    return []


def missing(names: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """Patterns that match none of ``names``."""
    names = list(names)
    return [p for p in patterns if not fnmatch.filter(names, p)]


def check_identity(artifact: Artifact, name: str, version: str) -> list[FileProblem]:
    """The file name must carry the project's name and exactly the expected version."""
    findings = []
    expected = canonicalize_name(name)
    if artifact.name != expected:
        findings.append(
            FileProblem(
                artifact.filename,
                f"distribution name `{artifact.name}` is not the project's `{expected}`",
            )
        )
    if artifact.version != Version(version) or str(artifact.version) != version:
        findings.append(
            FileProblem(
                artifact.filename,
                f"version in the file name is `{artifact.version}`, expected `{version}`",
            )
        )
    return findings


def metadata_bytes(path: Path) -> bytes | None:
    """The bytes of a distribution file's own metadata, by its name: a wheel's
    ``*.dist-info/METADATA``, an sdist's top-level ``PKG-INFO`` (None when absent). What a
    PEP 658 metadata file of it must be, byte for byte."""
    if path.name.endswith((".whl", ".zip")):
        pattern = r"[^/]+\.dist-info/METADATA" if path.name.endswith(".whl") else r"[^/]+/PKG-INFO"
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if re.fullmatch(pattern, n)]
            return archive.read(names[0]) if names else None
    with tarfile.open(path) as archive:
        member = next(
            (
                m
                for m in archive.getmembers()
                if m.isfile() and m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
            ),
            None,
        )
        handle = archive.extractfile(member) if member else None
        return handle.read() if handle else None


def metadata_version(artifact: Artifact) -> str | None:
    """The ``Version:`` of the artifact's own metadata (a wheel's ``*.dist-info/METADATA``, an
    sdist's ``PKG-INFO``): what pip installs, whatever the file name says; None if absent."""
    return metadata_field(artifact, "Version")


def metadata_field(artifact: Artifact, field: str) -> str | None:
    """The first ``field`` of the artifact's own metadata; None if absent or unreadable."""
    try:
        data = metadata_bytes(artifact.path)
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError):
        return None
    if data is None:
        return None
    found = email.parser.BytesHeaderParser().parsebytes(data).get(field)
    return str(found) if found else None


def check_metadata(artifact: Artifact, version: str) -> list[FileProblem]:
    """The artifact's metadata must carry exactly ``version``: a build that took its version
    from a tag (``version-source = "tag"``) but not into the metadata fails here."""
    found = metadata_version(artifact)
    where = "*.dist-info/METADATA" if artifact.kind == "wheel" else "PKG-INFO"
    if found is None:
        return [FileProblem(artifact.filename, f"no Version in its {where}")]
    try:
        same = Version(found) == Version(version)
    except InvalidVersion:
        same = found == version
    if not same:
        return [
            FileProblem(
                artifact.filename,
                f"its {where} says Version: {found}, expected {version} (the release tag's)",
            )
        ]
    return []


def render_sums(files: Iterable[Path]) -> str:
    return "".join(f"{sha256(p)}  {p.name}\n" for p in sorted(files, key=lambda p: p.name))


def write_sums(folder: Path) -> Path:
    """Write ``folder/SHA256SUMS`` over every artifact in ``folder`` and the provenance
    statements beside them (atomically)."""
    target = folder / SUMS
    partial = folder / f".{SUMS}.partial"
    partial.write_text(render_sums(collect(folder) + statements(folder)), encoding="utf-8")
    partial.replace(target)
    return target


def read_sums(path: Path) -> dict[str, str]:
    """File name -> digest; ValueError naming the line for a malformed one."""
    entries: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        match = SUMS_LINE.match(line)
        if not match:
            raise ValueError(
                f"{path.name} line {number}: expected `<64 hex digits>  <file name>`, "
                f"found {line[:80]!r}"
            )
        if match["name"] in entries:
            raise ValueError(f"{path.name} line {number}: {match['name']} is listed twice")
        entries[match["name"]] = match["digest"]
    return entries


def verify_sums(folder: Path) -> list[FileProblem]:
    """Every file of ``folder`` is listed in its SHA256SUMS with the right digest, and every
    listed file is there. Hidden files (a download tool's leftovers) are not artifacts."""
    sums = folder / SUMS
    if not sums.is_file():
        return [
            FileProblem(SUMS, f"missing from {folder}: nothing to verify the artifacts against")
        ]
    try:
        listed = read_sums(sums)
    except ValueError as exc:
        return [FileProblem(SUMS, str(exc))]
    present = {
        p.name: p
        for p in folder.iterdir()
        if p.is_file() and p.name != SUMS and not p.name.startswith(".")
    }
    findings = []
    for name in sorted(set(listed) | set(present)):
        if name not in present:
            findings.append(FileProblem(name, f"listed in {SUMS} but missing from {folder}"))
        elif name not in listed:
            findings.append(
                FileProblem(name, f"present in {folder} but not listed in {SUMS} (extra)")
            )
        elif sha256(present[name]) != listed[name]:
            findings.append(
                FileProblem(
                    name,
                    f"SHA-256 differs from {SUMS} (tampered or corrupted): "
                    f"expected {listed[name][:16]}..., found {sha256(present[name])[:16]}...",
                )
            )
    return findings


# --- the artifact set: python x platform per project ------------------------------------------


def wheel_keys(artifact: Artifact) -> set[str]:
    """``cp312-manylinux_x86_64`` per tag of a wheel (``py3-any`` for a pure one): the key a
    cibuildwheel build identifier also spells; a free-threaded wheel (ABI ``cp313t``) is
    ``cp313t-...``, as cibuildwheel spells it, not the ``cp313`` of a regular build."""
    return {
        f"{t.abi if t.abi == t.interpreter + 't' else t.interpreter}-{platform_family(t.platform)}"
        for t in artifact.tags
    }


def read_names(path: Path) -> list[str]:
    """Artifact file names listed in ``path``: a ``SHA256SUMS`` file or one name per line
    (``#`` comments and blank lines ignored)."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        match = SUMS_LINE.match(text)
        names.append(match["name"] if match else text)
    return names


def release_set(names: Iterable[str], project: str) -> set[str]:
    """The python-platform keys of ``project``'s wheels among file names (others ignored)."""
    keys: set[str] = set()
    expected = canonicalize_name(project)
    for name in names:
        if not name.endswith(".whl"):
            continue
        try:
            artifact = identify(Path(name))
        except ValueError:
            continue
        if artifact.name == expected:
            keys |= wheel_keys(artifact)
    return keys


def dropped(previous: set[str], current: set[str]) -> dict[str, list[str]]:
    """What ``previous`` had and ``current`` lacks, by what was dropped: a whole platform
    (``platform win32``), a whole Python (``Python cp38``), else single combinations."""
    gone = previous - current

    def split(key: str) -> tuple[str, str]:
        python, _, platform = key.partition("-")
        return python, platform

    out: dict[str, list[str]] = {}
    platforms_now = {split(k)[1] for k in current}
    pythons_now = {split(k)[0] for k in current}
    for key in sorted(gone):
        python, platform = split(key)
        if platform not in platforms_now:
            out.setdefault(f"platform {platform}", []).append(key)
        elif python not in pythons_now:
            out.setdefault(f"Python {python}", []).append(key)
        else:
            out.setdefault(key, []).append(key)
    return out
