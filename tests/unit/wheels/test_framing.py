"""An archive read alike by every reader (#48, the fifth adversary): zips and gzipped tars
written by Python's own zipfile and tarfile, then doctored byte by byte as the adversary did."""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest

from mlrelease.wheels import framing

WHEEL = "demo-1.4.0-py3-none-any.whl"
SDIST = "demo-1.4.0.tar.gz"
MEMBERS = {"demo/__init__.py": b"VERSION = '1.4.0'\n", "demo-1.4.0.dist-info/METADATA": b"M\n"}


def zipped(members: dict[str, bytes] = MEMBERS, **options: object) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, **options) as archive:  # type: ignore[arg-type]
        for name, data in members.items():
            archive.writestr(name, data)
    return raw.getvalue()


def central_start(data: bytes) -> int:
    at = data.rfind(b"PK\x05\x06")
    return int(struct.unpack_from("<I", data, at + 16)[0])


def check(tmp_path: Path, name: str, data: bytes) -> list[str]:
    path = tmp_path / name
    path.write_bytes(data)
    return framing.problems(name, path)


def test_a_wheel_as_zipfile_writes_it_passes(tmp_path: Path) -> None:
    assert check(tmp_path, WHEEL, zipped()) == []


def test_a_declared_comment_passes_and_bytes_past_it_do_not(tmp_path: Path) -> None:
    raw = io.BytesIO(zipped())
    with zipfile.ZipFile(raw, "a") as archive:
        archive.comment = b"built by CI"
    assert check(tmp_path, WHEEL, raw.getvalue()) == []
    (found,) = check(tmp_path, WHEEL, raw.getvalue() + b"more")
    assert "4 bytes follow its end-of-central-directory record" in found


def test_a_local_entry_missing_from_the_central_directory_is_refused(tmp_path: Path) -> None:
    """The adversary's ``zz_evil.pth``: a local header and its data inserted just before the
    central directory, which it is not listed in; zipfile reads the honest wheel."""
    honest = zipped()
    hidden = zipped({"demo-1.4.0.data/purelib/zz_evil.pth": b"import os\n"})
    start = central_start(honest)
    local = hidden[: central_start(hidden)]
    doctored = bytearray(honest[:start] + local + honest[start:])
    at = doctored.rfind(b"PK\x05\x06")
    struct.pack_into("<I", doctored, at + 16, start + len(local))
    assert zipfile.ZipFile(io.BytesIO(bytes(doctored))).namelist() == list(MEMBERS)
    (found,) = check(tmp_path, WHEEL, bytes(doctored))
    assert f"{len(local)} bytes lie between its last entry and its central directory" in found


def test_an_archive_glued_in_front_is_refused(tmp_path: Path) -> None:
    front = zipped({"demo/__init__.py": b"import evil\n"})
    data = front + zipped()
    assert zipfile.ZipFile(io.BytesIO(data)).read("demo/__init__.py") == MEMBERS["demo/__init__.py"]
    (found,) = check(tmp_path, WHEEL, data)
    assert f"{len(front)} bytes unaccounted for: an archive glued in front" in found


def test_bytes_before_the_first_header_are_refused(tmp_path: Path) -> None:
    """Offsets rewritten to cover the prefix: the first entry no longer starts at 0."""
    honest = bytearray(b"#!junk\n" + zipped())
    for at in range(len(honest) - 4):
        if honest[at : at + 4] == b"PK\x01\x02":
            old = struct.unpack_from("<I", honest, at + 42)[0]
            struct.pack_into("<I", honest, at + 42, old + 7)
    eocd = honest.rfind(b"PK\x05\x06")
    struct.pack_into("<I", honest, eocd + 16, struct.unpack_from("<I", honest, eocd + 16)[0] + 7)
    (found,) = check(tmp_path, WHEEL, bytes(honest))
    assert "bytes before demo/__init__.py's local header" in found


def test_a_folder_entry_carrying_data_is_refused(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        archive.writestr("demo/__init__.py", b"")
        archive.writestr(zipfile.ZipInfo("demo/evil/"), b"payload!!!")
    (found,) = check(tmp_path, WHEEL, raw.getvalue())
    assert "the folder entry demo/evil/ carries 10 bytes of data" in found
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        archive.writestr(zipfile.ZipInfo("demo/empty/"), b"")
    assert check(tmp_path, WHEEL, raw.getvalue()) == []


def test_data_descriptors_and_zip64_records_pass(tmp_path: Path) -> None:
    """What a streaming writer (bit 3, data descriptors) and a zip64 writer make is read
    alike; a descriptor that contradicts the central directory is not."""

    class Stream(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            self.data += bytes(b)  # type: ignore[call-overload]
            return len(bytes(b))  # type: ignore[call-overload]

    stream = Stream()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:  # unseekable: bit 3
        for name, data in MEMBERS.items():
            with archive.open(name, "w", force_zip64=True) as handle:
                handle.write(data)
    data = bytes(stream.data)
    assert check(tmp_path, WHEEL, data) == []
    broken = bytearray(data)
    at = broken.find(b"PK\x07\x08")
    struct.pack_into("<I", broken, at + 4, 0)
    (found,) = check(tmp_path, WHEEL, bytes(broken))
    assert "data descriptor differs" in found


def tar_gz(extra: bytes = b"") -> bytes:
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        info = tarfile.TarInfo("demo-1.4.0/PKG-INFO")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"M\n"))
    return gzip.compress(tar.getvalue() + extra, mtime=0)


def test_an_sdist_as_tarfile_writes_it_passes(tmp_path: Path) -> None:
    assert check(tmp_path, SDIST, tar_gz()) == []


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (tar_gz() + tar_gz(), "bytes follow its gzip stream"),
        (tar_gz() + b"\0\0junk", "bytes follow its gzip stream"),
        (tar_gz(b"\0" * 512 + b"hidden member"), "data follows its tar's end-of-archive marker"),
        (tar_gz()[:-9], "cut short"),
    ],
    ids=["second-stream", "trailing-bytes", "after-end-marker", "truncated"],
)
def test_an_sdist_read_otherwise_by_tar_is_refused(tmp_path: Path, data: bytes, words: str) -> None:
    """pip reads the first gzip stream; ``tar -xzi`` reads on past the end marker and into
    the next stream."""
    found = check(tmp_path, SDIST, data)
    assert found and words in found[0], found


def test_a_cut_central_directory_is_named_never_a_traceback(tmp_path: Path) -> None:
    data = bytearray(zipped())
    at = data.rfind(b"PK\x05\x06")
    struct.pack_into("<I", data, at + 12, 10_000)  # a central directory longer than the file
    struct.pack_into("<I", data, at + 16, 0)
    (found,) = check(tmp_path, WHEEL, bytes(data))
    assert found.startswith(f"{WHEEL}: ")
