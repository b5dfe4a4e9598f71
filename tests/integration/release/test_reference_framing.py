"""Issue 48, the fifth adversary: a bound file is what every installer reads, not only what
Python's ``zipfile`` and ``tarfile`` read. Each test doctors the real build of the RC's commit
byte by byte, as the adversary did, and bind (which publish and promote repeat on the bound
bytes) bound it before the fix. Real repositories, real builds (pypa/build)."""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
import zipfile

from helpers.reference_builds import SDIST, WHEEL, Members, refused
from helpers.reference_builds import rewrite_wheel as rewritten
from helpers.release import Repo

from mlrelease.wheels.artifacts import write_sums

PTH = "demo-1.4.0.data/purelib/zz_evil.pth"


def _zip(members: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return raw.getvalue()


def _save(repo: Repo, name: str, data: bytes) -> None:
    (repo.path / "dist" / name).write_bytes(data)
    write_sums(repo.path / "dist")


def test_a_local_entry_the_central_directory_does_not_list_is_refused(demo_built: Repo) -> None:
    """``zz_evil.pth`` inserted before the central directory, which does not list it: zipfile
    reads the honest wheel; older streaming unzippers install the import hook."""
    wheel = (demo_built.path / "dist" / WHEEL).read_bytes()
    hook = _zip({PTH: b"import os; os.environ['PWNED'] = '1'\n"})
    local = hook[: hook.rfind(b"PK\x01\x02", 0, hook.rfind(b"PK\x05\x06"))]
    eocd = wheel.rfind(b"PK\x05\x06")
    start = struct.unpack_from("<I", wheel, eocd + 16)[0]
    doctored = bytearray(wheel[:start] + local + wheel[start:])
    struct.pack_into("<I", doctored, eocd + len(local) + 16, start + len(local))
    assert zipfile.ZipFile(io.BytesIO(bytes(doctored))).testzip() is None
    assert PTH not in zipfile.ZipFile(io.BytesIO(bytes(doctored))).namelist()
    _save(demo_built, WHEEL, bytes(doctored))
    refused(demo_built, WHEEL, f"{len(local)} bytes lie between its last entry and its central")


def test_an_archive_glued_in_front_of_the_wheel_is_refused(demo_built: Repo) -> None:
    """A whole second zip in front of the honest wheel: zipfile finds the honest one from its
    end; a reader from the start finds the other."""
    wheel = (demo_built.path / "dist" / WHEEL).read_bytes()
    front = _zip({"demo/__init__.py": b"import evil\n"})
    _save(demo_built, WHEEL, front + wheel)
    refused(demo_built, WHEEL, f"{len(front)} bytes unaccounted for: an archive glued in front")


def test_a_folder_entry_with_data_and_an_extra_folder_are_refused(demo_built: Repo) -> None:
    """uv creates folders from folder entries: one that carries bytes, and one the reference
    wheel lacks (an extra member), are refused."""
    wheel = demo_built.path / "dist" / WHEEL
    honest = wheel.read_bytes()

    def folder(data: bytes) -> None:
        raw = io.BytesIO(honest)
        with zipfile.ZipFile(raw, "a") as archive:
            archive.writestr(zipfile.ZipInfo("demo/evil/"), data)
        _save(demo_built, WHEEL, raw.getvalue())

    folder(b"payload!!!")
    refused(demo_built, WHEEL, "the folder entry demo/evil/ carries 10 bytes of data")
    folder(b"")
    refused(demo_built, WHEEL, "demo/evil is not in the reference wheel")


def test_the_honest_wheel_rewritten_member_by_member_is_still_read(demo_built: Repo) -> None:
    """A wheel written anew by zipfile (another writer, the same members) is no framing
    problem: it is compared member by member, and the change is what is named."""

    def change(members: Members) -> None:
        members["demo/__init__.py"] += b"# changed\n"

    rewritten(demo_built.path / "dist" / WHEEL, change)
    out = refused(demo_built, WHEEL, "demo/__init__.py differs")
    assert "installers disagree" not in out


def _tar(members: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def test_a_second_gzip_stream_after_the_sdist_is_refused(demo_built: Repo) -> None:
    """pip reads the first stream; ``tar -xzi`` extracts the second's ``setup.py`` over it."""
    sdist = (demo_built.path / "dist" / SDIST).read_bytes()
    evil = gzip.compress(_tar({"demo-1.4.0/setup.py": b"import evil\n"}))
    _save(demo_built, SDIST, sdist + evil)
    refused(demo_built, SDIST, "bytes follow its gzip stream")


def test_a_tar_member_after_the_end_of_archive_marker_is_refused(demo_built: Repo) -> None:
    """The sdist's tar with a member after its end marker (``tar -i`` reads past it)."""
    with gzip.open(demo_built.path / "dist" / SDIST) as handle:
        tar = handle.read()
    evil = _tar({"demo-1.4.0/setup.py": b"import evil\n"})
    _save(demo_built, SDIST, gzip.compress(tar + evil))
    refused(demo_built, SDIST, "data follows its tar's end-of-archive marker")
