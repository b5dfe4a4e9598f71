"""torchdata's practice, the files model with PyTorch's development marker: main carries
``X.Y.0a0`` (``0.12.0a0``), and the release branch is prepared as ``X.Y.0`` before its tags
(``v0.11.0-rc0`` and ``v0.11.0`` sit on commits carrying ``0.11.0``). After ``init --execute``
alone the gates pass on main, ``cut`` moves main to the next ``a0`` (not to ``.dev0``) and
``prepare`` sets the release version on the branch. Before, ``git_state`` called ``0.12.0a0``
"a release version" and failed, and ``cut`` refused."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.release import GIT_ENV, Repo
from helpers.torch_family import push_torch_family

from mlrelease.cli import main

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``mlrelease --root ROOT ARGS...`` in-process: (exit code, stdout, stderr on one line)."""

    def call(root: Path, *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--root", str(root), *args])
        out, err = capsys.readouterr()
        sys.stdout.write(out)
        sys.stderr.write(err)
        return code, out, " ".join(err.split())

    return call


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("COLUMNS", "300")
    yield push_torch_family(tmp_path, prepared=True)


def test_main_keeps_its_a0_marker_through_the_release(family: Repo, run: Run) -> None:
    code, out, err = run(family.path, "init", "--execute")
    assert code == 0, err
    text = (family.path / "pyproject.toml").read_text(encoding="utf-8")
    assert "version-source" not in text  # the tags sit on prepared commits: the files model
    family.git("commit", "-q", "-am", "chore: adopt mlrelease")
    family.git("push", "-q", "origin", "main")
    code, out, err = run(family.path, "verify", "--only", "git_state", "--only", "versions")
    assert code == 0, out + err
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    assert json.loads(out)["release"] == "2.14.0"
    code, out, err = run(family.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, err
    assert family.git("show", "main:version.txt") == "2.15.0a0"  # main's own marker
    assert (family.path / "version.txt").read_text() == "2.14.0a0\n"
    code, out, err = run(family.path, "release", "prepare", "--version", "2.14.0")
    assert code == 0, err
    assert "2.14.0a0 -> 2.14.0" in " ".join(out.split()) + err
    family.git("switch", "-q", "main")
    code, out, err = run(family.path, "verify", "--only", "git_state", "--only", "versions")
    assert code == 0, out + err


def test_a_real_alpha_on_main_is_named_for_what_it_is(family: Repo, run: Run) -> None:
    code, _, err = run(family.path, "init", "--execute")
    assert code == 0, err
    family.git("commit", "-q", "-am", "chore: adopt mlrelease")
    code, _, err = run(family.path, "bump", "--to", "2.14.0a1", "--execute")
    assert code == 0, err
    family.git("commit", "-q", "-am", "chore: an alpha on main")
    code, out, err = run(family.path, "verify", "--only", "git_state")
    assert code != 0
    assert "2.14.0a1, a pre-release version" in " ".join((out + err).split()), out + err
