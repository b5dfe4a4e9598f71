"""Version bumps (bump-my-version) and changelog generation (git-changelog) on real repos."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import REPO_ROOT
from helpers.projects import configure
from helpers.repo import commit_all, git

from mlrelease.cli import main

MakeRepo = Callable[..., Path]
FILES = ("pyproject.toml", "src/demo/__init__.py")


def contents(root: Path) -> dict[str, str]:
    return {f: (root / f).read_text() for f in FILES}


def test_bump_is_a_dry_run_by_default(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    before = contents(root)
    assert main(["--root", str(root), "bump", "--to", "1.5.0"]) == 0
    err = capsys.readouterr().err
    assert "1.4.0.dev0 -> 1.5.0" in err and "src/demo/__init__.py:3" in err and "Dry run" in err
    assert contents(root) == before


def test_bump_execute_rewrites_every_listed_file_then_is_a_noop(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    assert main(["--root", str(root), "bump", "--to", "1.5.0rc1", "--execute"]) == 0
    after = contents(root)
    assert 'version = "1.5.0rc1"' in after["pyproject.toml"]
    assert 'current_version = "1.5.0rc1"' in after["pyproject.toml"]
    assert '__version__ = "1.5.0rc1"' in after["src/demo/__init__.py"]
    assert main(["--root", str(root), "verify", "--only", "versions"]) == 0
    commit_all(root, "chore: bump")
    capsys.readouterr()
    assert main(["--root", str(root), "bump", "--to", "1.5.0rc1", "--execute"]) == 0
    assert "already 1.5.0rc1; nothing to do" in capsys.readouterr().err
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("part", "expected"), [("patch", "1.4.1.dev0"), ("minor", "1.5.0.dev0"), ("pre", "1.4.0.dev1")]
)
def test_bump_parts(make_repo: MakeRepo, part: str, expected: str) -> None:
    root = make_repo()
    assert main(["--root", str(root), "bump", "--part", part, "--execute"]) == 0
    assert f'__version__ = "{expected}"' in (root / "src/demo/__init__.py").read_text()


@pytest.mark.parametrize("verb", [("--to", "1.5.0"), ("--sync",)], ids=["to", "sync"])
def test_bump_refuses_another_bumpversion_config_and_writes_nothing(
    make_repo: MakeRepo, verb: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """bump-my-version reads a ``.bumpversion.cfg`` before pyproject.toml: the bump wrote
    that file's files and version, then said every file was restored while README.md and
    .bumpversion.cfg stayed changed. Two configurations of one version are refused before
    anything is written, naming the file; without it, the bump goes by the table."""
    root = make_repo()
    (root / ".bumpversion.cfg").write_text(
        "[bumpversion]\ncurrent_version = 1.4.0\n\n[bumpversion:file:README.md]\n"
    )
    (root / "README.md").write_text("demo 1.4.0\n")
    if verb == ("--sync",):
        (root / "src/demo/__init__.py").write_text('"""Demo."""\n\n__version__ = "1.4.0rc1"\n')
        text = (root / "pyproject.toml").read_text()
        text = text.replace('version = "1.4.0.dev0"', 'version = "1.4.0rc1"', 1)
        (root / "pyproject.toml").write_text(text)
    commit_all(root, "chore: an old bumpversion config")
    capsys.readouterr()
    assert main(["--root", str(root), "bump", *verb, "--execute"]) != 0
    assert ".bumpversion.cfg: configures bump-my-version too" in capsys.readouterr().err
    assert git(root, "status", "--porcelain") == ""
    git(root, "rm", "-q", ".bumpversion.cfg")
    commit_all(root, "chore: the version by pyproject.toml alone")
    assert main(["--root", str(root), "bump", *verb, "--execute"]) == 0
    assert (root / "README.md").read_text() == "demo 1.4.0\n"
    assert main(["--root", str(root), "verify", "--only", "versions"]) == 0


def test_bump_refuses_a_dirty_tree(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo()
    (root / "notes.txt").write_text("wip\n")
    before = contents(root)
    assert main(["--root", str(root), "bump", "--to", "1.5.0", "--execute"]) == 1
    assert "uncommitted changes (notes.txt)" in capsys.readouterr().err
    assert contents(root) == before


def test_bump_fails_when_a_file_lacks_the_old_version(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    module = root / "src" / "demo" / "__init__.py"
    module.write_text('__version__ = "0.0.1"\n')
    commit_all(root, "chore: drift")
    before = contents(root)
    assert main(["--root", str(root), "bump", "--to", "1.5.0", "--execute"]) == 1
    err = capsys.readouterr().err
    assert "src/demo/__init__.py: line 1: found `0.0.1`, expected `1.4.0.dev0`" in err
    assert contents(root) == before


def test_bump_rejects_non_canonical_versions(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    assert main(["--root", str(root), "bump", "--to", "1.5.0-rc1"]) == 2
    assert "use '1.5.0rc1'" in capsys.readouterr().err


def test_changelog_generated_from_angular_commits(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    git(root, "tag", "v1.3.0")
    git(root, "commit", "-q", "--allow-empty", "-m", "feat(ops): index custom domains")
    git(root, "commit", "-q", "--allow-empty", "-m", "fix(models): keep external data inside")
    git(root, "commit", "-q", "--allow-empty", "-m", "chore: tidy")
    before = (root / "CHANGELOG.md").read_text()
    assert main(["--root", str(root), "changelog"]) == 0
    out = capsys.readouterr().out
    assert "+- index custom domains" in out
    assert (root / "CHANGELOG.md").read_text() == before  # dry run wrote nothing
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    # The section is titled, and linked, by the tag the configured scheme gives 1.4.0.
    assert "## [v1.4.0]" in text and "### Features" in text and "### Bug Fixes" in text
    assert "- keep external data inside" in text and "tidy" not in text
    assert text.index("[v1.4.0]") < text.index("[v1.3.0]")


def test_changelog_links_point_at_the_declared_repository(make_repo: MakeRepo) -> None:
    root = make_repo()
    configure(root, "project.urls", {"Source": "https://github.com/example/demo"})
    commit_all(root, "feat: declare the repository")
    assert main(["--root", str(root), "changelog", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    head = git(root, "rev-parse", "HEAD")
    assert f"(https://github.com/example/demo/commit/{head})" in text
    assert "demo-origin" not in text  # the local origin remote is not used for links
    assert "mlrelease-changelog" not in git(root, "config", "--list")  # config untouched


def test_invoke_lists_the_release_tasks() -> None:
    repo = REPO_ROOT
    proc = subprocess.run(
        [sys.executable, "-m", "invoke", "--list"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "release.bump" in proc.stdout


def test_a_subject_is_shown_as_text_never_as_markdown(make_repo: MakeRepo) -> None:
    # A real subject of this repository ("... linked titles (# [0.2.0](link) (date) ...") made
    # the changelog link to `link`: the docs gate's Sphinx build failed on it under -W.
    root = make_repo()
    subject = "feat(init): read # [0.2.0](link) (date) titles, <br> and *stars* in `[a](b)`"
    git(root, "commit", "-q", "--allow-empty", "-m", subject)
    git(root, "commit", "-q", "--allow-empty", "-m", "fix: keep __init__ intact")
    assert main(["--root", str(root), "changelog", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    assert r"- read # \[0.2.0\](link) (date) titles, \<br\> and \*stars\* in `[a](b)` ([" in text
    assert r"- keep \_\_init\_\_ intact ([" in text


def test_a_hand_written_changelog_without_the_marker_is_adopted(make_repo: MakeRepo) -> None:
    """onnxmltools writes CHANGELOGS.md by hand (``## 1.14.0`` then its entries), with no
    git-changelog marker: prepare refused ("the line ... is missing"), so no version could be
    prepared. The new section goes above its newest one; what the maintainers wrote stays."""
    root = make_repo()
    hand = (
        "# Change Logs\n\n## 1.3.0\n\n* Add tweedie objective\n  [#722](https://x/722)\n\n"
        "## 1.2.0\n\n* Handle binary classifiers\n"
    )
    (root / "CHANGELOG.md").write_text(hand)
    commit_all(root, "docs: the changelog as the maintainers write it")
    git(root, "tag", "v1.2.0", "HEAD~1")
    git(root, "tag", "v1.3.0")
    git(root, "commit", "-q", "--allow-empty", "-m", "fix(models): keep external data inside")
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    assert text.endswith(hand[hand.index("## 1.3.0") :])  # their sections, byte for byte
    assert text.startswith("# Change Logs\n\n")
    assert text.count("## [v") == 1 and "## [v1.4.0]" in text  # one new section, no history
    assert text.index("[v1.4.0]") < text.index("## 1.3.0")
    assert "- keep external data inside" in text
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    assert (root / "CHANGELOG.md").read_text() == text  # a second run changes nothing
