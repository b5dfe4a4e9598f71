"""A fix back-ported by hand with an adaptation (`cherry-pick -x`, then edited) is "picked
(adapted)" and never applied a second time."""

from __future__ import annotations

from helpers.release import Repo

FIX = "fix: answer 43\n\nRelease-Target: 1.4\n"


def test_adapted_pick_is_recognised_and_not_reapplied(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    repo.git("switch", "-q", "main")
    fix = repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", FIX)
    repo.git("push", "-q", "origin", "main")  # main's fixes are origin's
    repo.git("switch", "-q", "release/1.4")
    # By hand, adapted: another change than main's, with the -x line pointing at the fix.
    repo.commit_file(
        "src/demo/core.py",
        "def answer() -> int:\n    return 43  # adapted for 1.4\n",
        f"fix: answer 43 (1.4)\n\n(cherry picked from commit {fix})\n",
    )
    head = repo.git("rev-parse", "HEAD")
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "picked (adapted)" in out and "1 of 1 picked, 0 missing" in out
    assert "nothing to do" in err and repo.git("rev-parse", "HEAD") == head


def test_an_explicit_recorded_override_marks_a_fix_not_needed(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    repo.git("switch", "-q", "main")
    fix = repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", FIX)
    repo.git("push", "-q", "origin", "main")  # main's fixes are origin's
    repo.git("switch", "-q", "release/1.4")
    code, _, err = mlr("release", "cherry-picks", "--mark", f"{fix[:10]}=not-needed")
    assert code == 2 and "needs --reason" in err
    code, _, err = mlr("release", "cherry-picks", "--mark", f"{fix[:10]}=maybe", "--reason", "x")
    assert code == 2 and "expected COMMIT=picked or COMMIT=not-needed" in err
    reason = "1.4 never had the bug"
    args = ("release", "cherry-picks", "--mark", f"{fix[:10]}=not-needed", "--reason", reason)
    code, out, err = mlr(*args, "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("rev-parse", "release/1.4") == repo.git("rev-parse", "HEAD")
    assert f"Release-Pick-Override: {fix} not-needed" in repo.git("log", "-1", "--format=%B")
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0 and f"not-needed (marked) | `{fix[:12]}`" in out and reason in out
    assert "1 of 1 picked, 0 missing" in out and "nothing to do" in err
    assert repo.git("show", "HEAD:src/demo/core.py").strip().endswith("return 42")


def test_picks_a_colleague_already_pushed_are_not_made_again(repo: Repo, mlr, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    repo.git("switch", "-q", "main")
    fix = repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", FIX)
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    colleague = Repo(tmp_path / "colleague", repo.origin)
    subprocess.run(["git", "clone", "-q", str(repo.origin), str(colleague.path)], check=True)
    colleague.git("switch", "-q", "release/1.4")
    colleague.git("cherry-pick", "-x", fix)
    colleague.git("push", "-q", "origin", "release/1.4")
    head = repo.git("rev-parse", "HEAD")
    code, _, err = mlr("release", "cherry-picks", "--execute")
    assert code == 1 and "origin/release/1.4" in err and "has commits that local" in err
    assert repo.git("rev-parse", "HEAD") == head  # not picked a second time


def test_a_pick_whose_patch_is_not_utf8_is_matched(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    repo.git("switch", "-q", "main")
    (repo.path / "data").mkdir()
    (repo.path / "data/names.txt").write_bytes(b"caf\xe9 cr\xe8me\n")  # Latin-1, not UTF-8
    repo.git("add", "data/names.txt")
    repo.git("commit", "-q", "-m", "fix: the names file\n\nRelease-Target: 1.4\n")
    fix = repo.git("rev-parse", "HEAD")
    repo.git("push", "-q", "origin", "main")  # main's fixes are origin's
    repo.git("switch", "-q", "release/1.4")
    repo.git("cherry-pick", "-x", fix)
    code, out, err = mlr("release", "cherry-picks")
    assert code == 0, err
    assert "1 of 1 picked, 0 missing" in out and f"| `{fix[:12]}` |" in out
