"""`invoke docs.freeze` on a real git project: two tags whose docs differ, frozen in a row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.docs_project import Frozen, Project, commit_version, git, invoke

pytestmark = pytest.mark.slow


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def page(site: Path, version: str, name: str = "index") -> str:
    return (site / version / f"{name}.html").read_text(encoding="utf-8")


def test_two_versions_frozen_in_a_row_give_one_site(frozen: Frozen) -> None:
    site = frozen.project.site
    for run in frozen.runs:
        assert run.returncode == 0, run.stdout + run.stderr
    assert "Froze 0.1.0 into build/site/0.1.0" in frozen.runs[0].stderr
    # Each folder shows its own version's text, and the version injected at build time
    # (conf.py says 0.0.0+unset).
    for version, feature, other in (("0.1.0", "Alpha", "Beta"), ("0.2.0", "Beta", "Alpha")):
        index, guide = page(site, version), page(site, version, "guide")
        assert f"The demo documentation: {feature}." in index
        assert f"Demo {feature}: the package docstring at {version}." in index
        assert f"How to use {feature}." in guide
        assert other not in index + guide
        assert f"<title>Demo &#8212; demo {version} documentation</title>" in index
        assert "0.0.0+unset" not in index
        assert f"theme_switcher_version_match = '{version}'" in index
    assert json.loads((site / "switcher.json").read_text(encoding="utf-8")) == [
        {"name": "0.2.0 (stable)", "version": "0.2.0", "url": "/0.2.0/", "preferred": True},
        {"name": "0.1.0", "version": "0.1.0", "url": "/0.1.0/"},
    ]
    assert 'url=0.2.0/"' in (site / "index.html").read_text(encoding="utf-8")
    assert (site / ".nojekyll").is_file()
    # The worktrees are gone and the repository is as it was.
    assert git(frozen.project.root, "worktree", "list").count("\n") == 0
    assert git(frozen.project.root, "status", "--porcelain") == ""
    assert git(frozen.project.root, "tag", "--list") == "v0.1.0\nv0.2.0"


def test_a_third_run_without_force_refuses_and_changes_nothing(frozen: Frozen) -> None:
    before = snapshot(frozen.project.site)
    run = invoke(frozen.project.root, "docs.freeze", "--version", "0.1.0", "--execute")
    assert run.returncode == 1
    assert "already holds the frozen docs of 0.1.0" in run.stderr
    assert "--force" in run.stderr
    assert snapshot(frozen.project.site) == before


def test_a_missing_tag_fails_naming_it(frozen: Frozen) -> None:
    before = snapshot(frozen.project.site)
    run = invoke(frozen.project.root, "docs.freeze", "--version", "0.9.0", "--execute")
    assert run.returncode == 1
    message = " ".join(run.stderr.split())
    assert "tag v0.9.0 does not exist" in message
    assert "Release tags found: v0.2.0, v0.1.0" in message
    assert snapshot(frozen.project.site) == before


def test_a_dry_run_shows_the_plan_and_writes_nothing(frozen: Frozen) -> None:
    before = snapshot(frozen.project.site)
    run = invoke(frozen.project.root, "docs.freeze", "--version", "v0.1.0", "--force")
    assert run.returncode == 0, run.stderr
    assert "Replace build/site/0.1.0 with the docs of 0.1.0, built from v0.1.0" in run.stderr
    assert "Dry run: nothing written" in run.stderr
    assert snapshot(frozen.project.site) == before


@pytest.fixture
def copy(frozen: Frozen, tmp_path: Path) -> Project:
    """A copy of the frozen project (repository, origin and site) that a test may change."""
    shutil.copytree(frozen.project.root, tmp_path / "demo", symlinks=True)
    shutil.copytree(frozen.project.origin, tmp_path / "origin.git", symlinks=True)
    git(tmp_path / "demo", "remote", "set-url", "origin", str(tmp_path / "origin.git"))
    return Project(tmp_path / "demo", tmp_path / "origin.git")


def test_force_rebuilds_a_frozen_version(copy: Project) -> None:
    (copy.site / "0.1.0" / "stale.html").write_text("left over", encoding="utf-8")
    switcher_before = (copy.site / "switcher.json").read_bytes()
    run = invoke(copy.root, "docs.freeze", "--version", "0.1.0", "--force", "--execute")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not (copy.site / "0.1.0" / "stale.html").exists()
    assert "The demo documentation: Alpha." in page(copy.site, "0.1.0")
    assert (copy.site / "switcher.json").read_bytes() == switcher_before
    assert sorted(p.name for p in copy.site.iterdir()) == [
        ".nojekyll",
        "0.1.0",
        "0.2.0",
        "index.html",
        "switcher.json",
    ]


def test_a_failing_build_leaves_the_site_as_it_was(copy: Project) -> None:
    commit_version(copy.root, "0.2.1", "Broken")
    conf = copy.root / "docs" / "conf.py"
    conf.write_text(
        conf.read_text(encoding="utf-8") + "raise RuntimeError('broken conf')\n", encoding="utf-8"
    )
    git(copy.root, "commit", "--quiet", "-am", "docs: break the build")
    git(copy.root, "tag", "v0.2.1")
    before = snapshot(copy.site)
    run = invoke(copy.root, "docs.freeze", "--version", "0.2.1", "--execute")
    assert run.returncode == 1
    assert "Sphinx failed building v0.2.1" in run.stderr
    assert "the site was not changed" in run.stderr
    assert snapshot(copy.site) == before
    assert git(copy.root, "worktree", "list").count("\n") == 0


def test_dev_docs_go_to_main_in_a_site_checkout_and_are_committed(copy: Project) -> None:
    pages_checkout = copy.root.parent / "gh-pages"
    pages_checkout.mkdir()
    git(pages_checkout, "init", "--quiet", "-b", "gh-pages")
    git(pages_checkout, "config", "user.name", "Docs Test")
    git(pages_checkout, "config", "user.email", "docs@example.invalid")
    git(pages_checkout, "commit", "--quiet", "--allow-empty", "-m", "docs: start the site")
    run = invoke(copy.root, "docs.freeze", "--dev", "--site", str(pages_checkout), "--execute")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "The demo documentation: Gamma." in page(pages_checkout, "main")
    assert "theme_switcher_version_match = 'main'" in page(pages_checkout, "main")
    assert json.loads((pages_checkout / "switcher.json").read_text(encoding="utf-8")) == [
        {"name": "main", "version": "main", "url": "/main/"},
    ]
    assert git(pages_checkout, "log", "-1", "--format=%s").startswith(
        "docs: freeze main dev docs from HEAD"
    )
    assert git(pages_checkout, "status", "--porcelain") == ""
    assert "push origin HEAD:gh-pages" in run.stderr
    # A dirty site checkout is refused before anything is built.
    (pages_checkout / "notes.txt").write_text("uncommitted", encoding="utf-8")
    run = invoke(copy.root, "docs.freeze", "--dev", "--site", str(pages_checkout), "--execute")
    assert run.returncode == 1
    assert "has uncommitted changes (notes.txt)" in " ".join(run.stderr.split())
