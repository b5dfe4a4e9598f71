"""The safe-file layer: the only way a file of a submission is opened.

A submission is a folder opened once, at the start (:meth:`Root.open`): no component below the
working directory may be a symbolic link, nor the folder itself, and the open descriptor is
checked to be the directory the path names. Every file is then reached from that descriptor
(``openat`` with ``O_NOFOLLOW`` for each folder and the file), never by its path again, so a
link swapped in anywhere along the way is refused, not followed. A file is opened once, checked
on the open descriptor (``fstat``: a regular file, a single link, not larger than the cap of its
kind) and its bytes are read, or copied into a private folder, from that same descriptor; if it
changed while it was read (size, modification or change time, identity), it is refused. The
checks and every later use see those bytes, never the path. Workers inherit the descriptor
(:meth:`Root.inherit`); :meth:`Root.replaced` says when the path no longer names the folder
that was verified (a swapped root).

Hard links are refused (``st_nlink > 1``) because a hard link inside the folder can be any file
of the same file system; named pipes are opened without blocking, then refused by their type.
A project's own (trusted) model set may be hard-linked by an installer: ``trusted`` allows that,
and lets the folder's own path go through links (files below it still never do).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from mlrelease.models.descriptors import (
    FILE,
    FOLDER,
    MIB,
    NOFOLLOW,
    WALK,
    LinkFound,
    UnsafeFile,
    copy_fd,
    inside,
    open_below,
    open_checked,
    open_error,
    open_folder,
    refusal,
    unchanged,
)

__all__ = [
    "MAX_MANIFEST_BYTES",
    "MAX_README_BYTES",
    "MAX_SCRIPT_BYTES",
    "MAX_TENSOR_FILE_BYTES",
    "WALK",
    "Copied",
    "FolderEntry",
    "Root",
    "UnsafeFile",
    "check",
    "digest",
    "inside",
    "read_bytes",
    "read_text",
]

MAX_README_BYTES = 1 * MIB
"""README.md and licence files: text for people; anything larger is not a README."""
MAX_SCRIPT_BYTES = 1 * MIB
"""Declared pre/post-processing scripts (compiled to check syntax, never executed)."""
MAX_MANIFEST_BYTES = 256 * 2**10
"""A submission's ``model.toml``."""
MAX_TENSOR_FILE_BYTES = 2**31 - 1
"""A test-data tensor file: one protobuf, which cannot exceed 2 GiB."""


@dataclass(frozen=True)
class FolderEntry:
    """One name in a folder, seen without following it."""

    name: str
    kind: str
    """``file``, ``folder``, ``link`` or ``other`` (a pipe, a device, a socket)."""


@dataclass
class Copied:
    """A file copied from its checked descriptor into a private folder."""

    path: Path
    size: int
    digests: dict[str, str] = field(default_factory=dict)


class Root:
    """A folder opened once; every file of it is read through this object."""

    def __init__(self, path: Path, fd: int | None, *, trusted: bool = False) -> None:
        self.path = Path(os.path.normpath(path.absolute()))
        """The folder as asked for (for messages, and to notice it being replaced)."""
        self.fd = fd
        """The open folder (None where descriptor-relative opening is missing)."""
        self.trusted = trusted

    @classmethod
    def open(cls, path: Path, *, trusted: bool = False) -> Root:
        """Open the folder ``path`` once and check it is the one the path names."""
        shown = str(path)
        if not WALK:
            if path.is_symlink() or not path.is_dir():
                raise UnsafeFile(f"{shown} is not a folder (a symlink or a file)")
            return cls(path, None, trusted=trusted)
        try:
            fd = os.open(path, FOLDER) if trusted else open_folder(path)
        except LinkFound as link:
            raise UnsafeFile(
                f"the folder {shown} is reached through a symlink ({Path(*link.parts)} -> "
                f"{link.target}); pass the folder itself, not a link to it"
            ) from None
        except OSError as exc:
            raise open_error("the folder", shown, exc) from None
        root = cls(path, fd, trusted=trusted)
        problem = root.replaced()
        if problem:
            root.close()
            raise UnsafeFile(problem)
        return root

    @classmethod
    def inherit(cls, fd: int, path: Path, *, trusted: bool = False) -> Root:
        """The folder a parent opened (its descriptor passed to this worker)."""
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            raise UnsafeFile(f"descriptor {fd} handed over for {path} is not a folder")
        return cls(path, fd, trusted=trusted)

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Root:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def replaced(self) -> str | None:
        """Why the path no longer names the folder this descriptor holds (None: it does)."""
        if self.fd is None:
            return None
        try:
            now = os.stat(self.path)
        except OSError as exc:
            return f"the folder {self.path} is gone ({exc.strerror}): moved or replaced meanwhile"
        mine = os.fstat(self.fd)
        if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
            return (
                f"the folder {self.path} was replaced while it was read (the path now names "
                "another folder or a link); verify it again"
            )
        return None

    # --- opening -------------------------------------------------------------------------------

    def parts(self, path: Path | str, what: str) -> tuple[str, ...]:
        """``path`` (absolute, or relative to the folder) as components below the folder."""
        given = Path(path)
        full = given if given.is_absolute() else self.path / given
        norm = Path(os.path.normpath(full))
        try:
            return norm.relative_to(self.path).parts
        except ValueError:
            raise UnsafeFile(f"{what} {path} is outside the folder {self.path}") from None

    def _shown(self, parts: tuple[str, ...]) -> str:
        return str(self.path.joinpath(*parts)) if parts else str(self.path)

    def _open(self, parts: tuple[str, ...], flags: int, what: str) -> int:
        shown = self._shown(parts)
        if self.fd is None:
            return open_checked(self.path, parts, what, flags)
        try:
            return open_below(self.fd, parts, flags)
        except LinkFound as link:
            outside = not inside(self.path.joinpath(*link.parts[:-1], link.target), self.path)
            where = f", outside the folder {self.path}" if outside else ""
            raise UnsafeFile(
                f"{what} {self._shown(link.parts)} is a symlink to {link.target}{where}; links "
                "are refused: copy the file into the folder instead"
            ) from None
        except OSError as exc:
            raise open_error(what, shown, exc) from None

    def open_file(
        self, path: Path | str, what: str, max_bytes: int | None = None
    ) -> tuple[int, os.stat_result]:
        """An open descriptor of the file and its ``fstat``, after every check."""
        parts = self.parts(path, what)
        if not parts:
            raise UnsafeFile(f"{what} {path} is the folder itself, not a file")
        fd = self._open(parts, FILE, what)
        try:
            info = os.fstat(fd)
            problem = refusal(info, what, self._shown(parts), max_bytes, self.trusted)
            if problem:
                raise UnsafeFile(problem)
            if WALK:
                os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd, info

    def check(self, path: Path | str, what: str, max_bytes: int | None = None) -> str | None:
        """None when the file may be read; else the problem (a sentence naming the file)."""
        try:
            fd, _ = self.open_file(path, what, max_bytes)
        except UnsafeFile as exc:
            return str(exc)
        os.close(fd)
        return None

    def exists(self, path: Path | str) -> bool:
        """Whether anything (even a link or a pipe) has that name; nothing is opened."""
        try:
            parts = self.parts(path, "file")
            entries = self.entries(Path(*parts[:-1]) if parts[:-1] else ".")
        except UnsafeFile:
            return False
        return bool(parts) and any(e.name == parts[-1] for e in entries)

    # --- reading -------------------------------------------------------------------------------

    def read_bytes(self, path: Path | str, what: str, max_bytes: int) -> bytes:
        """The whole file, read once from its checked descriptor; raises :class:`UnsafeFile`."""
        fd, info = self.open_file(path, what, max_bytes)
        try:
            return self.read_opened(fd, info, path, what)
        finally:
            os.close(fd)

    def read_opened(self, fd: int, info: os.stat_result, path: Path | str, what: str) -> bytes:
        """All of a file :meth:`open_file` opened; raises UnsafeFile if it changed meanwhile."""
        chunks, total = [], 0
        while total <= info.st_size:  # one byte past the size: growth is noticed
            chunk = os.read(fd, min(info.st_size + 1 - total, 16 * MIB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        unchanged(fd, info, total, what, path)
        return b"".join(chunks)

    def read_text(self, path: Path | str, what: str, max_bytes: int) -> str:
        """The file as UTF-8 text (undecodable bytes replaced); raises :class:`UnsafeFile`."""
        return self.read_bytes(path, what, max_bytes).decode("utf-8", errors="replace")

    def copy(
        self,
        path: Path | str,
        what: str,
        dest: Path,
        *,
        max_bytes: int | None = None,
        digests: Iterable[str] = (),
    ) -> Copied:
        """Copy the file from its checked descriptor to ``dest`` (a private folder; holes stay
        holes), computing ``digests`` of exactly the bytes copied; raises :class:`UnsafeFile`."""
        fd, info = self.open_file(path, what, max_bytes)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            hashers = {name: hashlib.new(name, usedforsecurity=False) for name in digests}
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            out = os.open(dest, flags, 0o600)
            try:
                total = copy_fd(fd, out, info.st_size, list(hashers.values()))
            finally:
                os.close(out)
            unchanged(fd, info, total, what, path)
        finally:
            os.close(fd)
        return Copied(dest, total, {n: h.hexdigest() for n, h in hashers.items()})

    def digest(self, path: Path | str, what: str, algorithm: str = "sha256") -> str:
        """Hex digest of the file, read once from its checked descriptor."""
        fd, info = self.open_file(path, what)
        hasher = hashlib.new(algorithm, usedforsecurity=False)
        try:
            total = 0
            while chunk := os.read(fd, MIB):
                hasher.update(chunk)
                total += len(chunk)
            unchanged(fd, info, total, what, path)
        finally:
            os.close(fd)
        return hasher.hexdigest()

    def entries(self, folder: Path | str = ".", what: str = "folder") -> list[FolderEntry]:
        """The names in a folder of the submission, each with its kind (links not followed)."""
        parts = self.parts(folder, what)
        if self.fd is None:
            target = self.path.joinpath(*parts)
            listing = os.scandir(target)
        else:
            fd = self._open(parts, FOLDER | NOFOLLOW, what) if parts else os.dup(self.fd)
            try:
                listing = os.scandir(fd)
            finally:
                os.close(fd)  # scandir keeps its own duplicate
        with listing as found:
            return sorted((FolderEntry(e.name, _kind(e)) for e in found), key=lambda e: e.name)


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "link"
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    return "file" if entry.is_file(follow_symlinks=False) else "other"


# --- one-off reads by path (a project's own files, and tests) -------------------------------------


def _root(folder: Path, hard_links: bool) -> Root:
    return Root.open(folder, trusted=hard_links)


def read_bytes(
    path: Path, folder: Path, what: str, max_bytes: int, *, hard_links: bool = False
) -> bytes:
    """The whole file, read once through a :class:`Root` of ``folder``; raises UnsafeFile."""
    with _root(folder, hard_links) as root:
        return root.read_bytes(path, what, max_bytes)


def read_text(path: Path, folder: Path, what: str, max_bytes: int) -> str:
    """The file as UTF-8 text (undecodable bytes replaced); raises :class:`UnsafeFile`."""
    return read_bytes(path, folder, what, max_bytes).decode("utf-8", errors="replace")


def check(
    path: Path, folder: Path, what: str, max_bytes: int | None = None, *, hard_links: bool = False
) -> str | None:
    """None when ``path`` may be read; else the problem (a sentence naming the file)."""
    try:
        with _root(folder, hard_links) as root:
            return root.check(path, what, max_bytes)
    except UnsafeFile as exc:
        return str(exc)


def digest(
    path: Path, folder: Path, what: str, algorithm: str = "sha256", *, hard_links: bool = False
) -> str:
    """Hex digest of the file; raises :class:`UnsafeFile`."""
    with _root(folder, hard_links) as root:
        return root.digest(path, what, algorithm)
