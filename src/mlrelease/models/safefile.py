"""The safe-file layer: the only way a file of a submission is opened.

Every file of an untrusted submission (model, external data, README, licence, test data,
scripts, ``model.toml``) is opened here, and only if it is a regular file with a single link,
reached from the submission folder without following any symbolic link, and not larger than the
cap given for its kind. The walk opens each folder below the submission folder relative to its
parent (``openat`` with ``O_NOFOLLOW``), so neither a link in the last component nor one in the
middle of the path is followed, and named pipes are opened without blocking (then refused by
their type). Hard links are refused (``st_nlink > 1``) because a hard link inside the folder can
be any file of the same file system. The size cap is checked on the open descriptor before a
byte is read.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

MIB = 2**20

MAX_README_BYTES = 1 * MIB
"""README.md and licence files: text for people; anything larger is not a README."""
MAX_SCRIPT_BYTES = 1 * MIB
"""Declared pre/post-processing scripts (compiled to check syntax, never executed)."""
MAX_MANIFEST_BYTES = 256 * 2**10
"""A submission's ``model.toml``."""
MAX_TENSOR_FILE_BYTES = 2**31 - 1
"""A test-data tensor file: one protobuf, which cannot exceed 2 GiB."""

_WALK = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")


class UnsafeFile(ValueError):
    """A submitted file that is refused: the message names it, says why and how to fix it."""


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it, lexically (no file system access)."""
    try:
        Path(os.path.normpath(path)).relative_to(os.path.normpath(folder))
    except ValueError:
        return False
    return True


def _relative(path: Path, folder: Path, what: str) -> tuple[str, ...]:
    norm = Path(os.path.normpath(path.absolute()))
    base = Path(os.path.normpath(folder.absolute()))
    try:
        parts = norm.relative_to(base).parts
    except ValueError:
        raise UnsafeFile(f"{what} {path} is outside the folder {folder}") from None
    if not parts:
        raise UnsafeFile(f"{what} {path} is the folder itself, not a file")
    return parts


def _link_problem(path: Path, folder: Path, what: str) -> UnsafeFile:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    real = Path(os.path.realpath(path))
    where = "" if inside(real, Path(os.path.realpath(folder))) else f", outside the folder {folder}"
    return UnsafeFile(
        f"{what} {path} is a symlink to {target}{where}; links are refused: copy the file into "
        "the folder instead"
    )


def _open_walk(parts: tuple[str, ...], path: Path, folder: Path, what: str) -> int:
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    dir_flags = flags | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW
    try:
        current = os.open(folder.absolute(), flags | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        problem = f"{what} {path}: its folder {folder} cannot be opened: {exc.strerror}"
        raise UnsafeFile(problem) from None
    try:
        for i, part in enumerate(parts[:-1]):
            try:
                nxt = os.open(part, dir_flags, dir_fd=current)
            except OSError as exc:
                step = folder.joinpath(*parts[: i + 1])
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(step):
                    raise _link_problem(step, folder, what) from None
                raise UnsafeFile(f"{what} {path} cannot be opened: {exc.strerror}") from None
            os.close(current)
            current = nxt
        try:
            return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=current)
        except OSError as exc:
            if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and os.path.islink(path)):
                raise _link_problem(path, folder, what) from None
            if exc.errno == errno.ENOENT:
                raise UnsafeFile(f"{what} {path} does not exist") from None
            raise UnsafeFile(f"{what} {path} cannot be opened: {exc.strerror}") from None
    finally:
        os.close(current)


def _open_checked(path: Path, folder: Path, what: str) -> int:
    """Fallback where ``openat`` is missing (Windows): check every component, then open."""
    parts = _relative(path, folder, what)
    step = folder.absolute()
    for part in parts:
        step = step / part
        if os.path.islink(step):
            raise _link_problem(step, folder, what)
    try:
        return os.open(step, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise UnsafeFile(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise UnsafeFile(f"{what} {path} cannot be opened: {exc.strerror}") from None


def open_fd(
    path: Path, folder: Path, what: str, max_bytes: int | None = None, *, hard_links: bool = False
) -> int:
    """An open descriptor of ``path``, after every check; raises :class:`UnsafeFile`.

    ``hard_links``: accept a file with several links (only for a project's own, trusted files:
    installers such as uv hard-link package files from their cache).
    """
    parts = _relative(path, folder, what)
    fd = _open_walk(parts, path, folder, what) if _WALK else _open_checked(path, folder, what)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(
                f"{what} {path} is not a regular file (a pipe, device or folder is never read)"
            )
        if info.st_nlink > 1 and not hard_links:
            raise UnsafeFile(
                f"{what} {path} has {info.st_nlink} hard links; a hard link can expose a file "
                "from outside the folder (copy the file instead)"
            )
        if max_bytes is not None and info.st_size > max_bytes:
            raise UnsafeFile(
                f"{what} {path} is {info.st_size:,} bytes; more than the {max_bytes:,} bytes "
                f"allowed for a {what}"
            )
        if _WALK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check(
    path: Path, folder: Path, what: str, max_bytes: int | None = None, *, hard_links: bool = False
) -> str | None:
    """None when ``path`` may be read; else the problem (a sentence naming the file)."""
    try:
        os.close(open_fd(path, folder, what, max_bytes, hard_links=hard_links))
    except UnsafeFile as exc:
        return str(exc)
    return None


def size(path: Path, folder: Path, what: str, *, hard_links: bool = False) -> int:
    """The size of a file that passes every check; raises :class:`UnsafeFile`."""
    fd = open_fd(path, folder, what, hard_links=hard_links)
    try:
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def read_bytes(
    path: Path, folder: Path, what: str, max_bytes: int, *, hard_links: bool = False
) -> bytes:
    """The whole file, at most ``max_bytes`` (checked before reading); raises UnsafeFile."""
    fd = open_fd(path, folder, what, max_bytes, hard_links=hard_links)
    with os.fdopen(fd, "rb") as handle:
        # Never ask for more than the file holds: read(n) allocates n bytes up front.
        data = handle.read(min(os.fstat(fd).st_size, max_bytes) + 1)
    if len(data) > max_bytes:  # it grew after the check: still never more than the cap
        raise UnsafeFile(f"{what} {path} grew past {max_bytes:,} bytes while being read")
    return data


def read_text(path: Path, folder: Path, what: str, max_bytes: int) -> str:
    """The file as UTF-8 text (undecodable bytes replaced); raises :class:`UnsafeFile`."""
    return read_bytes(path, folder, what, max_bytes).decode("utf-8", errors="replace")


def chunks(path: Path, folder: Path, what: str, *, hard_links: bool = False) -> Iterator[bytes]:
    """The file in 1 MiB chunks (for digests of files of any size); raises UnsafeFile."""
    fd = open_fd(path, folder, what, hard_links=hard_links)
    with os.fdopen(fd, "rb") as handle:
        yield from iter(lambda: handle.read(MIB), b"")


def digest(
    path: Path, folder: Path, what: str, algorithm: str = "sha256", *, hard_links: bool = False
) -> str:
    """Hex digest of the file; raises :class:`UnsafeFile`."""
    hasher = hashlib.new(algorithm, usedforsecurity=False)
    for chunk in chunks(path, folder, what, hard_links=hard_links):
        hasher.update(chunk)
    return hasher.hexdigest()


def is_file(path: Path, folder: Path) -> bool:
    """Whether ``path`` names a readable regular file of the folder (no exception, no read)."""
    with contextlib.suppress(UnsafeFile):
        os.close(open_fd(path, folder, "file"))
        return True
    return False
