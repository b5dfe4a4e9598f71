"""Checks of built artifacts that need no tool: the metadata's own version."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.dist import make_dist

from mlrelease.wheels import artifacts


@pytest.fixture
def built(tmp_path: Path) -> list[artifacts.Artifact]:
    (tmp_path / "src/demo").mkdir(parents=True)
    (tmp_path / "src/demo/__init__.py").write_text('"""demo."""\n', encoding="utf-8")
    return [artifacts.identify(p) for p in make_dist(tmp_path, tmp_path / "dist", "2.13.0")]


def test_the_metadata_carries_the_tags_version(built: list[artifacts.Artifact]) -> None:
    for artifact in built:
        assert artifacts.metadata_version(artifact) == "2.13.0"
        assert artifacts.check_metadata(artifact, "2.13.0") == []


def test_metadata_that_kept_the_files_marker_is_a_finding(
    built: list[artifacts.Artifact],
) -> None:
    """A build under version-source = "tag" that did not take the tag's version into the
    metadata (pip would install 2.13.0a0 from a file named 2.13.0)."""
    for artifact in built:
        (finding,) = artifacts.check_metadata(artifact, "2.13.1")
        assert finding.file == artifact.filename
        assert "Version: 2.13.0, expected 2.13.1" in finding.message
