"""Wheels built without cibuildwheel (``[tool.mlrelease.wheels] builder = "external"``), on a
repository shaped like Torch-TensorRT: init proposes the audit, and the ``wheels`` gate audits
what the project's own build left in ``dist/`` (under ``version-source = "tag"``: the release
tag's version on a tagged commit) instead of asking cibuildwheel for a plan."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
from helpers.dist import make_dist
from helpers.projects.tag_model import TENSORRT
from helpers.release import GIT_ENV
from helpers.repo import git
from helpers.torch_family import push_torch_family

from mlrelease.cli import main

NAME = "torch_tensorrt"
LINUX, WINDOWS = "cp312-cp312-manylinux_2_28_x86_64", "cp312-cp312-win_amd64"


@pytest.fixture
def trt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path, TENSORRT)
    repo.git("switch", "-q", "release/2.13")  # HEAD carries v2.13.0-rc3 and v2.13.0
    assert main(["--root", str(repo.path), "init", "--execute"]) == 0
    return repo.path


def built(root: Path, version: str, *tags: str) -> None:
    for tag in tags:
        make_dist(root, root / "dist", version, name=NAME, readme="# torch_tensorrt", tag=tag)


def wheels_gate(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    main(["--root", str(root), "verify", "--only", "wheels"])
    out, err = capsys.readouterr()
    sys.stdout.write(out + err)
    assert "Traceback" not in out + err
    report = json.loads((root / "build/release-verify/report.json").read_text("utf-8"))
    (result,) = report["results"]
    return dict(result)


def test_init_proposes_the_audit_of_the_external_build(trt: Path) -> None:
    tool = tomllib.loads((trt / "pyproject.toml").read_text("utf-8"))["tool"]["mlrelease"]
    assert (tool["distribution"], tool["version-source"]) == (NAME, "tag")
    wheels = tool["wheels"]
    assert (wheels["kind"], wheels["builder"]) == ("native", "external")
    assert "build-tensorrt-linux.yml" in wheels["built-by"]
    assert wheels["required-platforms"] == ["manylinux_x86_64", "win_amd64"]


def test_an_empty_dist_is_skipped_naming_the_build(
    trt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = wheels_gate(trt, capsys)
    assert result["status"] == "skip", result
    assert "build-tensorrt-linux.yml" in result["summary"]
    assert "not by cibuildwheel" in result["summary"]


def test_the_tags_artifacts_pass_the_audit(trt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built(trt, "2.13.0", LINUX, WINDOWS)
    result = wheels_gate(trt, capsys)
    assert result["status"] == "pass", result
    assert "torch_tensorrt 2.13.0" in result["summary"]


def test_artifacts_that_kept_the_files_marker_or_miss_a_platform_fail(
    trt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built(trt, "2.13.0a0", LINUX)
    result = wheels_gate(trt, capsys)
    assert result["status"] == "fail", result
    details = "\n".join(result["details"])
    assert "Version: 2.13.0a0, expected 2.13.0" in details
    assert "win_amd64" in details


def test_a_wheel_that_is_no_zip_gets_a_verdict_naming_it(
    trt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built(trt, "2.13.0", LINUX, WINDOWS)
    broken = trt / "dist" / f"{NAME}-2.13.0-{WINDOWS}.whl"
    broken.write_bytes(b"<html>502 Bad Gateway</html>")  # a download that went wrong
    result = wheels_gate(trt, capsys)
    assert result["status"] == "fail", result
    assert f"{broken.name}: not a zip archive" in result["summary"]


def test_an_untagged_build_carries_one_version_of_the_files_series(
    trt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(trt, "switch", "-q", "--detach", "release/2.13~3")  # the cut: no tag on it
    built(trt, "2.13.0.dev20261125", LINUX, WINDOWS)  # a nightly: the build's own suffix
    assert wheels_gate(trt, capsys)["status"] == "pass"
    shutil.rmtree(trt / "dist")
    built(trt, "2.12.5", LINUX, WINDOWS)  # another series: not a build of these files
    result = wheels_gate(trt, capsys)
    assert result["status"] == "fail", result
    assert "expected `2.13.0a0`" in "\n".join(result["details"])


def test_wheels_audit_names_a_wheel_that_is_no_zip(
    trt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built(trt, "2.13.0", LINUX, WINDOWS)
    broken = trt / "dist" / f"{NAME}-2.13.0-{LINUX}.whl"
    broken.write_bytes(broken.read_bytes()[:100])  # a truncated download
    capsys.readouterr()
    code = main(
        ["--root", str(trt), "wheels", "audit", str(trt / "dist"), "--release-tag", "v2.13.0"]
    )
    out, err = capsys.readouterr()
    shown = " ".join((out + err).split())
    assert code == 1, shown
    assert f"{broken.name}" in shown and "not a zip archive" in shown, shown
    assert "Traceback" not in shown and "BadZipFile" not in shown


@pytest.mark.parametrize("branch", ["main", "release/2.13"])
def test_verify_passes_after_init_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], branch: str
) -> None:
    """#25's acceptance on Torch-TensorRT's shape: after ``init --execute`` (committed), every
    proposed gate passes (``wheels`` skipped until the external build fills dist/)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    root = push_torch_family(tmp_path, TENSORRT).path
    git(root, "switch", "-q", branch)
    assert main(["--root", str(root), "init", "--execute"]) == 0
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    capsys.readouterr()
    code = main(["--root", str(root), "verify"])
    out, err = capsys.readouterr()
    sys.stdout.write(out + err)
    assert code == 0, out + err
    # Not a plan of cibuildwheel builds that the project never runs (main "passed" with 72).
    shown = " ".join((out + err).split())  # the terminal's width folds the lines
    assert "skip wheels: the wheels are built by .github/workflows/build-tensorrt" in shown
