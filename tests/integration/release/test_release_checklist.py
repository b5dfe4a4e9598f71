"""Acceptance 3: the checklist killed (SIGKILL) after each step and inside the multi-file edits,
then re-run, finishes the release with no duplicate tag, no half-edited file, a complete ledger.
"""

from __future__ import annotations

import json
import signal
import subprocess

import pytest
from helpers.release import CHECKLIST_KILL_POINTS, Repo, run_mlrelease


def checklist(repo: Repo, *args: str, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_mlrelease(repo, "release", "checklist", "--version", "1.4.0", *args, fault=fault)


def ledger(repo: Repo) -> dict:  # type: ignore[type-arg]
    return json.loads((repo.path / "build/release/1.4.0/ledger.json").read_text())


def assert_released(repo: Repo) -> None:
    """The end state of an uninterrupted run, whatever happened on the way."""
    data = ledger(repo)
    assert data["complete"] and [s["status"] for s in data["steps"]] == ["done"] * 8
    for step in data["steps"]:
        assert step["exit_code"] == 0 and step["evidence"][0].endswith(f"{step['id']}.log")
        assert all((repo.path / e).exists() for e in step["evidence"])
    rc1 = repo.git("rev-parse", "release/1.4")
    assert repo.tags() == {"v1.4.0-rc1": rc1, "v1.4.0": rc1}  # no duplicate RC, final on rc1
    remote = repo.origin_git("for-each-ref", "--format=%(refname) %(*objectname)%(objectname)")
    refs = {line.split()[0] for line in remote.splitlines()}
    bound = [ref for ref in refs if ref.startswith("refs/mlrelease/bound/v1.4.0-rc1/")]
    assert len(bound) == 1, refs  # one binding, content-addressed: bound/<rc>/<sha256>
    assert refs - set(bound) == {
        "refs/heads/main",
        "refs/heads/release/1.4",
        "refs/tags/v1.4.0-rc1",
        "refs/tags/v1.4.0",
    }
    assert repo.origin_git("rev-parse", "release/1.4") == rc1
    assert repo.origin_git("rev-parse", "main") == repo.git("rev-parse", "main")
    assert repo.status() == ""  # no half-edited file
    assert not (repo.path / ".git" / "mlrelease-edit.json").exists()
    # one commit per edit: main = initial + bump; branch = initial + release-only edits + prepare
    assert repo.git("log", "--format=%s", "main").splitlines() == [
        "chore(release): open 1.5.0.dev0 on main after cutting release/1.4",
        "feat: first version of demo",
    ]
    assert repo.git("log", "--format=%s", "release/1.4").splitlines() == [
        "chore(release): prepare 1.4.0",
        "chore(release): release-only edits for release/1.4",
        "feat: first version of demo",
    ]
    for ref, version in (("main", "1.5.0.dev0"), ("release/1.4", "1.4.0")):
        assert f'version = "{version}"' in repo.git("show", f"{ref}:pyproject.toml")
        assert f'current_version = "{version}"' in repo.git("show", f"{ref}:pyproject.toml")
        assert f'__version__ = "{version}"' in repo.git("show", f"{ref}:src/demo/__init__.py")
    assert repo.git("show", "release/1.4:CHANGELOG.md").count("## [v1.4.0]") == 1
    assert "blob/release/1.4/" in repo.git("show", "release/1.4:README.md")
    assert "?ref=release/1.4" in repo.git("show", "release/1.4:docs/links.md")


@pytest.mark.slow
def test_checklist_runs_the_release_and_second_run_does_nothing(repo: Repo) -> None:
    dry = checklist(repo)
    assert dry.returncode == 0 and "Dry run: nothing run" in dry.stderr
    assert "pending  cut" in dry.stderr and repo.tags() == {}
    assert repo.git("for-each-ref", "refs/heads").count("refs/heads/") == 1
    first = checklist(repo, "--execute")
    assert first.returncode == 0, first.stderr
    assert "[8/8] promote" in first.stderr and "all 8 steps done" in first.stderr
    assert_released(repo)
    before = ledger(repo)
    again = checklist(repo, "--execute")
    assert again.returncode == 0 and again.stderr.count("not repeated") == 8
    assert ledger(repo)["steps"] == before["steps"]


# After each step (the step's command finished, the ledger not yet updated: the worst moment),
# and after every action of every release command the checklist runs (inside the multi-file
# edits, after a tag before its push, ...): the list is checked to hold every point a release
# passes (test_adv_kill_points.py).
FAULTS = CHECKLIST_KILL_POINTS


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
def test_killed_checklist_resumes_and_finishes(repo: Repo, fault: str) -> None:
    killed = checklist(repo, "--execute", fault=fault)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    data = ledger(repo)
    assert not data["complete"]
    running = [s["id"] for s in data["steps"] if s["status"] == "running"]
    assert len(running) == 1  # the step that was killed
    if fault == "cut:after:edit:README.md":  # really half-edited: one file new, one old
        assert "blob/release/1.4/" in (repo.path / "README.md").read_text()
        assert "?ref=main" in (repo.path / "docs/links.md").read_text()
    if fault == "prepare:after:bump":  # version files new, changelog old, nothing committed
        assert '__version__ = "1.4.0"' in (repo.path / "src/demo/__init__.py").read_text()
        assert "## [v1.4.0]" not in (repo.path / "CHANGELOG.md").read_text()
        assert repo.git("log", "-1", "--format=%s").startswith("chore(release): release-only")
    resumed = checklist(repo, "--execute")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert (
        f"[{1 + [s['id'] for s in data['steps']].index(running[0])}/8] {running[0]}: was "
        "interrupted" in resumed.stderr
    )
    assert_released(repo)
    runs = {s["id"]: s["runs"] for s in ledger(repo)["steps"]}
    assert runs == {s: (2 if s == running[0] else 1) for s in runs}  # nothing else repeated


MANUAL = """
[[tool.mlrelease.release.checklist]]
id = "announce"
title = "Announce the release"
task = "by hand: post the release notes"
run = []
"""


@pytest.mark.slow
def test_manual_step_waits_for_confirmation(repo: Repo) -> None:
    with (repo.path / "pyproject.toml").open("a") as handle:
        handle.write(MANUAL)
    repo.git("commit", "-q", "-am", "chore: add a manual step")
    first = checklist(repo, "--execute")
    assert first.returncode == 0, first.stderr
    assert "[9/9] announce: manual step: Announce the release" in first.stderr
    assert "--confirm announce" in first.stderr
    assert ledger(repo)["steps"][-1]["status"] == "pending" and not ledger(repo)["complete"]
    redo = checklist(repo, "--execute", "--redo", "rc-verify")
    assert redo.returncode == 0 and "[7/9] rc-verify: Verify the RC" in redo.stderr
    assert checklist(repo, "--execute", "--redo", "promote").returncode == 2  # mutating
    done = checklist(repo, "--execute", "--confirm", "announce")
    assert done.returncode == 0 and "all 9 steps done" in done.stderr
    data = ledger(repo)
    assert data["complete"] and data["steps"][-1]["note"] == "confirmed by hand"
    assert [s["runs"] for s in data["steps"]] == [1, 1, 1, 1, 1, 1, 2, 1, 0]


def test_ledger_folder_must_be_ignored(repo: Repo) -> None:
    (repo.path / ".gitignore").write_text("")
    repo.git("commit", "-q", "-am", "chore: ignore nothing")
    result = checklist(repo, "--execute")
    assert result.returncode == 1 and "is not ignored by git" in result.stderr
    assert "Add build/ to .gitignore" in " ".join(result.stderr.split())
    assert not (repo.path / "build").exists()
