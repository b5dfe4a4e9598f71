"""Candidates made of files: their identity, and the exact-bytes check of an installed wheel."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mlrelease.downstream import subjects
from mlrelease.errors import UserError


def wheel(folder: Path, version: str, body: bytes) -> Path:
    path = folder / f"demo_lib-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("demo_lib/__init__.py", body)
        record = (
            f"demo_lib/__init__.py,sha256={len(body)},{len(body)}\n"
            f"demo_lib-{version}.dist-info/RECORD,,\n"
        )
        z.writestr(f"demo_lib-{version}.dist-info/RECORD", record)
    return path


def test_files_identity_and_version(tmp_path: Path) -> None:
    wheel(tmp_path, "1.1.0", b"x = 1\n")
    (tmp_path / "other-1.0.tar.gz").write_bytes(b"")
    found = subjects.from_files(tmp_path, "demo-lib")
    assert found.version == "1.1.0" and found.requirement == "demo-lib==1.1.0"
    assert len(found.identity) == 1 and found.identity[0].startswith(
        "demo_lib-1.1.0-py3-none-any.whl "
    )
    wheel(tmp_path, "1.2.0", b"x = 2\n")
    with pytest.raises(UserError, match="several versions"):
        subjects.from_files(tmp_path, "demo-lib")
    with pytest.raises(UserError, match="no wheel or sdist of absent"):
        subjects.from_files(tmp_path, "absent")
    with pytest.raises(UserError, match="neither a folder"):
        subjects.from_version("not a version", "demo-lib", "https://pypi.org/simple")


def test_exact_bytes(tmp_path: Path) -> None:
    built = wheel(tmp_path, "1.1.0", b"x = 1\n")
    subject = subjects.from_files(built, "demo-lib")
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages" / "demo_lib-1.1.0.dist-info"
    site.mkdir(parents=True)
    (site / "RECORD").write_text("demo_lib/__init__.py,sha256=6,6\nINSTALLER,,\n", encoding="utf-8")
    assert subjects.exact_bytes(subject, tmp_path / "env", "demo-lib") == ""
    (site / "RECORD").write_text("demo_lib/__init__.py,sha256=7,7\n", encoding="utf-8")
    assert "not one of the candidate's wheels" in subjects.exact_bytes(
        subject, tmp_path / "env", "demo-lib"
    )


def test_the_best_wheel_is_the_one_the_interpreter_ranks_first() -> None:
    names = [
        "torch-2.5.0-cp312-cp312-manylinux1_x86_64.whl",
        "torch-2.5.0-cp311-cp311-manylinux1_x86_64.whl",
        "torch-2.5.0-py3-none-any.whl",
        "torch-2.5.0.tar.gz",
    ]
    accepted = ["cp311-cp311-manylinux1_x86_64", "py3-none-any"]
    assert subjects.best_wheel(names, accepted) == names[1]
    assert subjects.best_wheel(names, ["py3-none-any"]) == names[2]
    assert subjects.best_wheel(names[:2], ["cp313-cp313-win_amd64"]) is None
