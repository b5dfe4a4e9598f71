"""The wheel workflow's steps after the builds, on the real artifacts: `mlrelease wheels sums`,
`wheels smoke` (a built wheel installed into a fresh virtual environment) and `wheels collect`
(the CI jobs' downloads merged per project), each with the failure it names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.wheels import FINAL, Built

from mlrelease import cli
from mlrelease.wheels import artifacts


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def _tamper(folder: Path) -> str:
    """Append a byte to the folder's first wheel; its name."""
    wheel = next(p for p in sorted(folder.iterdir()) if p.name.endswith(".whl"))
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    return wheel.name


def test_sums_are_written_and_checked(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(built.dist, tmp_path / "dist")
    (folder / artifacts.SUMS).unlink()
    assert cli.main(["wheels", "sums", str(folder)]) == 0
    assert f"Wrote {folder / artifacts.SUMS} (2 artifacts)" in capsys.readouterr().err
    assert cli.main(["wheels", "sums", str(folder), "--check"]) == 0
    assert f"every file matches {artifacts.SUMS}" in capsys.readouterr().err
    name = _tamper(folder)
    assert cli.main(["wheels", "sums", str(folder), "--check"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert name in err and f"{folder}/{artifacts.SUMS}: 1 problem(s)" in err


def test_smoke_installs_each_wheel_in_a_fresh_venv_and_refuses_a_tampered_folder(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(built.native / "dist", tmp_path / "native")
    args = ["wheels", "smoke", str(folder), "--project", str(built.native)]
    assert cli.main(args) == 0
    assert "smoke test passed in a fresh venv: native_adopter-" in capsys.readouterr().err
    name = _tamper(folder)
    assert cli.main(args) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert name in err and f"smoke test of {folder}: 1 problem(s)" in err
    assert "smoke test passed" not in err  # nothing installed from a folder that is wrong


def test_collect_merges_the_jobs_downloads_per_project_audited_and_summed(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    downloads = tmp_path / "downloads"
    wheel, sdist = sorted(p.name for p in artifacts.collect(built.dist))
    for job, name in (("build-wheel", wheel), ("build-sdist", sdist)):
        (downloads / job).mkdir(parents=True)
        shutil.copy2(built.dist / name, downloads / job / name)
        artifacts.write_sums(downloads / job)
    out = tmp_path / "out"
    args = ["wheels", "collect", str(downloads), "--output", str(out), "--project", str(built.repo)]
    assert cli.main([*args, "--release-tag", f"v{FINAL}-rc1"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert f"2 artifacts of mlrelease {FINAL}, audited and complete" in err
    assert sorted(p.name for p in artifacts.collect(out / "mlrelease")) == [wheel, sdist]
    assert artifacts.verify_sums(out / "mlrelease") == []

    _tamper(downloads / "build-wheel")
    shutil.rmtree(out)
    assert cli.main([*args, "--release-tag", f"v{FINAL}-rc1"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"build-wheel/{wheel}" in err and f"downloads in {downloads}: 1 problem(s)" in err
    assert not out.exists()  # a wrong download merges nothing
