"""`mlrelease init`'s wheel platforms from the declared build matrix (pure: no cibuildwheel)."""

from __future__ import annotations

from typing import Any

import pytest
import tomllib

from mlrelease.wheels import platforms

ONNX_LIKE = """
[tool.cibuildwheel]
test-command = "pytest {project}/tests"
[tool.cibuildwheel.macos]
archs = ["universal2"]
"""

LINUX_WORKFLOW = """
jobs:
  build:
    strategy:
      matrix:
        build:
          - "cp312-manylinux_x86_64"
          - "cp312-manylinux_aarch64"
    runs-on: ${{ contains(matrix.build, 'aarch64') && 'ubuntu-24.04-arm' || 'ubuntu-24.04' }}
    steps:
      - uses: pypa/cibuildwheel@v3.4.1
        with:
          only: ${{ matrix.build }}
      - uses: actions/upload-artifact@v7
        with:
          name: wheels-linux-release
"""

WINDOWS_WORKFLOW = """
jobs:
  build:
    strategy:
      matrix:
        build: ["cp312-win_amd64", "cp312-win32", "cp312-win_arm64"]
    runs-on: ${{ contains(matrix.build, 'arm64') && 'windows-11-arm' || 'windows-2022' }}
    steps:
      - uses: pypa/cibuildwheel@v3.4.1
        with:
          only: ${{ matrix.build }}
"""

MACOS_WORKFLOW = """
jobs:
  build:
    runs-on: macos-14
    steps:
      - uses: pypa/cibuildwheel@v3.4.1
        with:
          only: cp312-macosx_universal2
"""


def toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


@pytest.mark.parametrize(
    ("label", "placed"),
    [
        ("ubuntu-24.04", ("linux", "x86_64")),
        ("ubuntu-latest", ("linux", "x86_64")),
        ("ubuntu-24.04-arm", ("linux", "aarch64")),
        ("windows-2022", ("windows", "AMD64")),
        ("windows-11-arm", ("windows", "ARM64")),
        ("macos-14", ("macos", "arm64")),
        ("macos-latest", ("macos", "arm64")),
        ("macos-13", ("macos", "x86_64")),
        ("macos-15-intel", ("macos", "x86_64")),
        ("self-hosted", None),
    ],
)
def test_runner_arch(label: str, placed: tuple[str, str] | None) -> None:
    assert platforms.runner_arch(label) == placed


def test_onnx_like_matrix_comes_from_its_workflows_and_config() -> None:
    declared = platforms.declared_archs(
        toml(ONNX_LIKE),
        {
            "linux.yml": LINUX_WORKFLOW,
            "windows.yml": WINDOWS_WORKFLOW,
            "macos.yml": MACOS_WORKFLOW,
            "lint.yml": "jobs:\n  lint:\n    runs-on: ubuntu-24.04\n",
        },
    )
    assert declared.archs == {
        "linux": ["x86_64", "aarch64"],
        "windows": ["AMD64", "ARM64", "x86"],
        "macos": ["universal2"],
    }
    assert declared.named_tags == {
        "manylinux_x86_64",
        "manylinux_aarch64",
        "win_amd64",
        "win32",
        "win_arm64",
        "macosx_universal2",
    }
    # what cibuildwheel would select on those archs, musllinux included: only: narrows it
    built = declared.named_tags | {"musllinux_x86_64", "musllinux_aarch64"}
    assert platforms.pick_required(built, declared.named_tags) == [
        "manylinux_x86_64",
        "manylinux_aarch64",
        "win_amd64",
        "win_arm64",
        "macosx_universal2",
    ]


def test_without_workflows_each_platform_uses_its_configured_archs_or_the_default() -> None:
    pyproject = '[tool.cibuildwheel.linux]\narchs = "x86_64 aarch64 ppc64le"\n'
    declared = platforms.declared_archs(toml(pyproject), {})
    assert declared.archs == {
        "linux": ["x86_64", "aarch64", "ppc64le"],
        "windows": ["AMD64", "ARM64"],
        "macos": ["x86_64", "arm64"],
    }
    assert declared.named_tags == set()


def test_top_level_archs_all_expands_per_platform() -> None:
    declared = platforms.declared_archs(toml('[tool.cibuildwheel]\narchs = ["all"]\n'), {})
    assert declared.archs["windows"] == ["AMD64", "x86", "ARM64"]
    assert declared.archs["macos"] == ["x86_64", "arm64", "universal2"]


def test_matrix_os_runners_resolve_auto_and_unbuilt_platforms_are_left_out() -> None:
    workflow = """
jobs:
  wheels:
    strategy:
      matrix:
        os: [ubuntu-24.04, ubuntu-24.04-arm, windows-11-arm]
    runs-on: ${{ matrix.os }}
    steps:
      - run: pipx run cibuildwheel==3.4.1
        env:
          CIBW_ARCHS: auto
"""
    declared = platforms.declared_archs({}, {"wheels.yaml": workflow})
    assert declared.archs == {"linux": ["x86_64", "i686", "aarch64"], "windows": ["ARM64"]}


def test_cibw_archs_env_overrides_pyproject() -> None:
    pyproject = '[tool.cibuildwheel.linux]\narchs = ["x86_64"]\n'
    workflow = (
        "jobs:\n  w:\n    runs-on: ubuntu-24.04\n    steps:\n"
        "      - uses: pypa/cibuildwheel@v3\n        env:\n"
        '          CIBW_ARCHS_LINUX: "x86_64 aarch64"\n'
    )
    declared = platforms.declared_archs(toml(pyproject), {"ci.yml": workflow})
    assert declared.archs == {"linux": ["x86_64", "aarch64"]}


def test_workflows_without_cibuildwheel_declare_nothing() -> None:
    workflow = "jobs:\n  t:\n    runs-on: ubuntu-24.04-arm\n    steps:\n      - run: pytest\n"
    declared = platforms.declared_archs({}, {"test.yml": workflow})
    assert declared.archs == {p: list(a) for p, a in platforms.DEFAULT_ARCHS.items()}


def test_a_matrix_from_an_expression_leaves_the_config_to_decide() -> None:
    # mlrelease's own wheel workflow: runners and archs come from fromJSON(plan)
    workflow = (
        "jobs:\n  plan:\n    runs-on: ubuntu-24.04\n"
        "  build:\n    runs-on: ${{ matrix.runner }}\n    strategy:\n      matrix:\n"
        "        include: ${{ fromJSON(needs.plan.outputs.build) }}\n    steps:\n"
        "      - run: python -m cibuildwheel --platform $PLATFORM --archs $ARCHS\n"
    )
    pyproject = '[tool.cibuildwheel.windows]\narchs = ["AMD64", "ARM64"]\n'
    declared = platforms.declared_archs(toml(pyproject), {"wheels.yml": workflow})
    assert declared.archs == {
        "linux": ["x86_64", "aarch64"],
        "windows": ["AMD64", "ARM64"],
        "macos": ["x86_64", "arm64"],
    }
