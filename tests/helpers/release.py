"""Repositories for the release-flow tests: a small project with [tool.mlrelease] and
[tool.bumpversion], committed on main and pushed to a bare "origin" in a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from helpers.dist import build_dist
from helpers.projects import pure

PYPROJECT = pure.pyproject()
"""The release-flow demo's pyproject (:mod:`helpers.projects.pure`)."""

FILES = pure.files()

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Release Tester",
    "GIT_AUTHOR_EMAIL": "rt@example.com",
    "GIT_COMMITTER_NAME": "Release Tester",
    "GIT_COMMITTER_EMAIL": "rt@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def push_demo(base: Path, files: dict[str, str] = FILES, branches: tuple[str, ...] = ()) -> Path:
    """``files`` committed on main in ``base/work`` and pushed, with ``branches`` made at that
    commit, to a bare origin ``base/origin.git``; returns the work tree."""
    work, origin = base / "work", base / "origin.git"
    env = {**os.environ, **GIT_ENV}
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    steps = [
        (["init", "-q", "-b", "main"], work),
        (["add", "."], work),
        (["commit", "-q", "-m", "feat: first version of demo"], work),
        (["init", "-q", "--bare", "-b", "main", str(origin)], base),
        (["remote", "add", "origin", str(origin)], work),
        *((["switch", "-q", "-c", branch], work) for branch in branches),
        (["push", "-q", "origin", "main", *branches], work),
    ]
    for args, cwd in steps:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    return work


class Repo:
    """A working clone with a bare origin; helpers run git and the mlrelease CLI."""

    def __init__(self, path: Path, origin: Path) -> None:
        self.path = path
        self.origin = origin

    def git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, text=True, check=False
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)}: {proc.stderr}")
        return proc.stdout.strip()

    def origin_git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.origin, capture_output=True, text=True, check=True
        ).stdout.strip()

    def commit_file(self, path: str, text: str, message: str) -> str:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        self.git("add", path)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def tags(self) -> dict[str, str]:
        out = self.git(
            "for-each-ref", "--format=%(refname:strip=2) %(*objectname)%(objectname)", "refs/tags"
        )
        return {line.split()[0]: line.split()[1][:40] for line in out.splitlines()}

    def branch(self) -> str:
        return self.git("symbolic-ref", "--short", "HEAD")

    def status(self) -> str:
        return self.git("status", "--porcelain")

    def tag_everywhere(self, name: str) -> tuple[str, str]:
        """(local, origin) listings of tag ``name``: both empty when it exists nowhere."""
        return self.git("tag", "--list", name), self.origin_git("tag", "--list", name)

    def build(self, folder: str = "dist") -> list[Path]:
        """The real build of the checked-out tree into ``folder`` (with SHA256SUMS)."""
        return build_dist(self.path, self.path / folder)


def copy_repo(template: Path, base: Path) -> Repo:
    """A fresh copy at ``base`` of the repository ``template`` (its ``work`` tree and bare
    ``origin.git``, as :func:`push_demo` lays them out), origin pointed at the copy's own: the
    only path into the template a repository holds is its remote's URL, so nothing a test does
    to the copy reaches the template or another test's copy."""
    shutil.copytree(template, base, symlinks=True)
    repo = Repo(base / "work", base / "origin.git")
    repo.git("remote", "set-url", "origin", str(repo.origin))
    return repo


def tag_rc(mlr: Callable[..., tuple[int, str, str]]) -> None:
    """release/1.4 cut, prepared and pushed, v1.4.0-rc1 tagged and pushed; ``mlr(*args)`` runs
    ``mlrelease --root REPO ARGS`` and returns (exit code, stdout, stderr)."""
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
        ("rc", "--execute", "--push"),
    ):
        code, _, err = mlr("release", *args)
        assert code == 0, err


def make_candidate(repo: Repo, mlr: Callable[..., tuple[int, str, str]]) -> None:
    """:func:`tag_rc`, then the RC's files built into dist/ and bound (manifest on origin), and
    its release_verify report written."""
    tag_rc(mlr)
    repo.build()
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 0, err
    assert mlr("verify")[0] == 0


def tag_rc2(repo: Repo, mlr: Callable[..., tuple[int, str, str]]) -> None:
    """release/1.4 prepared, rc1 and rc2 tagged (rc2 on a later commit, after origin refused
    it while rc1 was not pushed), rc2's files built into dist/ and bound."""
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    assert mlr("release", "prepare", "--version", "1.4.0", "--execute")[0] == 0
    assert mlr("release", "rc", "--execute")[0] == 0
    code, _, err = mlr("release", "rc", "--execute")  # again: its own tag, not pushed yet
    assert code == 0 and "not pushed yet" in err, err
    repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", "fix: 43")
    # Origin numbers the candidates: rc2 waits for rc1 to be on origin.
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1 and "never pushed" in err, err
    assert "git push origin refs/tags/v1.4.0-rc1:refs/tags/v1.4.0-rc1" in err
    repo.git("push", "-q", "origin", "refs/tags/v1.4.0-rc1:refs/tags/v1.4.0-rc1")
    assert mlr("release", "rc", "--execute", "--push")[0] == 0
    repo.build()
    assert mlr("release", "bind", "--rc", "v1.4.0-rc2", "--execute", "--push")[0] == 0


CHECKLIST_STEPS = ("cut", "verify", "prepare", "rc", "build", "bind", "rc-verify", "promote")
CHECKLIST_KILL_POINTS = [
    *(f"checklist:after:{step}" for step in CHECKLIST_STEPS),
    *(
        f"cut:after:{key}"
        for key in (
            "branch", "journal", "bump", "commit-main", "journal-end", "switch-branch",
            "edit:README.md", "edit:docs/links.md", "commit-branch", "push",
        )
    ),
    *(
        f"prepare:after:{key}"
        for key in ("journal", "bump", "changelog", "commit", "journal-end", "push")
    ),
    "rc:after:tag",
    "rc:after:push",
    "bind:after:store",
    "bind:after:object",
    "bind:after:ref",
    "bind:after:push",
    "promote:after:tag",
    "promote:after:push",
]  # fmt: skip
"""Every point the checklist's release passes (fault_point names), each killed by a test."""
PROMOTE_KILL_POINTS = [
    "publish:after:demo-1.4.0-py3-none-any.whl",  # one file on the index, the other not
    "publish:after:demo-1.4.0.tar.gz",
    "promote:after:publish",
    "promote:after:tag",
    "promote:after:push",
]
"""Every point of ``release promote --publish`` to an index."""
BUMP_KILL_POINTS = ["bump:after:write"]
"""``mlrelease bump``: after bump-my-version wrote the files, before the journal is closed."""
BMV_KILL_POINTS = [
    f"bmv:{stage}:{n}-{name}"
    for n, name in enumerate(
        ["pyproject.toml", "src/demo/__init__.py", "pyproject.toml", "pyproject.toml"], 1
    )
    for stage in ("truncated", "after")
]
"""Inside bump-my-version's own writes (each file emptied, then written, one after the other):
the points every bump of the demo project passes (``mlrelease bump``, cut's and prepare's)."""


def run_mlrelease(
    repo: Repo, *args: str, fault: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``mlrelease --root REPO ARGS`` in a fresh process, killed at fault point ``fault`` if
    given (no fault inherited from this process's environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLRELEASE_FAULT")}
    if fault:
        env["MLRELEASE_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(repo.path), *args],
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
