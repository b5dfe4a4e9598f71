"""Issue 48: what a release is declared to be, and what its metadata promises.

- The metadata-only path (no wheel of the commit builds here) is an exception the project
  declares: a pure project never falls to it silently, and when it applies every member that
  is not compiled code is still compared (with the sdist's files).
- The declared file set is checked against the release's ``Requires-Python``: a native
  project's CPython that no wheel serves is refused unless declared unserved; an sdist is not
  assumed to serve it (torch 2.5.0: ``>=3.8`` and no cp38 wheel, bound today whenever an sdist
  is in the set).

Real repositories, real builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.dist import build_dist
from helpers.reference_builds import (
    NATIVE_WHEEL,
    PYTHON,
    WHEEL,
    git_env,
    mixed_dist,
    native,
    project,
    refused,
    to_rc,
    write,
)

GENERATED = """
[tool.hatch.build.targets.wheel.force-include]
"generated/kernels.json" = "demo/kernels.json"
"""
DECLARED = """
[tool.mlrelease.wheels.accept]
metadata-only = "the wheel ships generated/kernels.json, which CI's codegen step writes"
"""


def _generated(files: dict[str, str], declared: str = "") -> None:
    """The demo, whose wheel ships a file CI generates before building (git-ignored, not in
    the sdist): no wheel builds from the commit alone."""
    files["pyproject.toml"] = (
        files["pyproject.toml"].replace(
            '[tool.mlrelease.wheels]\nkind = "pure"\n',
            '[tool.mlrelease.wheels]\nkind = "pure"\n' + declared,
        )
        + GENERATED
    )
    files[".gitignore"] += "generated/\n"
    files["src/demo/ops.json"] = '{"Add": 13}\n'


def _stale(repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The RC's fix is in package data (ops.json); dist/ holds the previous build's wheel (CI
    generated kernels.json, then built) and the RC's sdist."""
    write(repo.path / "generated/kernels.json", '{"kernels": 1}\n')
    both = ("--sdist", "--wheel")  # the wheel from the tree: the sdist lacks generated/
    fix = lambda root: write(root / "src/demo/ops.json", '{"Add": 14}\n')  # noqa: E731
    to_rc(repo, fix, "build/stale", both)
    build_dist(repo.path, repo.path / "build/fresh", *both)
    mixed_dist(repo, "build/stale", "build/fresh")


def test_a_pure_project_never_falls_to_the_metadata_path_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_env(monkeypatch)
    repo = project(tmp_path / "g", _generated)
    _stale(repo, tmp_path)
    refused(repo, "no wheel of", "metadata-only", "tool.mlrelease.wheels.accept")


def test_the_declared_metadata_path_still_compares_every_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_env(monkeypatch)
    repo = project(tmp_path / "g", lambda files: _generated(files, DECLARED))
    _stale(repo, tmp_path)
    refused(repo, WHEEL, "demo/ops.json", "differs from the sdist")


def test_a_python_that_no_wheel_serves_is_refused_with_an_sdist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay of torch 2.5.0: ``requires-python`` admits a CPython older than every wheel;
    the sdist does not serve it (pip would build from source, as no wheel exists)."""
    git_env(monkeypatch)
    minor = int(PYTHON.split(".")[1])
    older = f"3.{minor - 1}"

    def change(files: dict[str, str]) -> None:
        native(files)
        files["pyproject.toml"] = files["pyproject.toml"].replace(
            f'requires-python = ">={PYTHON}"', f'requires-python = ">={older}"'
        )

    repo = project(tmp_path / "t", change)
    to_rc(repo)
    build_dist(repo.path, repo.path / "dist")
    assert (repo.path / "dist" / NATIVE_WHEEL).is_file()
    refused(repo, f"CPython {older}", "unserved-pythons")
