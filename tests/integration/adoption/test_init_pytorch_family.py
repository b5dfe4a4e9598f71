"""`mlrelease init` on repositories shaped like the PyTorch family's libraries (torchao,
executorch, torchcodec, tensordict, torchdata): which version model, branch pattern, version
file and wheel kind it proposes, and that what it proposes verifies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomllib
from helpers.projects.tag_model import AO
from helpers.release import GIT_ENV
from helpers.repo import mlrelease
from helpers.torch_family import push_bare_next


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def proposed(root: Path) -> dict[str, Any]:
    """The tables a dry run proposes, parsed (the reasons are tested on snapshots, in
    tests/unit/init: a table cell wraps anywhere)."""
    proc = mlrelease(root, "init")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = tomllib.loads(proc.stdout)
    return data["tool"]


def test_a_bare_next_version_on_main_is_the_files_model_and_verifies(tmp_path: Path) -> None:
    """torchao: main says 0.19.0, no tag has released it; v0.18.0 sits on 0.18.0, so the
    build takes what version.txt says (the files model), and main's bare next version passes
    git_state (it failed: "main carries a development version"); the cut keeps it bare."""
    repo = push_bare_next(tmp_path)
    tool = proposed(repo.path)
    assert "version-source" not in tool["mlrelease"]
    assert tool["mlrelease"]["release"]["branch"] == "release/{major}.{minor}.{patch}"
    assert tool["bumpversion"]["current_version"] == "0.19.0"
    assert mlrelease(repo.path, "init", "--execute").returncode == 0
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    verify = mlrelease(repo.path, "verify", "--only", "git_state", "--only", "versions")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "pass  git_state" in verify.stderr and "pass  versions" in verify.stderr
    cut = mlrelease(repo.path, "release", "cut", "--version", "0.19")
    assert cut.returncode == 0, cut.stdout + cut.stderr
    assert "0.19.0 -> 0.20.0" in cut.stdout


def test_a_development_marker_on_main_stays_the_files_model(tmp_path: Path) -> None:
    repo = push_bare_next(tmp_path, main="0.19.0.dev0")
    tool = proposed(repo.path)
    assert "version-source" not in tool["mlrelease"]
    assert tool["bumpversion"]["current_version"] == "0.19.0.dev0"


def test_a_bare_version_on_a_trunk_projects_main_stays_the_files_model(tmp_path: Path) -> None:
    """Tags on main, no release branch: a bare version on main is a release's, not a sign."""
    repo = push_bare_next(tmp_path)
    repo.git("branch", "-D", "release/0.18.0")
    repo.git("push", "-q", "origin", ":release/0.18.0")
    repo.git("fetch", "-q", "--prune", "origin")
    tool = proposed(repo.path)
    assert tool["mlrelease"]["release"]["model"] == "trunk"
    assert "version-source" not in tool["mlrelease"]


def test_the_branch_pattern_is_the_newest_branches_spelling(tmp_path: Path) -> None:
    """torchcodec: release/0.0.1 .. 0.0.4 once, release/0.1 .. 0.3 since."""
    repo = push_bare_next(tmp_path)
    for name in [f"release/0.0.{n}" for n in range(1, 5)] + ["release/0.1", "release/0.2"]:
        repo.git("branch", name, "release/0.18.0")
    repo.git("branch", "-m", "release/0.18.0", "release/0.18")
    tool = proposed(repo.path)
    assert tool["mlrelease"]["release"]["branch"] == "release/{major}.{minor}"


SCM_PYPROJECT = (
    '[build-system]\nrequires = ["setuptools>=64", "setuptools_scm"]\n'
    'build-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "demo"\ndynamic = ["version"]\n\n'
    '[tool.setuptools_scm]\nversion_scheme = "post-release"\n'
)
SCM_SETUP = """\
import os
from setuptools import setup

with open("version.txt") as f:
    os.environ["SETUPTOOLS_SCM_PRETEND_VERSION"] = f.read().strip()

setup(use_scm_version=True)
"""


def test_a_version_file_setup_py_reads_is_proposed_beside_setuptools_scm(tmp_path: Path) -> None:
    """tensordict: setup.py exports version.txt as SETUPTOOLS_SCM_PRETEND_VERSION."""
    files = {**AO, "pyproject.toml": SCM_PYPROJECT, "setup.py": SCM_SETUP}
    repo = push_bare_next(tmp_path, main="0.18.0", files=files)
    tool = proposed(repo.path)
    assert "version-source" not in tool["mlrelease"]  # files: its tags sit on 0.18.0
    files_proposed = tool["bumpversion"]["files"]
    assert [(f["filename"], f["search"]) for f in files_proposed] == [
        ("version.txt", "^{current_version}$")
    ]


TORCHDATA_SETUP = """\
from setuptools import setup
from tools.setup_helpers.extension import get_ext_modules

setup(name="demo", ext_modules=get_ext_modules())
"""


def test_extension_modules_with_nothing_to_compile_are_a_pure_wheel(tmp_path: Path) -> None:
    """torchdata: get_ext_modules() returns [] and no C/C++ source is in the repository."""
    files = {
        **AO,
        "setup.py": TORCHDATA_SETUP,
        "tools/setup_helpers/extension.py": "def get_ext_modules():\n    return []\n",
    }
    repo = push_bare_next(tmp_path, files=files)
    tool = proposed(repo.path)
    assert tool["mlrelease"]["wheels"] == {"kind": "pure", "required-platforms": []}


@pytest.mark.parametrize(
    ("main", "verdict"),
    [
        ("0.18.0", "pass git_state"),  # tensordict: main keeps the newest release's version
        ("0.17.1", "`main` carries 0.17.1, a release version"),  # below v0.18.0: went back
    ],
)
def test_main_may_keep_the_newest_release_but_never_go_back(
    tmp_path: Path, main: str, verdict: str
) -> None:
    repo = push_bare_next(tmp_path, main=main)
    assert mlrelease(repo.path, "init", "--execute").returncode == 0
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    verify = mlrelease(repo.path, "verify", "--only", "git_state")
    assert verdict in " ".join((verify.stdout + verify.stderr).split())
