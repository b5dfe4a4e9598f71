"""Acceptance 4: the dry run lists exactly the git commands that --execute then runs.

The executed commands are not taken from mlrelease's own output but from git itself
(``GIT_TRACE``), so a command run behind the plan's back would show up. A push names its refs
in the dry run (``refs/heads/B:refs/heads/B``); executed, it sends the objects its gatekeeper
read, by SHA, with a lease on each branch (``pushes.sent``), and prints that form too: the traced
push is that form, each SHA the one its ref names once the command is done.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from helpers.release import Repo

# git subcommands that change refs, the index or the work tree (the release flow's queries use
# plumbing: for-each-ref, rev-parse, show, ls-remote, cherry, patch-id, status, log).
MUTATING = {
    "branch",
    "switch",
    "checkout",
    "commit",
    "tag",
    "push",
    "cherry-pick",
    "restore",
    "reset",
    "merge",
    "rebase",
    "update-ref",
    "worktree",
    "am",
    "revert",
}


def planned(out: str) -> list[list[str]]:
    return [shlex.split(line[2:]) for line in out.splitlines() if line.startswith("$ git ")]


def traced(path: Path) -> list[list[str]]:
    commands = []
    for line in path.read_text().splitlines():
        if "trace: built-in: git " not in line:
            continue
        argv = shlex.split(line.split("trace: built-in: ", 1)[1])
        sub = argv[1]
        if sub == "tag" and not {"-a", "-d", "-f"} & set(argv):
            continue  # `git tag --list` (bump-my-version asks for the tags)
        if sub == "branch" and all(a.startswith("-") for a in argv[2:]):
            continue  # a listing
        if sub in MUTATING:
            commands.append(argv)
    return commands


def by_name(repo: Repo, command: list[str]) -> list[str]:
    """A traced push as the dry run names it: each ``<object>:<ref>`` as ``<ref>:<ref>`` (the
    object checked to be what the ref names now), each branch's lease dropped."""
    if command[1] != "push":
        return command
    shown = []
    for arg in command:
        if arg.startswith("--force-with-lease=refs/heads/"):
            continue
        sha, sep, ref = arg.partition(":")
        if sep and ref.startswith("refs/") and not sha.startswith("refs/"):
            assert repo.git("rev-parse", ref) == sha, (ref, sha)
            arg = f"{ref}:{ref}"
        shown.append(arg)
    return shown


def check_same(
    repo: Repo,
    mlr,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    *args: str,
) -> list[list[str]]:
    code, out, err = mlr(*args, "--push")
    assert code == 0, err
    dry = planned(out)
    assert dry, f"{args}: the dry run planned no git command"
    trace = tmp_path / f"trace-{len(list(tmp_path.glob('trace-*')))}.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    code, out, err = mlr(*args, "--push", "--execute")
    monkeypatch.delenv("GIT_TRACE")
    assert code == 0, err
    assert planned(out) == dry  # execution echoes the same lines
    # and git ran exactly those commands, in that order
    assert [by_name(repo, c) for c in traced(trace)] == dry
    assert "  sent as: git push --atomic" in out
    code, out, err = mlr(*args, "--push", "--execute")
    assert code == 0 and "nothing to do" in err and planned(out) == []
    return dry


def test_dry_run_lists_the_git_commands_execute_runs(
    repo: Repo, mlr, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    repo.git("switch", "-q", "-c", "feature")  # cut must switch to main, then to the branch
    cut = check_same(repo, mlr, monkeypatch, tmp_path, "release", "cut", "--version", "1.4")
    assert [c[1] for c in cut] == ["branch", "switch", "commit", "switch", "commit", "push"]
    prepare = check_same(
        repo, mlr, monkeypatch, tmp_path, "release", "prepare", "--version", "1.4.0"
    )
    assert [c[1] for c in prepare] == ["commit", "push"]
    rc = check_same(repo, mlr, monkeypatch, tmp_path, "release", "rc")
    assert rc[0][:5] == ["git", "tag", "-a", "v1.4.0-rc1", "-m"]
    repo.git("switch", "-q", "main")
    repo.commit_file(
        "src/demo/core.py",
        "def answer() -> int:\n    return 43\n",
        "fix: 43\n\nRelease-Target: 1.4\n",
    )
    repo.git("push", "-q", "origin", "main")  # main's fixes are origin's
    picks = check_same(
        repo, mlr, monkeypatch, tmp_path, "release", "cherry-picks", "--branch", "release/1.4"
    )
    assert [c[1] for c in picks] == ["switch", "cherry-pick", "push"]
    check_same(repo, mlr, monkeypatch, tmp_path, "release", "rc")
    assert mlr("verify")[0] == 0
    repo.build()
    assert mlr("release", "bind", "--rc", "v1.4.0-rc2", "--execute", "--push")[0] == 0
    promote = check_same(
        repo,
        mlr,
        monkeypatch,
        tmp_path,
        "release",
        "promote",
        "--rc",
        "v1.4.0-rc2",
        "--published-elsewhere",
    )
    assert promote == [
        [
            "git",
            "tag",
            "-a",
            "v1.4.0",
            repo.git("rev-parse", "v1.4.0-rc2^{commit}"),
            "-m",
            "1.4.0 (promoted from v1.4.0-rc2)",
            "-m",
            "Made-by: mlrelease release promote",
            "-m",
            "Mlrelease-Manifest-SHA256: " + promote[0][-1].rsplit(" ", 1)[-1],
        ],
        ["git", "push", "--atomic", "origin", "refs/tags/v1.4.0:refs/tags/v1.4.0"],
    ]
