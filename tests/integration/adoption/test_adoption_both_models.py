"""Defaults and docs for both version models (issue 53): init proposes the picks mode the
history shows; `release cut --help` and the checklist page say what each model does; every
command accepts the tag spellings init proposes."""

from __future__ import annotations

from pathlib import Path

import tomllib
from helpers.dist import make_dist
from helpers.projects import bump_model, write
from helpers.release import Repo
from helpers.replayed import push_audio, push_vision
from helpers.repo import mlrelease


def _tool(repo: Repo) -> dict[str, object]:
    proc = mlrelease(repo.path, "init")
    assert proc.returncode == 0, proc.stderr
    tool: dict[str, object] = tomllib.loads(proc.stdout)["tool"]
    return tool


def test_init_proposes_fixes_when_the_branches_pick_by_hand(tmp_path: Path) -> None:
    """torchvision's release/0.17 holds a fix picked by hand (``cherry-pick -x``, no
    Release-Target trailer anywhere): the PyTorch family's ``picks = "fixes"``."""
    release = _tool(push_vision(tmp_path))["mlrelease"]["release"]  # type: ignore[index]
    assert release["picks"] == "fixes", release


def test_init_keeps_the_trailer_without_evidence_of_picks(tmp_path: Path) -> None:
    release = _tool(push_audio(tmp_path))["mlrelease"]["release"]  # type: ignore[index]
    assert "picks" not in release, release


def test_cut_help_says_what_each_version_model_does(tmp_path: Path) -> None:
    proc = mlrelease(tmp_path, "release", "cut", "--help")
    said = " ".join(proc.stdout.split())
    assert proc.returncode == 0
    assert 'version-source = "tag"' in said, said
    assert "main keeps its marker" in said or "X.Y+1.0a0" in said, said


def test_the_checklist_page_of_a_tag_model_project_says_what_it_does(tmp_path: Path) -> None:
    repo = push_vision(tmp_path)
    proc = mlrelease(repo.path, "init", "--execute")
    assert proc.returncode == 0, proc.stderr
    assert 'version-source = "tag"' in (repo.path / "pyproject.toml").read_text()
    page = mlrelease(repo.path, "release", "checklist-doc")
    text = " ".join(page.stdout.split())
    assert "next .dev version" not in text, text
    assert "carry the final version" not in text and "Bump the version" not in text, text
    assert "0.18.0a0" in text or "X.Y+1.0a0" in text, text


def test_wheels_collect_accepts_the_pep440_rc_spelling(tmp_path: Path) -> None:
    """init proposes ``v{major}.{minor}.{patch}rc{rc}`` to a project with no RC tags; the RC's
    CI collect job passes that tag."""
    root = write(tmp_path / "demo", bump_model.files(version="0.1.0rc1"))
    make_dist(root, tmp_path / "downloads" / "job", "0.1.0rc1", readme="# demo")
    downloads, dist = str(tmp_path / "downloads"), str(tmp_path / "dist")
    collect = ("wheels", "collect", downloads, "--output", dist, "--release-tag", "v0.1.0rc1")
    proc = mlrelease(root, *collect)
    assert proc.returncode == 0, proc.stdout + proc.stderr
