"""Descriptor-relative opening: the primitives of the safe-file layer (:mod:`.safefile`).

A path is opened one component at a time from an open folder, never following a link
(``openat`` with ``O_NOFOLLOW``); what is found is judged on the open descriptor (``fstat``), and
a file read or copied is checked again afterwards, so a file that changed while it was read is
refused. Where ``openat`` is missing (Windows) each component is checked for links, then the file
is opened by path.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MIB = 2**20

WALK = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
"""Descriptor-relative opening (POSIX). Elsewhere (Windows) each path component is checked for
links before the file is opened by path: weaker against a concurrent swap, said in the docs."""

READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
FOLDER = READ | getattr(os, "O_DIRECTORY", 0)
FILE = READ | NOFOLLOW | getattr(os, "O_NONBLOCK", 0)


class UnsafeFile(ValueError):
    """A submitted file that is refused: the message names it, says why and how to fix it."""


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it, lexically (no file system access)."""
    try:
        Path(os.path.normpath(path)).relative_to(os.path.normpath(folder))
    except ValueError:
        return False
    return True


def stamp(info: os.stat_result) -> tuple[int, ...]:
    """What changes when a file is written, replaced or truncated."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def open_error(what: str, shown: str, exc: OSError) -> UnsafeFile:
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return UnsafeFile(
            f"{what} {shown} is a symlink; links are refused: copy the file into the folder instead"
        )
    if exc.errno == errno.ENOENT:
        return UnsafeFile(f"{what} {shown} does not exist")
    if exc.errno == errno.ENOTDIR:
        return UnsafeFile(f"{what} {shown}: a part of its path is not a folder")
    return UnsafeFile(f"{what} {shown} cannot be opened: {exc.strerror}")


class LinkFound(OSError):
    """A component of the path is a symbolic link (``parts`` up to it, and where it points)."""

    def __init__(self, parts: tuple[str, ...], target: str) -> None:
        super().__init__(errno.ELOOP, "a symbolic link")
        self.parts, self.target = parts, target


def open_below(start: int, parts: Iterable[str], flags: int) -> int:
    """Open ``parts`` one component at a time from the folder ``start`` without following a
    link; every component but the last is a folder. ``start`` stays open. Raises OSError
    (:class:`LinkFound` for a link)."""
    names = tuple(p for p in parts if p not in ("", "."))
    current = start
    try:
        for i, name in enumerate(names):
            last = i == len(names) - 1
            try:
                opened = os.open(name, flags if last else FOLDER | NOFOLLOW, dir_fd=current)
            except OSError:
                try:
                    target = os.readlink(name, dir_fd=current)
                except OSError:
                    raise  # not a link: the first error stands
                raise LinkFound(names[: i + 1], target) from None
            if current != start:
                os.close(current)
            current = opened
    except BaseException:
        if current != start:
            os.close(current)
        raise
    return current if names else os.dup(start)


def open_folder(path: Path) -> int:
    """The folder ``path``: below the working directory, no component may be a link; above it
    (or for a path elsewhere), the machine's own links are followed up to the last component."""
    absolute = Path(os.path.normpath(path.absolute()))
    here = Path(os.path.normpath(Path.cwd()))
    if inside(absolute, here):
        base, parts = here, absolute.relative_to(here).parts
    else:
        base, parts = Path(os.path.realpath(absolute.parent)), (absolute.name,)
    start = os.open(base, FOLDER)
    try:
        return open_below(start, parts, FOLDER | NOFOLLOW)
    finally:
        os.close(start)


def refusal(
    info: os.stat_result, what: str, shown: str, max_bytes: int | None, trusted: bool
) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        return f"{what} {shown} is not a regular file (a pipe, device or folder is never read)"
    if info.st_nlink > 1 and not trusted:
        return (
            f"{what} {shown} has {info.st_nlink} hard links; a hard link can expose a file from "
            "outside the folder (copy the file instead)"
        )
    if max_bytes is not None and info.st_size > max_bytes:
        return (
            f"{what} {shown} is {info.st_size:,} bytes; more than the {max_bytes:,} bytes allowed "
            f"for a {what}"
        )
    return None


def unchanged(fd: int, before: os.stat_result, total: int, what: str, path: Path | str) -> None:
    after = os.fstat(fd)
    if total != before.st_size or stamp(after) != stamp(before):
        raise UnsafeFile(
            f"{what} {path} changed while it was read ({before.st_size:,} bytes, then "
            f"{after.st_size:,}); nothing read from it is used: submit it again unchanged"
        )


def _extents(fd: int, size: int) -> list[tuple[int, int]]:
    """The data extents ``(start, end)`` of a file; its holes are the gaps between them (one
    extent, the whole file, where the file system cannot say)."""
    seek_data, seek_hole = getattr(os, "SEEK_DATA", None), getattr(os, "SEEK_HOLE", None)
    if seek_data is None or seek_hole is None:
        return [(0, size)] if size else []
    extents, pos = [], 0
    try:
        while pos < size:
            try:
                start = os.lseek(fd, pos, seek_data)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # only a hole is left
                    break
                raise
            end = min(os.lseek(fd, start, seek_hole), size)
            if start >= size:
                break
            extents.append((start, end))
            pos = end
    except OSError:
        return [(0, size)] if size else []
    return extents


def _copy_range(src: int, dst: int, start: int, end: int, hashers: list[Any]) -> int:
    """Copy bytes ``[start, end)``: in the kernel when nothing hashes them, else through a
    1 MiB buffer. Returns the bytes copied (fewer: the file shrank meanwhile)."""
    pos = start
    in_kernel = not hashers and hasattr(os, "copy_file_range")
    while pos < end:
        if in_kernel:
            try:
                done = os.copy_file_range(src, dst, end - pos, pos, pos)
            except OSError:  # another file system, an old kernel: copy through the buffer
                in_kernel = False
                continue
        else:
            chunk = os.pread(src, min(MIB, end - pos), pos)
            for hasher in hashers:
                hasher.update(chunk)
            done = os.pwrite(dst, chunk, pos) if chunk else 0
        if done <= 0:
            break
        pos += done
    return pos - start


def copy_fd(src: int, dst: int, size: int, hashers: list[Any]) -> int:
    """Copy ``size`` bytes of ``src`` to ``dst``, extent by extent, so holes stay holes and are
    never read; ``hashers`` see every byte (zeros for the holes). Returns the bytes the copy
    holds, one more when ``src`` grew past ``size`` (it changed while read)."""
    zeros = bytes(MIB)
    pos = 0
    for start, end in _extents(src, size):
        while pos < start:  # a hole: zeros for the digests, nothing written
            step = min(MIB, start - pos)
            for hasher in hashers:
                hasher.update(zeros[:step])
            pos += step
        copied = _copy_range(src, dst, start, end, hashers)
        pos = start + copied
        if copied < end - start:
            break
    else:
        while pos < size:  # the hole at the end
            step = min(MIB, size - pos)
            for hasher in hashers:
                hasher.update(zeros[:step])
            pos += step
    os.ftruncate(dst, size)
    if os.pread(src, 1, size):  # it grew past the size fstat gave
        pos += 1
    return pos


def open_checked(folder: Path, parts: tuple[str, ...], what: str, flags: int) -> int:
    """Where ``openat`` is missing (Windows): check every component, then open by path."""
    step = folder
    for part in parts:
        step = step / part
        if os.path.islink(step):
            raise UnsafeFile(
                f"{what} {step} is a symlink; links are refused: copy the file into "
                "the folder instead"
            )
    try:
        return os.open(step, flags & ~NOFOLLOW & ~getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise open_error(what, str(step), exc) from None
