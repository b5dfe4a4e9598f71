"""The members of a wheel or an sdist as they are, what each one is to Python, and the view of
them a rebuild must reproduce (pure but for reading the archive).

Every entry is read: files, folders, links and anything else, each name once (a name twice is
named, never read past); a wheel's folder entries are members like its files (uv creates them;
:mod:`mlrelease.wheels.framing` refuses one that carries data).
Whether a member is compiled code is decided from the real thing, never from a substring of its
name: its bytes start with the object format of the wheel's platform
(ELF, Mach-O, PE), the wheel is not pure (``py3-none-any`` carries no extension), and its name is
one the import system loads as an extension there (``.so``, ``.pyd``) or a shared library in a
repair tool's library folder (``pkg.libs/libx.so.1``). An import hook (``.pth``) never is.

Questions about a whole archive (its compiled members, its RECORD, its :func:`view`) are
answered here in one call, so a comparison asks once per archive, not once per member.
"""

from __future__ import annotations

import re
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.tags import Tag

from mlrelease.wheels.elf import image_digests

MAGIC = {
    "elf": (b"\x7fELF",),
    "mach-o": (
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
    ),
    "pe": (b"MZ",),
}
"""The object formats extensions and shared libraries are made of, by their first bytes."""

LIBRARY_FOLDER = re.compile(r"(^|/)[^/]*\.(libs|dylibs)/")
"""Where auditwheel, delocate and delvewheel put the shared libraries they graft in."""
LIBRARY = re.compile(r"\.(so(\.\d+)*|dylib|dll)$")
SCHEME = re.compile(r"^[^/]+\.data/(purelib|platlib)/")
"""A wheel's ``.data`` folders whose files install beside the root's (import paths)."""


@dataclass(frozen=True)
class ArchiveEntry:
    """One entry of an archive: ``file`` (its bytes), ``dir``, ``link`` (its target) or
    ``other`` (a device, a FIFO)."""

    kind: str
    data: bytes = b""
    mode: int = 0
    """Its permission bits (``mode & 0o7777``; 0 where the archive records none: a zip made
    on Windows): an installer sets them on the file it writes."""


@dataclass(frozen=True)
class Archive:
    """Every entry of a wheel or an sdist by name, and the names that occur more than once."""

    members: dict[str, ArchiveEntry]
    duplicates: tuple[str, ...] = ()

    def files(self) -> dict[str, bytes]:
        return {n: m.data for n, m in self.members.items() if m.kind == "file"}


@dataclass(frozen=True)
class WheelContents:
    """A wheel as built: its file name, the tags the name gives, its entries."""

    file: str
    tags: frozenset[Tag]
    archive: Archive


def read(name: str, path: Path) -> Archive:
    """The entries of the wheel (``name`` ends in ``.whl``) or the sdist at ``path``."""
    found: dict[str, ArchiveEntry] = {}
    twice: list[str] = []

    def put(member: str, entry: ArchiveEntry) -> None:
        member = member.rstrip("/") if entry.kind == "dir" else member
        if member in found:
            twice.append(member)
        found[member] = entry

    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                mode = info.external_attr >> 16
                bits = stat.S_IMODE(mode)
                if info.is_dir():  # compared like any entry: uv creates the folder
                    put(info.filename, ArchiveEntry("dir", mode=bits))
                elif stat.S_ISLNK(mode):
                    put(info.filename, ArchiveEntry("link", archive.read(info), bits))
                else:
                    put(info.filename, ArchiveEntry("file", archive.read(info), bits))
        return Archive(found, tuple(sorted(set(twice))))
    with tarfile.open(path) as tar:
        for entry in tar.getmembers():
            bits = stat.S_IMODE(entry.mode)
            if entry.isfile():
                handle = tar.extractfile(entry)
                put(entry.name, ArchiveEntry("file", handle.read() if handle else b"", bits))
            elif entry.isdir():
                put(entry.name, ArchiveEntry("dir", mode=bits))
            elif entry.issym() or entry.islnk():
                put(entry.name, ArchiveEntry("link", entry.linkname.encode(), bits))
            else:
                put(entry.name, ArchiveEntry("other"))
    return Archive(found, tuple(sorted(set(twice))))


def object_format(data: bytes) -> str | None:
    """``elf``, ``mach-o`` or ``pe`` by the first bytes of ``data``; None for anything else."""
    for fmt, starts in MAGIC.items():
        if data.startswith(starts):
            return fmt
    return None


def platform_format(tags: frozenset[Tag]) -> str | None:
    """The object format of the wheel's platform (None for a pure wheel, or an unknown one)."""
    platforms = {t.platform for t in tags}
    if platforms <= {"any"}:
        return None
    if all(p.startswith("win") for p in platforms):
        return "pe"
    if all(p.startswith("macosx") for p in platforms):
        return "mach-o"
    if all(p.startswith(("linux", "manylinux", "musllinux")) for p in platforms):
        return "elf"
    return None


def is_compiled(member: str, data: bytes, tags: frozenset[Tag]) -> bool:
    """Whether ``member`` of a wheel tagged ``tags`` is compiled code (see the module)."""
    fmt = platform_format(tags)
    name = member.rsplit("/", 1)[-1]
    if fmt is None or name.endswith(".pth") or object_format(data) != fmt:
        return False
    extension = name.endswith(".pyd") if fmt == "pe" else name.endswith(".so")
    return extension or (bool(LIBRARY_FOLDER.search(member)) and bool(LIBRARY.search(name)))


def compiled(archive: Archive, tags: frozenset[Tag]) -> set[str]:
    """The members of ``archive`` (a wheel tagged ``tags``) that are compiled code
    (:func:`is_compiled`), asked in one call."""
    files = archive.members.items()
    return {m for m, e in files if e.kind == "file" and is_compiled(m, e.data, tags)}


def is_record(member: str) -> bool:
    """Whether ``member`` is a wheel's RECORD (``NAME.dist-info/RECORD``, at the top)."""
    return member.endswith(".dist-info/RECORD") and member.count("/") == 1


def records(archive: Archive) -> list[str]:
    """The archive's RECORD members (:func:`is_record`; a wheel has one), in archive order."""
    return [m for m in archive.members if is_record(m)]


def view(path: Path) -> dict[str, str]:
    """An archive's entries: name -> kind and the digest of what a rebuild reproduces (a
    wheel's RECORD by its presence: it lists the hashes of extensions whose build-id moves)."""
    found = read(path.name, path).members
    digests = image_digests({n: e.data for n, e in found.items() if not is_record(n)})
    return {
        name: entry.kind if is_record(name) else f"{entry.kind}:{digests[name]}"
        for name, entry in sorted(found.items())
    }


def module_of(member: str) -> str | None:
    """The import path a member would be imported as (``pkg/_ext.cpython-312-x86_64-linux-
    gnu.so`` and ``pkg/_ext.py`` are both ``pkg/_ext``), or None for what is not imported
    (``.dist-info``, ``.data`` scripts and headers, a grafted library)."""
    path = SCHEME.sub("", member)
    if ".dist-info/" in path or re.match(r"^[^/]+\.data/", path) or LIBRARY_FOLDER.search(path):
        return None
    folder, _, name = path.rpartition("/")
    if not name.endswith((".py", ".pyc", ".so", ".pyd")):
        return None
    stem = name.split(".", 1)[0]
    return f"{folder}/{stem}" if folder else stem
