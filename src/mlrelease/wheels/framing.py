"""An archive's bytes read as every reader reads them (pure but for reading the file).

Python's ``zipfile`` reads a wheel from its central directory, found from the end; a streaming
unzipper reads its local file headers from the start; uv refuses a wheel where the two differ.
A wheel is read here only when both readings are one: its local file headers, read in order
from offset 0, match its central directory one to one (the same names, offsets and sizes), no
byte comes before the first header, none between the last entry's data (and its data
descriptor) and the central directory, and nothing after the end-of-central-directory record
but its declared comment. A folder entry carries no data, no entry is encrypted, and none
carries a Unicode Path extra field (0x7075, which some readers take as its name).

pip reads an sdist's first gzip stream, ``tar -xzi`` every one. An sdist is read here only when
it is one gzip stream with nothing after it, and its tar holds nothing but zeros after its
end-of-archive marker.
"""

from __future__ import annotations

import mmap
import struct
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

EOCD, LOCATOR, ZIP64_EOCD = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"
CENTRAL, LOCAL, DESCRIPTOR = b"PK\x01\x02", b"PK\x03\x04", b"PK\x07\x08"
FULL16, FULL32 = 0xFFFF, 0xFFFFFFFF
UNICODE_PATH = 0x7075


class Broken(Exception):
    """What makes the archive read otherwise by some reader (its message says what)."""


@dataclass(frozen=True)
class Central:
    """One central directory entry: what ``zipfile`` reads."""

    name: bytes
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    offset: int
    extra: bytes


def problems(name: str, path: Path) -> list[str]:
    """Why the wheel or the ``.tar.gz`` sdist ``name`` at ``path`` reads otherwise to some
    reader than to Python's (one line naming the file; none when every reader reads it
    alike)."""
    try:
        if name.endswith(".whl"):
            wheel(path)
        elif name.endswith(".tar.gz"):
            sdist(path)
    except Broken as exc:
        return [f"{name}: {exc}; installers disagree on what it holds. Rebuild it"]
    except (OSError, ValueError, struct.error, zlib.error, tarfile.TarError, EOFError) as exc:
        return [f"{name}: cannot be read as an archive ({exc})"]
    return []


def wheel(path: Path) -> None:
    """Raise :class:`Broken` unless the zip at ``path`` is read alike from either end."""
    with path.open("rb") as handle:
        if path.stat().st_size < 22:
            raise Broken("too short for a zip archive")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start, size, count, end = _end(data)
            if start + size != end:
                raise Broken(
                    f"its central directory is not where its end record says ({end - start - size}"
                    " bytes unaccounted for: an archive glued in front of it, or data after "
                    "its central directory)"
                )
            _locals(data, _central(data, start, size, count), start)


def _end(data: mmap.mmap) -> tuple[int, int, int, int]:
    """(where the central directory starts, its size, its entries, where the records that
    end it start), from the end-of-central-directory record at the very end."""
    at = data.rfind(EOCD, max(0, len(data) - 22 - FULL16))
    if at < 0:
        raise Broken("no end-of-central-directory record")
    disk, cd_disk, here, count, size, start, comment = struct.unpack_from("<4H2IH", data, at + 4)
    if at + 22 + comment != len(data):
        raise Broken(
            f"{len(data) - at - 22 - comment} bytes follow its end-of-central-directory record "
            "beyond its declared comment"
        )
    if disk or cd_disk or here != count:
        raise Broken("a multi-disk archive")
    if at >= 20 and data[at - 20 : at - 16] == LOCATOR:
        (record,) = struct.unpack_from("<Q", data, at - 12)
        if data[record : record + 4] != ZIP64_EOCD:
            raise Broken("its zip64 locator points at no zip64 end-of-central-directory record")
        length, *_, count, size, start = struct.unpack_from("<QHHIIQQQQ", data, record + 4)
        if record + 12 + length != at - 20:
            raise Broken("bytes lie between its zip64 records")
        return start, size, count, record
    if FULL32 in (size, start) or count == FULL16:
        raise Broken("zip64 sizes without a zip64 end-of-central-directory record")
    return start, size, count, at


def _zip64(extra: bytes, fields: list[int]) -> list[int]:
    """``fields`` (size, compressed size, offset) with those at their maximum read from the
    zip64 extra field, in that order."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, at)
        if kind == UNICODE_PATH:
            raise Broken("an entry carries a Unicode Path extra field (0x7075)")
        if kind == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, at + 4))
            return [next(values, f) if f == FULL32 else f for f in fields]
        at += 4 + length
    return fields


def _central(data: mmap.mmap, start: int, size: int, count: int) -> list[Central]:
    entries, at = [], start
    for _ in range(count):
        if data[at : at + 4] != CENTRAL:
            raise Broken(f"its central directory is not {count} entries long")
        flags, method, _, _, crc, compressed, usize, n, e, c = struct.unpack_from(
            "<4H3I3H", data, at + 8
        )
        (offset,) = struct.unpack_from("<I", data, at + 42)
        name, extra = bytes(data[at + 46 : at + 46 + n]), bytes(data[at + 46 + n : at + 46 + n + e])
        usize, compressed, offset = _zip64(extra, [usize, compressed, offset])
        entries.append(Central(name, flags, method, crc, compressed, usize, offset, extra))
        at += 46 + n + e + c
    if at != start + size:
        raise Broken("its central directory's size is not that of its entries")
    return entries


def _locals(data: mmap.mmap, entries: list[Central], start: int) -> None:
    """Walk the local file headers from offset 0: each the next entry's, up to the central
    directory exactly."""
    at = 0
    for entry in sorted(entries, key=lambda e: e.offset):
        shown = entry.name.decode("utf-8", errors="replace")
        if entry.offset != at or data[at : at + 4] != LOCAL:
            where = "bytes before" if at == 0 else "bytes after the previous entry, before"
            raise Broken(f"{where} {shown}'s local header are not in its central directory")
        _, flags, method, _, _, crc, compressed, usize, n, e = struct.unpack_from(
            "<5H3I2H", data, at + 4
        )
        name, extra = bytes(data[at + 30 : at + 30 + n]), bytes(data[at + 30 + n : at + 30 + n + e])
        if name != entry.name:
            raise Broken(f"its local header at {at} names {name!r}, its central directory {shown}")
        if entry.flags & 1 or flags != entry.flags or method != entry.method:
            raise Broken(f"{shown}'s local header differs from its central directory entry")
        usize, compressed = _zip64(extra, [usize, compressed, 0])[:2]
        body = at + 30 + n + e
        if not flags & 8 and (compressed, usize, crc) != (entry.compressed, entry.size, entry.crc):
            raise Broken(f"{shown}'s local header gives other sizes than its central directory")
        at = body + entry.compressed
        if flags & 8:
            at = _descriptor(data, at, entry, shown)
        if shown.endswith("/"):
            _folder(bytes(data[body : body + entry.compressed]), entry, shown)
    if at != start:
        raise Broken(f"{start - at} bytes lie between its last entry and its central directory")


def _descriptor(data: mmap.mmap, at: int, entry: Central, shown: str) -> int:
    """Where the data descriptor after ``entry``'s data ends (it must repeat its CRC and
    sizes)."""
    at += 4 if data[at : at + 4] == DESCRIPTOR else 0
    for form, length in (("<3I", 12), ("<IQQ", 20)):
        if tuple(struct.unpack_from(form, data, at)) == (entry.crc, entry.compressed, entry.size):
            return at + length
    raise Broken(f"{shown}'s data descriptor differs from its central directory entry")


def _folder(raw: bytes, entry: Central, shown: str) -> None:
    """A folder entry carries no data (uv creates folders, and some unzippers write a folder
    entry's bytes)."""
    empty = entry.size == 0 and (raw == b"" or (entry.method == 8 and _inflate(raw) == (b"", True)))
    if not empty:
        raise Broken(f"the folder entry {shown} carries {entry.size} bytes of data")


def _inflate(raw: bytes) -> tuple[bytes, bool]:
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    out = inflater.decompress(raw)
    return out, inflater.eof and not inflater.unused_data


def sdist(path: Path) -> None:
    """Raise :class:`Broken` unless the sdist at ``path`` is one gzip stream of one tar."""
    with tarfile.open(path, "r:gz") as tar:
        tar.getmembers()
        end = tar.offset  # where its end-of-archive marker starts
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    seen = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            if inflater.eof:
                raise Broken("bytes follow its gzip stream (a second stream, or other data)")
            out = inflater.decompress(chunk)
            tail = out[max(0, end - seen) :]
            if tail.strip(b"\0"):
                raise Broken("data follows its tar's end-of-archive marker")
            seen += len(out)
            if inflater.unused_data:
                raise Broken("bytes follow its gzip stream (a second stream, or other data)")
    if not inflater.eof:
        raise Broken("its gzip stream is cut short")
