"""A repository shaped like the PyTorch family (Torch-TensorRT, PyTorch): ``version.txt`` keeps
a development marker (``2.14.0a0`` on main, ``2.13.0a0`` on ``release/2.13``), and the RC tags
``v2.13.0-rc1..rc3`` and the final ``v2.13.0`` sit on commits whose ``version.txt`` says
``2.13.0a0``: the build takes the version from the tag. Pushed to a bare origin."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from helpers.projects.tag_model import AO, FILES
from helpers.release import GIT_ENV, Repo
from helpers.repo import Run


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return proc.stdout.strip()


def _commit(work: Path, path: str, text: str, message: str) -> None:
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_text(text, encoding="utf-8")
    _git(work, "add", path)
    _git(work, "commit", "-q", "-m", message)


def push_torch_family(base: Path, files: Mapping[str, str] = FILES, prepared: bool = False) -> Repo:
    """The history described above, on ``main`` (checked out) and ``release/2.13``, with its
    tags, in ``base/work`` and its bare origin ``base/origin.git``; ``files``: the project's
    shape (:data:`TENSORRT` for Torch-TensorRT's). ``prepared``: torchdata's later practice
    instead, the files model with PyTorch's marker: the branch's first commit sets
    ``version.txt`` to ``2.13.0`` and every tag sits on commits carrying it, while main carries
    ``2.14.0a0``."""
    work, origin = _start(base, files)
    _git(work, "commit", "-q", "-m", "feat: the 2.13 development")
    _git(work, "switch", "-q", "-c", "release/2.13")
    if prepared:
        _commit(work, "version.txt", "2.13.0\n", "chore: release 2.13.0")
    for n in (1, 2, 3):
        _commit(work, f"src/demo/fix{n}.py", f"FIX = {n}\n", f"fix: the fix of rc{n}")
        _git(work, "tag", "-a", f"v2.13.0-rc{n}", "-m", f"2.13.0 release candidate {n}")
    _git(work, "tag", "-a", "v2.13.0", "-m", "2.13.0")
    _git(work, "switch", "-q", "main")
    _commit(work, "version.txt", "2.14.0a0\n", "chore: open the 2.14 development")
    _commit(work, "src/demo/feature.py", "FEATURE = True\n", "feat: a 2.14 feature")
    _git(base, "init", "-q", "--bare", "-b", "main", str(origin))
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "-q", "origin", "main", "release/2.13", "--tags")
    return Repo(work, origin)


def _start(base: Path, files: Mapping[str, str]) -> tuple[Path, Path]:
    """``base/work``, a new repository on main holding ``files`` (staged, not committed), and
    where its bare origin goes (``base/origin.git``)."""
    work = base / "work"
    work.mkdir(parents=True)
    _git(work, "init", "-q", "-b", "main")
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    _git(work, "add", ".")
    return work, base / "origin.git"


def push_bare_next(base: Path, main: str = "0.19.0", files: Mapping[str, str] = AO) -> Repo:
    """torchao's and executorch's history: main carries the bare version (``0.18.0``) until
    ``release/0.18.0`` is cut, then the bare next one (``main``, by default ``0.19.0``); the
    branch keeps ``0.18.0``, and ``v0.18.0-rc1`` and ``v0.18.0`` sit on commits carrying it.
    ``base/work`` (main checked out) and its bare origin ``base/origin.git``."""
    work, origin = _start(base, files)
    _git(work, "commit", "-q", "-m", "feat: the 0.18 development")
    _git(work, "switch", "-q", "-c", "release/0.18.0")
    _commit(work, "demo/fix.py", "FIX = 1\n", "fix: the fix of rc1")
    _git(work, "tag", "v0.18.0-rc1")  # lightweight, as torchao's
    _git(work, "tag", "v0.18.0")
    _git(work, "switch", "-q", "main")
    if (work / "version.txt").read_text(encoding="utf-8") != f"{main}\n":
        _commit(work, "version.txt", f"{main}\n", "bump version to " + main)
    _commit(work, "demo/feature.py", "FEATURE = True\n", "feat: a 0.19 feature")
    _git(base, "init", "-q", "--bare", "-b", "main", str(origin))
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "-q", "origin", "main", "release/0.18.0", "--tags")
    return Repo(work, origin)


def adopt(repo: Repo, run: Run) -> None:
    """``init --execute`` on main, committed (with the cheap gates only) and pushed, and the
    same tables added on ``release/2.13`` (with the version its files carry)."""
    code, _, err = run(repo.path, "init", "--execute")
    assert code == 0, err
    path = repo.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    start = text.index("gates = [")
    path.write_text(
        text[:start]
        + 'gates = ["git_state", "versions", "changelog"]'
        + text[text.index("]", start) + 1 :],
        encoding="utf-8",
    )
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("switch", "-q", "release/2.13")
    repo.git("cherry-pick", "-x", "main")
    on_branch = path.read_text(encoding="utf-8").replace(
        'current_version = "2.14.0a0"', 'current_version = "2.13.0a0"'
    )
    path.write_text(on_branch, encoding="utf-8")  # the branch's own version, as the branch has it
    repo.git("commit", "-q", "--amend", "--no-edit", "-a")
    repo.git("switch", "-q", "main")
    repo.git("push", "-q", "origin", "main", "release/2.13")
