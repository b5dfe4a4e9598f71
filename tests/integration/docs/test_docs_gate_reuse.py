"""The `docs` gate reuses a clean build of the same commit, tree, tags and environment; the
published site is judged every time."""

from __future__ import annotations

from pathlib import Path

from helpers.defects import text, verify
from helpers.projects import configure, single_gate, write
from helpers.repo import commit_all, git


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    write(root, single_gate.docs())
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "docs: demo")
    return root


def _built(root: Path) -> float:
    """When the last HTML build's log was written (a reused verdict writes none)."""
    return (root / "build/release-verify/evidence/docs/html.log").stat().st_mtime_ns


def test_a_clean_build_is_reused_until_the_tree_or_the_tags_change(tmp_path: Path) -> None:
    root = _project(tmp_path)
    first = verify(root, "docs")
    assert first["status"] == "pass" and "(reused:" not in first["summary"], first
    built = _built(root)

    second = verify(root, "docs")
    assert second["status"] == "pass" and "(reused:" in second["summary"], second
    assert "internal links resolve" in second["summary"] and _built(root) == built

    git(root, "tag", "v0.1.0rc1")  # a tag can change the versioned pages: build again
    third = verify(root, "docs")
    assert third["status"] == "pass", third
    assert "(reused:" not in third["summary"] and _built(root) != built

    # A warning in an uncommitted edit fails, and the failure is never reused.
    index = root / "docs/index.rst"
    index.write_text(index.read_text() + "\n.. toctree::\n\n   missing\n", encoding="utf-8")
    for _ in range(2):
        failed = verify(root, "docs")
        assert failed["status"] == "fail" and "(reused:" not in text(failed), failed

    # Opting out always builds.
    index.write_text("Demo\n====\n\nThe demo documentation.\n", encoding="utf-8")
    configure(root, "tool.mlrelease.gate-options.docs", {"reuse": False})
    commit_all(root, "build: never reuse")
    for _ in range(2):
        assert "(reused:" not in verify(root, "docs")["summary"]
