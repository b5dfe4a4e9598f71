"""``previous-index = "auto"``: the index of the newest final release before this version, found
among the tags the project spells as releases (``[tool.mlrelease.release] tag``). A name that
merely holds a version (another package's ``plugin-1.3.5`` in the same repository, an RC, a
hand-made ``1.3.9``) is not a release of this project: the operator diff and the regression
check were made against it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.repo import commit_all, git

from mlrelease.naming import Names
from mlrelease.ops import diff

INDEX = "docs/indices/supported_ops.json"


def tagged(root: Path, tag: str, text: str) -> None:
    """Commit an index holding ``text`` and tag that commit ``tag``."""
    (root / INDEX).write_text(text, encoding="utf-8")
    commit_all(root, f"index at {tag}")
    git(root, "tag", tag)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / INDEX).parent.mkdir(parents=True)
    tagged(tmp_path, "v1.2.0", "1.2.0")
    tagged(tmp_path, "release-1.2.5", "release 1.2.5")
    tagged(tmp_path, "v1.3.0", "1.3.0")
    tagged(tmp_path, "plugin-1.3.5", "the plugin's own 1.3.5")
    tagged(tmp_path, "1.3.9", "hand-made")
    tagged(tmp_path, "v1.3.9-rc1", "an RC")
    tagged(tmp_path, "v1.4.0", "this release")
    return tmp_path


def previous(root: Path, names: Names) -> str | None:
    found = diff.load_previous(root, "auto", INDEX, "1.4.0", names, loads=lambda t, _: {"t": t})
    return None if found is None else found[0]


def test_the_previous_release_is_a_tag_of_the_configured_pattern(repo: Path) -> None:
    assert previous(repo, Names.compile("test")) == f"v1.3.0:{INDEX}"


def test_a_project_that_spells_its_tags_otherwise_finds_its_own(repo: Path) -> None:
    names = Names.compile("test", tag="release-{major}.{minor}.{patch}")
    assert previous(repo, names) == f"release-1.2.5:{INDEX}"


def test_no_tag_of_the_pattern_before_this_version_means_no_previous_index(repo: Path) -> None:
    names = Names.compile("test", tag="stable/{major}.{minor}.{patch}")
    assert previous(repo, names) is None
