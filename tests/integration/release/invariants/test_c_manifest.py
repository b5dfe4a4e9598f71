"""Invariant (c): every manifest file is a distribution of this project at this version, built
from the RC's commit (the sdist compared with the commit's tree) (docs/release/invariants.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.dist import make_dist
from helpers.invariants import RC, binding_refs
from helpers.release import Repo, tag_rc

from mlrelease.wheels.artifacts import write_sums


def test_files_built_at_a_later_commit_are_not_bound(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 2: bind recorded files built at a later commit: dist/ is ignored by git, and
    nothing compared the files with the RC's tree."""
    tag_rc(mlr)
    repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 7\n", "fix: 7")
    repo.build()  # built here, at the later commit
    repo.git("switch", "-q", "--detach", RC)
    assert repo.status() == ""
    code, _, err = mlr("release", "bind", "--rc", RC, "--execute", "--push")
    assert code == 1 and "src/demo/core.py" in err
    assert binding_refs(colleague) == {}


def test_files_of_other_projects_and_versions_are_not_bound(
    repo: Repo, colleague: Repo, mlr, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Class 16: bind bound other projects' and versions' files lying in dist/."""
    tag_rc(mlr)
    repo.build()
    dist = repo.path / "dist"
    other = make_dist(repo.path, tmp_path / "other", "2.0.0", name="demo")
    shutil.copy(other[0], dist / other[0].name.replace("demo-2.0.0", "other-2.0.0"))
    older = make_dist(repo.path, tmp_path / "older", "1.3.9")
    shutil.copy(older[1], dist)  # demo-1.3.9.tar.gz
    write_sums(dist)
    code, _, err = mlr("release", "bind", "--rc", RC, "--execute", "--push")
    assert code == 1 and "other-2.0.0-py3-none-any.whl" in err and "demo-1.3.9.tar.gz" in err
    assert binding_refs(colleague) == {}
