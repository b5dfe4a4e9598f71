"""Acceptance 1: cut, two RCs, cherry-pick tracking, promotion of the second RC, on a real
repository with a bare origin; every command's second run reports nothing to do."""

from __future__ import annotations

import json
from collections.abc import Callable

from helpers.release import Repo

FIX = "fix: {what}\n\nRelease-Target: 1.4\n"
Run = Callable[..., tuple[int, str, str]]
"""The ``mlr`` fixture: ``mlrelease --root REPO ARGS...`` -> (exit code, stdout, stderr)."""


def test_full_release_flow(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    _cut(repo, mlr)
    _prepare(repo, mlr)
    rc1 = _rc1(repo, mlr)
    fix1, fix2 = _fixes_on_main(repo)
    _cherry_picks(repo, mlr, fix1, fix2)

    # rc2 on the picked fixes
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    rc2 = repo.git("rev-parse", "HEAD")
    assert repo.tags() == {"v1.4.0-rc1": rc1, "v1.4.0-rc2": rc2}

    _verify_and_promote(repo, mlr, rc2)
    _second_runs(mlr)


def _cut(repo: Repo, mlr: Run) -> None:
    main_head = repo.git("rev-parse", "main")

    # cut: branch, release-only edit on it, main -> 1.5.0.dev0
    code, _, err = mlr("release", "cut", "--version", "1.4", "--push")
    assert code == 0 and "dry run" in err
    assert repo.git("rev-parse", "main") == main_head  # a dry run changes nothing
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert repo.branch() == "release/1.4"
    assert "blob/release/1.4/" in (repo.path / "README.md").read_text()
    assert 'version = "1.5.0.dev0"' in repo.git("show", "main:pyproject.toml")
    assert '"1.4.0.dev0"' in repo.git("show", "release/1.4:src/demo/__init__.py")
    assert repo.origin_git("rev-parse", "release/1.4") == repo.git("rev-parse", "release/1.4")
    assert repo.origin_git("rev-parse", "main") == repo.git("rev-parse", "main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0 and "cut: nothing to do" in err


def _prepare(repo: Repo, mlr: Run) -> None:
    # prepare: 1.4.0 and its changelog section, one commit
    code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 0, err
    assert repo.git("log", "-1", "--format=%s") == "chore(release): prepare 1.4.0"
    assert "## [v1.4.0]" in (repo.path / "CHANGELOG.md").read_text()
    assert repo.status() == ""
    code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 0 and "prepare: nothing to do" in err


def _rc1(repo: Repo, mlr: Run) -> str:
    # rc1
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    rc1 = repo.git("rev-parse", "HEAD")
    assert repo.tags() == {"v1.4.0-rc1": rc1}
    assert repo.git("cat-file", "-t", "v1.4.0-rc1") == "tag"  # annotated
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0 and "rc: nothing to do" in err and "already v1.4.0-rc1" in err
    return rc1


def _fixes_on_main(repo: Repo) -> tuple[str, str]:
    # two fixes on main marked for 1.4; one is picked by hand (rebased: other SHA)
    repo.git("switch", "-q", "main")
    fix1 = repo.commit_file(
        "src/demo/core.py", "def answer() -> int:\n    return 43\n", FIX.format(what="answer 43")
    )
    repo.commit_file("src/demo/other.py", "X = 1\n", "feat: not for the release")
    fix2 = repo.commit_file("src/demo/extra.py", "Y = 2\n", FIX.format(what="add extra"))
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    repo.git("cherry-pick", fix1)
    assert repo.git("rev-parse", "HEAD") != fix1
    return fix1, fix2


def _cherry_picks(repo: Repo, mlr: Run, fix1: str, fix2: str) -> None:
    code, out, err = mlr("release", "cherry-picks", "--branch", "release/1.4")
    assert code == 0, err
    assert "1 of 2 picked, 1 missing" in out
    lines = {line for line in out.splitlines() if line.startswith("| - [")}
    assert any("picked" in line and fix1[:12] in line and "answer 43" in line for line in lines)
    assert any("missing" in line and fix2[:12] in line for line in lines)
    assert not any("not for the release" in line for line in out.splitlines())
    assert f"$ git cherry-pick -x {fix2}" in out
    code, out, err = mlr("release", "cherry-picks", "--execute", "--push")
    assert code == 0, err
    assert (repo.path / "src/demo/extra.py").exists()
    code, out, err = mlr("release", "cherry-picks", "--execute", "--push")
    assert code == 0 and "2 of 2 picked, 0 missing" in out and "nothing to do" in err


def _verify_and_promote(repo: Repo, mlr: Run, rc2: str) -> None:
    # verify rc2, then promote it
    code, _, err = mlr("verify")
    assert code == 0, err
    report = json.loads((repo.path / "build/release-verify/report.json").read_text())
    assert report["commit"] == rc2 and report["verdict"] == "pass"
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "no artifact manifest is bound to v1.4.0-rc2 on origin" in err
    repo.build()
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc2", "--execute", "--push")
    assert code == 0, err
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute", "--push"
    )
    assert code == 0, err
    assert "the index was not read (--published-elsewhere)" in err
    assert repo.tags()["v1.4.0"] == rc2
    assert repo.origin_git("rev-parse", "v1.4.0^{commit}") == rc2
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute", "--push"
    )
    assert code == 0 and "promote: nothing to do" in err


def _second_runs(mlr: Run) -> None:
    # every command's second run: nothing to do
    for args in (
        ["cut", "--version", "1.4"],
        ["prepare", "--version", "1.4.0"],
        ["rc"],
        ["cherry-picks"],
        ["promote", "--rc", "v1.4.0-rc2", "--published-elsewhere"],
    ):
        code, out, err = mlr("release", *args, "--execute", "--push")
        assert code == 0 and "nothing to do" in err, (args, err)
    code, out, err = mlr("release", "status", "--json")
    status = json.loads(out)
    assert status["tags"] == {
        "rc": ["v1.4.0-rc1", "v1.4.0-rc2"],
        "final": "v1.4.0",
        "local_only": [],
        "rebuilds": {},
    }
    assert status["release_verify"]["verdict"] == "pass" and status["release_verify"]["for_head"]
