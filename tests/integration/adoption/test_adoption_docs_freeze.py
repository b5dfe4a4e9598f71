"""`docs freeze` of a tag older than the project's docs dependency group."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docs_project import commit_version, git, invoke, make_project

pytestmark = pytest.mark.slow


def test_a_tag_predating_the_docs_group_builds_with_the_current_config(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    root = project.root
    # A release made before the project declared [dependency-groups] docs.
    commit_version(root, "0.2.1", "Delta")
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    start = text.index("[dependency-groups]")
    pyproject.write_text(text[:start] + text[text.index("[tool.mlrelease.docs]") :])
    git(root, "commit", "--quiet", "-am", "build: no dependency groups yet")
    git(root, "tag", "v0.2.1")
    commit_version(root, "0.3.0.dev0", "Gamma")  # main declares the group again
    run = invoke(root, "docs.freeze", "--version", "0.2.1", "--execute")
    assert run.returncode == 0, run.stdout + run.stderr
    html = (project.site / "0.2.1" / "index.html").read_text(encoding="utf-8")
    assert "The demo documentation: Delta." in html
