"""Invariant (f): no user edit is ever reverted by recovery; edits are all-or-nothing (a
symlinked version file included) and keep line endings (docs/release/invariants.md)."""

from __future__ import annotations

import os
import signal

from helpers.release import Repo
from helpers.release import run_mlrelease as run


def test_recovery_never_reverts_a_users_later_edit(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 17: after a kill, the journal silently reverted the user's own later edit of
    CHANGELOG.md."""
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    args = ("release", "prepare", "--version", "1.4.0", "--execute")
    killed = run(repo, *args, fault="prepare:after:changelog")
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    log = repo.path / "CHANGELOG.md"
    log.write_text(log.read_text() + "\n- my own note, written after the kill\n")
    code, _, err = mlr(*args)
    assert code == 1 and "CHANGELOG.md" in err
    assert "my own note" in log.read_text()


def test_a_symlinked_version_file_is_committed_with_the_bump(
    repo: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Class 13: cut with a symlinked version file committed one file and left the other bumped
    but uncommitted."""
    init = repo.path / "src/demo/__init__.py"
    (repo.path / "src/demo/_version.py").write_text(init.read_text())
    init.unlink()
    os.symlink("_version.py", init)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "refactor: the version lives in _version.py")
    repo.git("push", "-q", "origin", "main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert repo.status() == ""
    colleague.git("fetch", "-q", "origin")
    assert '"1.5.0.dev0"' in colleague.git("show", "origin/main:src/demo/_version.py")
    assert '"1.5.0.dev0"' in colleague.git("show", "origin/main:pyproject.toml")


def test_crlf_files_stay_crlf(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 19: CRLF files were rewritten as LF (a release-only edit, a version bump)."""
    for name in ("README.md", "src/demo/__init__.py"):
        path = repo.path / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    repo.git("commit", "-q", "-am", "chore: CRLF line endings")
    repo.git("push", "-q", "origin", "main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    colleague.git("fetch", "-q", "origin")
    for ref, name, changed in (
        ("origin/release/1.4", "README.md", b"/blob/release/1.4/"),
        ("origin/main", "src/demo/__init__.py", b"1.5.0.dev0"),
    ):
        data = show_bytes(colleague, ref, name)
        assert changed in data
        assert data.count(b"\n") == data.count(b"\r\n"), (ref, name, data)


def show_bytes(clone: Repo, ref: str, path: str) -> bytes:
    import subprocess

    return subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=clone.path, capture_output=True, check=True
    ).stdout
