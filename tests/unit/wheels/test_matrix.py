"""The pure core of mlrelease.wheels: identifiers, jobs, coverage, file names, SHA256SUMS."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from mlrelease.errors import ConfigError, PreconditionError, UserError
from mlrelease.requirements import MissingDependency
from mlrelease.toml_tables import parse_section
from mlrelease.wheels import artifacts, matrix, promote
from mlrelease.wheels.config import WheelsConfig
from mlrelease.wheels.project import Project, build_version


def ids(*texts: str) -> list[matrix.Identifier]:
    return [matrix.parse_identifier(t) for t in texts]


def test_identifier_and_platform_arch() -> None:
    ident = matrix.parse_identifier("cp312-win_arm64")
    assert (ident.python, ident.tag, ident.cpython_version) == ("cp312", "win_arm64", "3.12")
    assert matrix.parse_identifier("cp313t-manylinux_x86_64").cpython_version is None
    assert matrix.platform_arch("musllinux_aarch64") == ("linux", "aarch64")
    assert matrix.platform_arch("win_amd64") == ("windows", "AMD64")
    assert matrix.platform_arch("macosx_universal2") == ("macos", "universal2")
    with pytest.raises(ValueError, match="not a cibuildwheel build identifier"):
        matrix.parse_identifier("linux-x86_64")


def test_native_jobs_one_per_platform_arch_on_native_runners() -> None:
    jobs = matrix.make_jobs(
        "examples/x",
        "x",
        "native",
        ids("cp310-manylinux_x86_64", "cp311-musllinux_x86_64", "cp310-win_arm64"),
    )
    assert [(j.builder, j.platform, j.archs, j.runner) for j in jobs] == [
        ("sdist", "", "", "ubuntu-24.04"),
        ("cibuildwheel", "linux", "x86_64", "ubuntu-24.04"),
        ("cibuildwheel", "windows", "ARM64", "windows-11-arm"),
    ]
    assert jobs[1].identifiers == "cp310-manylinux_x86_64 cp311-musllinux_x86_64"
    assert jobs[1].python == "3.11"
    assert len({j.artifact for j in jobs}) == 3  # upload names are unique in a run


def test_pure_jobs_build_once_and_smoke_everywhere() -> None:
    jobs = matrix.make_jobs(".", "mlrelease", "pure", ids("cp312-macosx_arm64", "cp312-win_amd64"))
    built = matrix.BuildMatrix(jobs).matrix()
    assert [j["builder"] for j in built["build"]] == ["build"]
    assert [(j["runner"], j["artifact"]) for j in built["smoke"]] == [
        ("macos-15", "dist-mlrelease-pure"),
        ("windows-2025", "dist-mlrelease-pure"),
    ]


def test_unknown_runner_names_the_config_key() -> None:
    with pytest.raises(UserError, match=r"linux/ppc64le.*\[tool.mlrelease.wheels\] runners"):
        matrix.make_jobs(".", "x", "native", ids("cp312-manylinux_ppc64le"))
    jobs = matrix.make_jobs(
        ".", "x", "native", ids("cp312-manylinux_ppc64le"), {"linux/ppc64le": "self-hosted-power"}
    )
    assert jobs[1].runner == "self-hosted-power"


def test_coverage_names_missing_platform_and_python() -> None:
    found = ids("cp310-win_amd64", "cp311-win_amd64", "cp311-macosx_arm64")
    problems = matrix.coverage_problems(
        found, ["win_amd64", "win_arm64", "macosx_arm64"], ["3.10", "3.11"]
    )
    assert problems == [
        "required platform `win_arm64` has no build identifier",
        "required platform `macosx_arm64` has no build identifier for CPython 3.10 "
        "(declared in the classifiers)",
    ]
    assert matrix.coverage_problems(found[:2], ["win_amd64"], ["3.10", "3.11"]) == []


def test_classifier_versions() -> None:
    pyproject = {
        "project": {
            "classifiers": [
                "Programming Language :: Python :: 3.12",
                "Programming Language :: Python :: 3",
                "Programming Language :: Python :: 3.10",
                "Topic :: Software Development",
            ]
        }
    }
    assert matrix.classifier_versions(pyproject) == ["3.10", "3.12"]


def test_identify_and_platform_family() -> None:
    wheel = artifacts.identify(
        Path("native_adopter-1.4.0-cp310-abi3-manylinux1_x86_64.manylinux_2_5_x86_64.whl")
    )
    assert (wheel.kind, wheel.name, wheel.version, wheel.abi3, wheel.pure) == (
        "wheel",
        "native-adopter",
        Version("1.4.0"),
        True,
        False,
    )
    assert wheel.platforms == {"manylinux_x86_64"}
    assert artifacts.platform_family("macosx_11_0_arm64") == "macosx_arm64"
    assert artifacts.identify(Path("mlrelease-1.4.0.tar.gz")).kind == "sdist"
    with pytest.raises(ValueError, match=r"README\.md: not a wheel"):
        artifacts.identify(Path("README.md"))


def test_check_identity_names_the_file() -> None:
    wheel = artifacts.identify(Path("mlrelease-1.4.0rc1-py3-none-any.whl"))
    (finding,) = artifacts.check_identity(wheel, "mlrelease", "1.4.0")
    assert str(finding) == (
        "mlrelease-1.4.0rc1-py3-none-any.whl: version in the file name is "
        "`1.4.0rc1`, expected `1.4.0`"
    )


def test_sums_round_trip_and_findings(tmp_path: Path) -> None:
    (tmp_path / "a-1.0-py3-none-any.whl").write_bytes(b"wheel")
    (tmp_path / "a-1.0.tar.gz").write_bytes(b"sdist")
    sums = artifacts.write_sums(tmp_path)
    assert sums.read_text().splitlines()[0].endswith("  a-1.0-py3-none-any.whl")
    assert artifacts.verify_sums(tmp_path) == []
    (tmp_path / "a-1.0.tar.gz").write_bytes(b"sdist!")
    (tmp_path / "extra.txt").write_text("x")
    (tmp_path / "a-1.0-py3-none-any.whl").unlink()
    found = {f.file: f.message for f in artifacts.verify_sums(tmp_path)}
    assert set(found) == {"a-1.0-py3-none-any.whl", "a-1.0.tar.gz", "extra.txt"}
    assert "missing" in found["a-1.0-py3-none-any.whl"]
    assert "tampered" in found["a-1.0.tar.gz"]
    assert "extra" in found["extra.txt"]
    sums.write_text("not a line\n")
    (bad,) = artifacts.verify_sums(tmp_path)
    assert "line 1: expected `<64 hex digits>  <file name>`" in bad.message


def test_wheels_config_is_strict() -> None:
    config = parse_section(
        WheelsConfig,
        {"kind": "pure", "required-platforms": ["win_arm64"]},
        prefix="tool.mlrelease.wheels",
        source="pyproject.toml",
    )
    assert config.required_platforms == ["win_arm64"]
    with pytest.raises(ConfigError, match=r"tool.mlrelease.wheels.kind: expected one of"):
        parse_section(
            WheelsConfig,
            {"kind": "binary"},
            prefix="tool.mlrelease.wheels",
            source="pyproject.toml",
        )
    with pytest.raises(ConfigError, match="Did you mean 'smoke-command'"):
        parse_section(
            WheelsConfig,
            {"smoke-comand": []},
            prefix="tool.mlrelease.wheels",
            source="pyproject.toml",
        )


def _project(version: str, kind: str = "native") -> Project:
    from mlrelease.config import Config

    return Project(Config(tables={"wheels": WheelsConfig(kind=kind)}), "mlrelease", version)


def test_rc_tag_builds_the_final_version() -> None:
    assert build_version(_project("1.4.0rc2"), "v1.4.0-rc2") == "1.4.0"
    assert build_version(_project("1.4.0"), "v1.4.0") == "1.4.0"
    assert build_version(_project("1.4.0.dev0"), "") == "1.4.0.dev0"
    with pytest.raises(
        PreconditionError, match=r"the tag v1\.4\.0-rc2 says 1\.4\.0rc2, but the files"
    ):
        build_version(_project("1.4.0rc1"), "v1.4.0-rc2")
    with pytest.raises(UserError, match="expected a release tag"):
        build_version(_project("1.4.0"), "v1.4")


def test_rc_tag_on_a_tree_carrying_the_final_version_builds_it() -> None:
    # `release rc` tags vX.Y.Z-rcN on a tree carrying X.Y.Z (the final tag lands on the same
    # commit); the RC workflow's `wheels plan --release-tag vX.Y.Z-rcN` must accept it.
    assert build_version(_project("1.4.0"), "v1.4.0-rc2") == "1.4.0"
    with pytest.raises(PreconditionError, match=r"the tag v1\.4\.0-rc2 says 1\.4\.0rc2"):
        build_version(_project("1.4.1"), "v1.4.0-rc2")


def test_promotion_refuses_prereleases_and_incomplete_sets() -> None:
    with pytest.raises(PreconditionError, match="publishes a final release"):
        promote.final_version(_project("1.4.0rc2"), None)
    found = [
        artifacts.identify(Path(n))
        for n in ("x-1.0-cp310-abi3-manylinux_2_17_x86_64.whl", "x-1.0-cp310-abi3-win_amd64.whl")
    ]
    missing = {f.file for f in promote.completeness(_project("1.0"), found)}
    assert missing == {
        "(sdist)",
        "(manylinux_aarch64)",
        "(win_arm64)",
        "(macosx_arm64)",
        "(macosx_x86_64)",
    }


def test_a_missing_module_is_a_missing_tool_not_a_config_mistake() -> None:
    error = matrix.query_failure(
        "linux", Path("p"), 1, "Traceback ...\nModuleNotFoundError: No module named 'bashlex'\n"
    )
    assert isinstance(error, MissingDependency)
    assert "bashlex" in str(error) and "wheels" in str(error)
    assert "[tool.cibuildwheel]" not in str(error)


def test_the_config_is_named_only_when_cibuildwheel_speaks_of_it() -> None:
    bad = matrix.query_failure("linux", Path("p"), 2, "Failed to parse tool.cibuildwheel.archs")
    assert "Fix [tool.cibuildwheel]" in str(bad)
    other = matrix.query_failure("linux", Path("p"), 1, "Segmentation fault")
    assert "Fix [tool.cibuildwheel]" not in str(other)
    assert 'builder = "external"' in str(other)
