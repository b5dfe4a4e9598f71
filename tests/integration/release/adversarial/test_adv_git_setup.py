"""mlrelease's git commands mean the same whatever the user's git setup or clone (#38): a tag
named like a branch, user configuration (followTags, pushurl, hooks), the environment (GIT_DIR),
a shallow clone, a linked worktree, a chain of reverts and relands, and tags only this clone (or
a fork) has. Each test failed on the code before the hermetic git edge."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.release import Repo, tag_rc

FIX = "fix: answer 43\n\nRelease-Target: 1.4\n"


def _cut_with_fix(repo: Repo, mlr) -> str:  # type: ignore[no-untyped-def]
    """release/1.4 cut and pushed; a fix for 1.4 on main (pushed); release/1.4 checked out."""
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    repo.git("switch", "-q", "main")
    fix = repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", FIX)
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    return fix


def test_a_tag_named_like_the_branch_is_not_read_as_the_branch(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    cut_point = repo.git("rev-parse", "main")
    fix = _cut_with_fix(repo, mlr)
    repo.git("cherry-pick", "-x", fix)
    repo.git("revert", "--no-edit", "HEAD")  # the pick was reverted on the branch
    repo.git("tag", "release/1.4", cut_point)  # a tag spelled like the branch, at the cut
    head = repo.git("rev-parse", "refs/heads/release/1.4")
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "0 of 1 picked, 0 missing, 1 reverted" in out
    assert repo.git("rev-parse", "refs/heads/release/1.4") == head  # not picked again


def test_a_revert_of_a_revert_relands_the_fix(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    fix = _cut_with_fix(repo, mlr)
    repo.git("switch", "-q", "main")
    repo.git("revert", "--no-edit", fix)
    repo.git("revert", "--no-edit", "HEAD")  # the reland: main has the fix again
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    code, out, err = mlr("release", "cherry-picks")
    assert code == 0, err
    assert "withdrawn" not in out and "missing" in out
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert repo.git("show", "HEAD:src/demo/core.py").strip().endswith("return 43")
    # A third revert withdraws it again.
    repo.git("switch", "-q", "main")
    repo.git("revert", "--no-edit", "HEAD")
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    code, out, err = mlr("release", "cherry-picks")
    assert code == 0 and "withdrawn" in out, out


def test_follow_tags_does_not_carry_a_hand_made_tag(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    repo.git("config", "push.followTags", "true")
    repo.git("tag", "-a", "v1.4.0", "-m", "by hand", "main")  # no manifest, no report
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("rev-parse", "--verify", "refs/heads/release/1.4")
    assert repo.tag_everywhere("v1.4.0") == ("v1.4.0", "")  # never reached origin


def test_a_push_url_elsewhere_is_refused_before_anything_changes(
    repo: Repo, mlr, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    fork = tmp_path / "fork.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.origin), str(fork)], check=True)
    repo.git("config", "remote.origin.pushurl", str(fork))
    main = repo.git("rev-parse", "main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 1, err
    assert str(fork) in err and str(repo.origin) in err and "pushurl" in err
    assert repo.git("rev-parse", "main") == main and repo.branch() == "main"
    assert not repo.git("branch", "--list", "release/1.4")
    refs = subprocess.run(["git", "for-each-ref"], cwd=fork, capture_output=True, text=True)
    assert "release/1.4" not in refs.stdout
    repo.git("config", "--unset", "remote.origin.pushurl")  # the user says: origin is the truth
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0


def test_hooks_do_not_run_for_mlrelease_commands(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    hooks = Path(repo.git("rev-parse", "--git-path", "hooks"))
    hooks = hooks if hooks.is_absolute() else repo.path / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    for name in ("pre-commit", "pre-push"):
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\ntouch '{repo.path.parent}/{name}-ran'\nexit 1\n")
        hook.chmod(0o755)
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert not list(repo.path.parent.glob("*-ran"))
    assert repo.origin_git("rev-parse", "--verify", "refs/heads/release/1.4")


def test_the_environment_cannot_point_git_at_another_repository(
    repo: Repo, mlr, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(repo.origin), str(other)], check=True)
    subprocess.run(["git", "switch", "-q", "-c", "elsewhere"], cwd=other, check=True)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    code, out, err = mlr("release", "status", "--json")
    assert code == 0, err
    assert '"branch": "main"' in out and "elsewhere" not in out


def test_a_shallow_clone_is_refused_with_the_command_that_deepens_it(
    repo: Repo, mlr, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from mlrelease.cli import main

    fix = _cut_with_fix(repo, mlr)
    repo.git("cherry-pick", "-x", fix)
    repo.git("revert", "--no-edit", "HEAD")
    repo.git("push", "-q", "origin", "release/1.4")
    shallow = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            "-b",
            "release/1.4",
            f"file://{repo.origin}",
            str(shallow),
        ],
        check=True,
    )
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=shallow, capture_output=True)
    code = main(["--root", str(shallow), "release", "cherry-picks", "--execute"])
    assert code == 1
    after = subprocess.run(["git", "rev-parse", "HEAD"], cwd=shallow, capture_output=True)
    assert after.stdout == head.stdout  # the reverted fix was not picked again
    subprocess.run(["git", "fetch", "-q", "--unshallow", "origin"], cwd=shallow, check=True)
    assert main(["--root", str(shallow), "release", "cherry-picks"]) == 0


def test_the_shallow_refusal_says_how_to_deepen(repo: Repo, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from mlrelease.cli import main

    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo.origin}", str(shallow)], check=True
    )
    subprocess.run(["git", "switch", "-q", "-c", "release/1.4"], cwd=shallow, check=True)
    capsys.readouterr()
    assert main(["--root", str(shallow), "release", "cherry-picks"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "shallow" in err and "git fetch --unshallow origin" in err


def test_a_final_tag_only_this_clone_has_is_not_a_release(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    tag_rc(mlr)
    repo.git("tag", "-a", "v1.4.0", "-m", "by hand, never pushed")
    repo.git("tag", "-a", "v1.4.0-rc7", "-m", "a fork's", "HEAD")  # fetched from a fork
    repo.commit_file("src/demo/extra.py", "X = 1\n", "fix: one more for 1.4")
    code, out, err = mlr("release", "rc")
    assert code == 0, err
    assert "v1.4.0-rc2" in out and "released" not in err
    code, out, err = mlr("release", "status")
    assert code == 0, err
    assert "in this clone and not on origin" in out and "v1.4.0-rc7" in out and "v1.4.0-rc2" in out


def test_bind_in_a_linked_worktree_keeps_the_store_when_the_worktree_goes(
    candidate: Repo, mlr, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from mlrelease.cli import main
    from mlrelease.edges import git

    worktree = tmp_path / "wt"
    candidate.git("worktree", "add", "-q", "--detach", str(worktree), "v1.4.0-rc1")
    store = git.common_dir(worktree) / "mlrelease" / "store"
    objects = sorted(p.name for p in store.iterdir())
    for path in store.iterdir():  # emptied: bind in the worktree must fill the shared store
        path.chmod(0o644)
        path.unlink()
    dist = candidate.path / "dist"
    code = main(
        [
            "--root",
            str(worktree),
            "release",
            "bind",
            "--rc",
            "v1.4.0-rc1",
            "--artifacts",
            str(dist),
            "--execute",
        ]
    )
    assert code == 0
    candidate.git("worktree", "remove", "--force", str(worktree))
    assert sorted(p.name for p in store.iterdir()) == objects
    assert not (candidate.path / ".git" / "worktrees" / "wt").exists()


def test_a_remote_set_to_run_other_programs_is_refused(repo: Repo, mlr, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """``receivepack`` pointed at a fork's: the push went there, and cut said done."""
    fork = tmp_path / "fork.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.origin), str(fork)], check=True)
    repo.git("config", "remote.origin.receivepack", f"git receive-pack {fork}; true")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 1 and "remote.origin.receivepack" in err, err
    assert not repo.git("branch", "--list", "release/1.4")
    refs = subprocess.run(["git", "for-each-ref"], cwd=fork, capture_output=True, text=True)
    assert "release/1.4" not in refs.stdout


def test_a_reverted_merge_and_a_squashed_revert_withdraw_every_fix(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    repo.git("switch", "-q", "main")
    repo.git("switch", "-q", "-c", "feat")
    merged = repo.commit_file("src/demo/a.py", "A = 1\n", "fix: a\n\nRelease-Target: 1.4\n")
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "feat")
    repo.git("revert", "--no-edit", "-m", "1", "HEAD")  # the merge reverted: a is withdrawn
    one = repo.commit_file("src/demo/b.py", "B = 1\n", "fix: b\n\nRelease-Target: 1.4\n")
    two = repo.commit_file("src/demo/c.py", "C = 1\n", "fix: c\n\nRelease-Target: 1.4\n")
    repo.git("rm", "-q", "src/demo/b.py", "src/demo/c.py")
    repo.git(
        "commit",
        "-q",
        "-m",
        f"Revert b and c (#9)\n\nThis reverts commit {two}.\n\nThis reverts commit {one}.\n",
    )  # what GitHub writes when it squashes a revert of two commits
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    head = repo.git("rev-parse", "HEAD")
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    withdrawn = [line for line in out.splitlines() if "withdrawn" in line]
    assert all(any(sha[:12] in line for line in withdrawn) for sha in (merged, one, two)), out
    assert repo.git("rev-parse", "HEAD") == head  # nothing picked


def test_settings_that_rewrite_messages_trailers_or_history_change_nothing(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """core.commentChar stripped the RC tag's "Made-by:" line and hid the trailers;
    trailer.separators hid them too; a grafts file rewrote history."""
    fix = _cut_with_fix(repo, mlr)
    repo.git("switch", "-q", "main")
    repo.git("revert", "--no-edit", fix)
    later = repo.commit_file("src/demo/later.py", "L = 1\n", "feat: later")
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    repo.git("config", "core.commentChar", "R")
    repo.git("config", "trailer.separators", "=")
    repo.git("config", "column.ui", "always")
    (repo.path / ".git/info").mkdir(exist_ok=True)
    (repo.path / ".git/info/grafts").write_text(f"{later} {fix}\n")  # later's parent: the fix
    code, out, err = mlr("release", "cherry-picks")
    assert code == 0, err
    assert "withdrawn" in out and fix[:12] in out, out
    (repo.path / ".git/info/grafts").unlink()
    repo.git("config", "core.commentChar", "M")  # "Made-by:" would be a comment line
    assert mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")[0] == 0
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert "Made-by: mlrelease release rc" in repo.origin_git("cat-file", "-p", "v1.4.0-rc1")


def test_attribute_filters_do_not_change_what_is_read(repo: Repo) -> None:
    """A smudge filter (here rewriting the version on checkout) changes what a checkout
    writes, never what mlrelease reads of a commit: committed blobs are read as stored; only
    :func:`git.blob_bytes` with ``filters=True`` asks what a checkout would write."""
    from mlrelease.edges import git
    from mlrelease.release.world import queries

    repo.git("config", "filter.evil.smudge", "sed s/1.4.0.dev0/9.9.9/")
    repo.git("config", "filter.evil.clean", "cat")
    (repo.path / ".git/info").mkdir(exist_ok=True)
    (repo.path / ".git/info/attributes").write_text("pyproject.toml filter=evil\n")
    assert queries.version_at(repo.path, "main") == "1.4.0.dev0"
    committed = git.blob_bytes(repo.path, "main:pyproject.toml") or b""
    checked_out = git.blob_bytes(repo.path, "main:pyproject.toml", filters=True) or b""
    assert b'current_version = "1.4.0.dev0"' in committed
    assert b'current_version = "9.9.9"' in checked_out


def test_a_mirror_remote_is_refused_before_anything_changes(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """``remote.origin.mirror``: a plain ``git push`` would send every local ref, tags the
    maintainer never meant to publish among them, and delete origin's refs this clone lacks."""
    repo.git("tag", "-a", "v9.9.9", "-m", "a local experiment", "main")
    repo.git("config", "remote.origin.mirror", "true")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 1 and "remote.origin.mirror" in err, err
    assert not repo.git("branch", "--list", "release/1.4")
    assert not repo.origin_git("tag", "--list", "v9.9.9")
    repo.git("config", "remote.origin.mirror", "false")  # said off: nothing to refuse
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert not repo.origin_git("tag", "--list", "v9.9.9")
