"""The changelog of a real history: not every commit is a Conventional Commit."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.projects import configure
from helpers.repo import git

from mlrelease.cli import main

MakeRepo = Callable[..., Path]


def history(root: Path) -> None:
    git(root, "tag", "v1.3.0")
    git(root, "commit", "-q", "--allow-empty", "-m", "feat(ops): index custom domains")
    git(root, "commit", "-q", "--allow-empty", "-m", "Update the installation notes")
    git(root, "commit", "-q", "--allow-empty", "-m", "chore: tidy")


def test_other_changes_are_kept_and_a_dry_run_never_touches_the_file(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    history(root)
    path = root / "CHANGELOG.md"
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    time.sleep(0.05)
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0"]) == 0
    out = capsys.readouterr().out
    assert "+### Other changes" in out and "+- Update the installation notes" in out
    # Not written at all, not even written and put back.
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    first = path.read_bytes()
    text = first.decode()
    assert "### Features" in text and "### Other changes" in text and "### Misc" not in text
    assert "Update the installation notes" in text and "tidy" not in text  # chore: left out
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    assert path.read_bytes() == first  # a second run is byte-identical


def test_other_changes_can_be_left_out(make_repo: MakeRepo) -> None:
    root = make_repo()
    configure(root, "tool.mlrelease", {"changelog-other-changes": False})
    git(root, "commit", "-q", "-am", "chore: configure")
    history(root)
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    assert "index custom domains" in text and "Update the installation notes" not in text


@pytest.mark.parametrize("prefix", ["", "v"])
def test_links_use_the_configured_tag_scheme(make_repo: MakeRepo, prefix: str) -> None:
    root = make_repo()
    configure(root, "project.urls", {"Source": "https://github.com/example/demo"})
    scheme = prefix + "{major}.{minor}.{patch}"
    configure(root, "tool.mlrelease.release", {"tag": scheme, "rc-tag": scheme + "rc{rc}"})
    git(root, "commit", "-q", "-am", "chore: tag scheme")
    git(root, "tag", f"{prefix}1.3.0")
    git(root, "commit", "-q", "--allow-empty", "-m", "fix: a bug")
    assert main(["--root", str(root), "changelog", "--bump", "1.4.0", "--execute"]) == 0
    text = (root / "CHANGELOG.md").read_text()
    tag = f"{prefix}1.4.0"
    assert f"## [{tag}](https://github.com/example/demo/releases/tag/{tag})" in text
    assert f"compare/{prefix}1.3.0...{tag}" in text
