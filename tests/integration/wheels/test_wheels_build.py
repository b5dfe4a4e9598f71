"""`mlrelease wheels plan/build/audit` on the real projects: cibuildwheel's plan, the wheels
gate, builds with audits and clean-venv smoke tests, and the failures each audit names."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest
import tomlkit  # bump-my-version's TOML library: edits keep the file's layout
from helpers.wheels import FINAL, RC, REPO, Built

from mlrelease import cli
from mlrelease.registry import load_config
from mlrelease.wheels import artifacts, audit, build
from mlrelease.wheels.project import Project, from_config


def project_at(root: Path) -> Project:
    return from_config(load_config(root))


REQUIRED = {"win_arm64", "win_amd64", "manylinux_aarch64", "manylinux_x86_64", "macosx_arm64"}


def test_plan_lists_every_required_platform(capsys: pytest.CaptureFixture[str]) -> None:
    native = REPO / "examples" / "native-adopter"
    assert (
        cli.main(["wheels", "plan", "--project", str(REPO), "--project", str(native), "--json"])
        == 0
    )
    matrix = json.loads(capsys.readouterr().out)
    for builder, kind in (("cibuildwheel", "build"), ("smoke", "smoke")):
        jobs = [j for j in matrix[kind] if j["builder"] == builder]
        tags = {i.split("-", 1)[1] for j in jobs for i in j["identifiers"].split()}
        assert tags >= REQUIRED, builder
        assert {j["runner"] for j in jobs} >= {"ubuntu-24.04-arm", "windows-11-arm", "macos-15"}


def _example_project(tmp_path: Path) -> Path:
    """The native example's pyproject.toml alone: all cibuildwheel's plan reads."""
    (tmp_path / "pyproject.toml").write_text(
        (REPO / "examples" / "native-adopter" / "pyproject.toml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    return tmp_path


def _verify_wheels_gate(root: Path) -> dict[str, object]:
    code = cli.main(["--root", str(root), "verify", "--only", "wheels"])
    report = json.loads((root / "build" / "release-verify" / "report.json").read_text())
    (result,) = [r for r in report["results"] if r["name"] == "wheels"]
    assert (code == 0) == (result["status"] == "pass")
    return dict(result)


def test_gate_fails_naming_a_platform_dropped_from_cibuildwheel(tmp_path: Path) -> None:
    root = _example_project(tmp_path)
    assert _verify_wheels_gate(root)["status"] == "pass"
    document = tomlkit.parse((root / "pyproject.toml").read_text(encoding="utf-8"))
    document["tool"]["cibuildwheel"]["windows"]["archs"] = ["AMD64"]  # type: ignore[index]
    (root / "pyproject.toml").write_text(tomlkit.dumps(document), encoding="utf-8")
    result = _verify_wheels_gate(root)
    assert result["status"] == "fail"
    assert "required platform `win_arm64` has no build identifier" in str(result["summary"])
    assert "win_amd64" not in str(result["summary"])


@pytest.mark.slow
def test_build_audits_smoke_tests_and_writes_sums(built: Built) -> None:
    names = sorted(p.name for p in artifacts.collect(built.dist))
    assert names == [f"mlrelease-{FINAL}-py3-none-any.whl", f"mlrelease-{FINAL}.tar.gz"]
    native = [artifacts.identify(p) for p in artifacts.collect(built.native / "dist")]
    (wheel,) = [a for a in native if a.kind == "wheel"]
    assert wheel.abi3 and wheel.platforms == {"manylinux_x86_64"}
    assert any(a.kind == "sdist" for a in native)
    for dist in (built.dist, built.native / "dist"):
        assert artifacts.verify_sums(dist) == []
    # The RC's tree still carries the RC version: only a throw-away copy was restamped.
    assert project_at(built.repo).version == RC
    assert f'__version__ = "{RC}"' in (built.repo / "src/mlrelease/__init__.py").read_text()


def _without(wheel: Path, module: str, target: Path) -> Path:
    """A copy of ``wheel`` built as if ``module`` had been left out (RECORD agrees)."""
    broken = target / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(broken, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == module:
                continue
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(x for x in lines if not x.startswith(module + ",")).encode()
            out.writestr(info, data)
    return broken


@pytest.mark.slow
def test_missing_module_fails_naming_the_file(built: Built, tmp_path: Path) -> None:
    (wheel,) = built.dist.glob("*.whl")
    broken = _without(wheel, "mlrelease/versions.py", tmp_path)
    findings = audit.audit(project_at(built.repo), [broken], FINAL, require=("wheel",))
    assert findings, "a wheel without mlrelease/versions.py passed the audit"
    assert all(f.file == wheel.name for f in findings)
    assert any("W101" in f.message and "mlrelease/versions.py" in f.message for f in findings)


@pytest.mark.slow
def test_wrong_version_in_file_name_fails_naming_the_file(built: Built, tmp_path: Path) -> None:
    (wheel,) = built.dist.glob("*.whl")
    renamed = tmp_path / wheel.name.replace(FINAL, "0.1.1")
    renamed.write_bytes(wheel.read_bytes())
    findings = audit.audit(project_at(built.repo), [renamed], FINAL, require=("wheel",))
    assert [str(f) for f in findings if "version in the file name" in f.message] == [
        f"{renamed.name}: version in the file name is `0.1.1`, expected `{FINAL}`"
    ]


@pytest.mark.slow
def test_failed_audit_leaves_dist_as_it_was(built: Built) -> None:
    project = project_at(built.native)
    before = {p.name: p.read_bytes() for p in (built.native / "dist").iterdir()}
    strict = dataclasses.replace(
        project.wheels, wheel_files=[*project.wheels.wheel_files, "native_adopter/_gone.*"]
    )
    outcome = build.build(
        Project(project.config.with_table(strict), project.name, project.version),
        smoke=False,
    )
    assert not outcome.ok and not outcome.files
    assert any(
        f.file.startswith("native_adopter-0.3.0-cp310-abi3-manylinux")
        and "native_adopter/_gone.*" in f.message
        for f in outcome.findings
    )
    assert {p.name: p.read_bytes() for p in (built.native / "dist").iterdir()} == before
