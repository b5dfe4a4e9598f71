"""This repository's own docs (real Sphinx builds) and the checks of a broken project."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.docs_project import REPO_ROOT

from mlrelease import cli
from mlrelease.docs import pages, service
from mlrelease.docs.config import DocsConfig
from mlrelease.registry import load_config


def test_generated_pages_equal_a_fresh_regeneration() -> None:
    assert cli.main(["--root", str(REPO_ROOT), "docs", "generate", "--check"]) == 0


def test_generated_pages_list_every_session_and_task_and_nothing_machine_specific() -> None:
    generated = {p.path: p.text for p in pages.generate(REPO_ROOT, "docs")}
    sessions = generated["docs/reference/nox-sessions.md"]
    tasks = generated["docs/reference/invoke-tasks.md"]
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "--list", "-k", "True"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    names = [line.split()[1] for line in listed.splitlines() if line[:2] in ("* ", "- ")]
    assert "docs" in names and "tests" in names
    for name in names:
        assert f"| `{name}` |" in sessions
    for task in ("docs.build", "docs.serve", "docs.freeze", "docs.generate"):
        assert f"## `invoke {task}`" in tasks
    for text in (sessions, tasks):
        assert str(REPO_ROOT) not in text
        assert sys.executable not in text
        assert ".".join(map(str, sys.version_info[:3])) not in text


def broken_project(root: Path) -> Path:
    """A Sphinx project with a reference to a missing page and a link to a missing file."""
    (root / "docs").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.mlrelease.docs]\n", encoding="utf-8")
    (root / "docs" / "conf.py").write_text('project = "broken"\n', encoding="utf-8")
    (root / "docs" / "index.rst").write_text(
        textwrap.dedent("""\
        Broken
        ======

        See `the notes <notes.txt>`_ and :doc:`{target}`.
    """),
        encoding="utf-8",
    )
    return root


@pytest.mark.slow
def test_a_broken_reference_fails_the_build_naming_the_file(tmp_path: Path) -> None:
    root = broken_project(tmp_path)
    index = root / "docs" / "index.rst"
    index.write_text(index.read_text(encoding="utf-8").format(target="missing"), encoding="utf-8")
    config = load_config(root)
    outcome = service.build(
        config, config.table(DocsConfig), tmp_path / "out", logs=tmp_path / "logs"
    )
    assert not outcome.ok
    problems = outcome.problems()
    assert any("index.rst:4" in p and "unknown document: 'missing'" in p for p in problems)
    assert outcome.links is None  # not run: it would repeat the same warnings
    assert cli.main(["--root", str(root), "docs", "build", "--out", str(tmp_path / "o2")]) == 1


@pytest.mark.slow
def test_the_link_check_finds_a_link_to_a_missing_file(tmp_path: Path) -> None:
    root = broken_project(tmp_path)
    index = root / "docs" / "index.rst"
    index.write_text(index.read_text(encoding="utf-8").format(target="index"), encoding="utf-8")
    config = load_config(root)
    outcome = service.build(
        config, config.table(DocsConfig), tmp_path / "out", logs=tmp_path / "logs"
    )
    assert outcome.html is not None and outcome.html.ok
    assert not outcome.ok
    assert any("link check" in p and "notes.txt" in p for p in outcome.problems())
    (root / "docs" / "notes.txt").write_text("notes", encoding="utf-8")
    assert service.build(
        config, config.table(DocsConfig), tmp_path / "out", logs=tmp_path / "logs"
    ).ok
