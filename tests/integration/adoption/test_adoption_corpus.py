"""The adoption corpus (``scripts/adoption_corpus.py``): its replay scores each step of a
release against the history, on the PyTorch-family fixture (CI has no mirror of the real
projects), and its page is checked against the recorded results where no mirror is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers.projects.tag_model import FILES
from helpers.release import GIT_ENV, Repo
from helpers.torch_family import push_torch_family

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def corpus(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The corpus's scripts importable, git's identity and this checkout's mlrelease for the
    commands they run."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import adoption_corpus_key
    import adoption_corpus_replay
    import case_study_history

    return SimpleNamespace(
        Project=adoption_corpus_key.Project,
        Shape=case_study_history.Shape,
        replay=adoption_corpus_replay.replay,
    )


@pytest.mark.slow
def test_a_release_branch_is_replayed_and_scored(tmp_path: Path, corpus: Any) -> None:
    repo = push_torch_family(tmp_path, FILES, prepared=True)
    fork = repo.git("merge-base", "main", "release/2.13")
    project = corpus.Project(
        name="demo",
        family="pytorch",
        repository="https://github.com/example/demo",
        snapshot="example/demo",
        version="2.13.0",
        model="branch",
        shape=corpus.Shape(start=fork),
        about="The PyTorch-family fixture.",
    )
    found = corpus.replay(project, repo.origin)
    steps = {s["id"]: s for s in found["steps"]}
    assert list(steps)[:4] == ["init", "cut", "main", "prepare"], list(steps)
    # No release branch precedes the fork point: init proposes trunk, a wrong step scored
    # once; the replay goes on under the project's model, and the branch is the project's.
    assert not steps["init"]["match"] and "model trunk" in steps["init"]["did"], steps["init"]
    assert steps["cut"]["match"] and "branch release/2.13 " in steps["cut"]["did"], steps["cut"]
    assert steps["main"]["match"] and steps["main"]["did"] == "main at 2.14.0a0", steps["main"]
    assert steps["prepare"]["match"], steps["prepare"]
    # The project's commits made on the branch carry no fix of main, and none is taken for one.
    directs = [s for s in found["steps"] if s["kind"] == "direct commit"]
    assert len(directs) == 4 and all(s["match"] for s in directs), directs
    # Each RC is scored by the name it got: right only under the project's own name.
    rcs = [s for s in found["steps"] if s["id"].startswith("rc:")]
    assert [s["id"] for s in rcs] == [f"rc:v2.13.0-rc{n}" for n in (1, 2, 3)], rcs
    assert all(s["did"].startswith("tagged v2.13.0") for s in rcs), rcs
    assert all(s["match"] == (s["did"] == f"tagged {s['id'][3:]}") for s in rcs), rcs
    # The final tag, by promote's rule: the newest RC's commit, the project's too.
    last = repo.git("rev-parse", "v2.13.0^{commit}")
    assert steps["final"]["match"] and steps["final"]["did"].endswith(f"v2.13.0 on {last[:9]}")
    assert found["key"]["fork"] == fork
    assert [c["kind"] for c in found["key"]["commits"]] == ["direct"] * 4


@pytest.mark.slow
def _converter(corpus: Any, start: str, about: str) -> Any:
    """The corpus entry of an ONNX converter made on main (``_push_trunk``): 1.1.0, its version
    in VERSION_NUMBER, tagged ``vX.Y.Z`` / ``vX.Y.ZrcN``, replayed from ``start``."""
    return corpus.Project(
        name="converter",
        family="onnx",
        repository="https://github.com/example/converter",
        snapshot="example/converter",
        version="1.1.0",
        model="trunk",
        shape=corpus.Shape(
            tags=r"v(\d+\.\d+\.\d+)(?:rc(\d+))?", version_file="VERSION_NUMBER", start=start
        ),
        about=about,
    )


def test_a_release_on_main_is_replayed_and_scored(tmp_path: Path, corpus: Any) -> None:
    """ONNX's converters' shape: the version file set on main to ``X.Y.ZrcN`` and tagged
    ``vX.Y.ZrcN``, then to ``X.Y.Z`` and tagged: each version commit gets the command that
    sets the version before it lands, each tag ``release rc`` or the promote dry run."""
    repo = _push_trunk(tmp_path)
    start = repo.git("rev-parse", "main~3")
    project = _converter(corpus, start, "A converter's shape.")
    found = corpus.replay(project, repo.origin)
    ids = [s["id"] for s in found["steps"]]
    bumps = repo.git("log", "--reverse", "--format=%h", "-2", "--", "VERSION_NUMBER").split()
    assert ids == [
        "init",
        f"version:{repo.git('rev-parse', bumps[0])[:9]}",
        "rc:v1.1.0rc1",
        f"version:{repo.git('rev-parse', bumps[1])[:9]}",
        "final",
    ], ids
    assert found["steps"][0]["match"], found["steps"][0]  # a release on main, as the project's
    assert [c["kind"] for c in found["key"]["commits"]] == ["version", "main", "version"]
    rc = found["steps"][2]
    # The maintainers' hand-set 1.1.0rc1 leaves current_version stale; the replay runs the
    # repair rc's --json refusal carries, committed, and rc again; that refuses the candidate's
    # own version under tag RCs and carries the model that keeps it, which the replay sets in
    # [tool.mlrelease.release], committed; then rc tags v1.1.0rc1. The step says every attempt.
    assert rc["did"].startswith("refused: error: rc: [tool.bumpversion] current_version"), rc
    assert "Then `mlrelease bump --sync --execute` (the repair it names)" in rc["did"], rc
    assert "a release candidate's own version" in rc["did"], rc
    assert 'Then `rc-model = "bump", rc-tagged = true` in [tool.mlrelease.release]' in rc["did"]
    assert rc["match"] and rc["did"].endswith("again: tagged v1.1.0rc1"), rc
    # Promote runs under the model so repaired: the final tag on the maintainers' 1.1.0 commit.
    last = repo.git("rev-parse", "v1.1.0^{commit}")
    final = found["steps"][4]
    assert final["match"] and final["did"] == f"v1.1.0 on {last[:9]}", final


BUILD_ONLY = """\
name: Release
on:
  push:
    tags: ['v*']
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: python -m build
"""
PUBLISH = """\
  publish:
    needs: build
    runs-on: ubuntu-latest
    if: startsWith(github.ref, 'refs/tags/v')
    steps:
      - uses: pypa/gh-action-pypi-publish@release/v1
"""


@pytest.mark.slow
def test_a_version_commit_lands_its_own_edits_before_the_command(
    tmp_path: Path, corpus: Any
) -> None:
    """tensorflow-onnx 1.17.0's shape: main set to 1.1.0 while release.yml only builds, then one
    commit adds the job that publishes every ``v*`` tag to PyPI and sets 1.1.0rc1 (its
    2e4f0716f). The commit's own edits land first, as a user makes them before the command:
    prepare reads the workflow, refuses under tag RCs with the repair (version bumps, each
    tagged), the replay makes it, and under that model the candidate's version is rc's to
    set: 1.1.0rc1, in VERSION_NUMBER, as the maintainers set it; rc then tags it."""
    repo = _push_trunk(tmp_path, BUILD_ONLY)
    start = repo.git("rev-parse", "main~3")
    project = _converter(corpus, start, "A converter whose publish job landed with its first RC.")
    found = corpus.replay(project, repo.origin)
    steps = {s["id"]: s for s in found["steps"]}
    rc1 = repo.git("rev-parse", "v1.1.0rc1^{commit}")[:9]
    step = steps[f"version:{rc1}"]
    assert step["did"].startswith("refused: error: prepare: .github/workflows/release.yml"), step
    assert 'Then `rc-model = "bump", rc-tagged = true`' in step["did"], step
    assert step["did"].endswith(
        "VERSION_NUMBER says 1.1.0rc1; the version written in VERSION_NUMBER"
    ), step
    assert step["match"], step
    assert steps["rc:v1.1.0rc1"]["match"], steps["rc:v1.1.0rc1"]


def _push_trunk(base: Path, workflow: str = "") -> Repo:
    """A converter released on main: 1.0.0 tagged, then 1.1.0rc1 set and tagged v1.1.0rc1, a
    fix, and 1.1.0 set and tagged v1.1.0. With ``workflow`` (a release workflow that builds):
    1.1.0 set with it first, and the 1.1.0rc1 commit adds its job that publishes to PyPI."""
    work, origin = base / "work", base / "origin.git"
    work.mkdir()
    run = Repo(work, origin).git
    run("init", "-q", "-b", "main")
    files = {
        "pyproject.toml": '[project]\nname = "converter"\ndynamic = ["version"]\n\n'
        '[tool.setuptools.dynamic]\nversion = {file = "VERSION_NUMBER"}\n',
        "VERSION_NUMBER": "1.0.0\n",
        "converter/__init__.py": '"""converter."""\n',
    }
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    run("add", ".")
    run("commit", "-q", "-m", "feat: the converter")
    run("tag", "-a", "v1.0.0", "-m", "1.0.0")
    if workflow:
        (work / ".github" / "workflows").mkdir(parents=True)
        (work / ".github/workflows/release.yml").write_text(workflow, encoding="utf-8")
        (work / "VERSION_NUMBER").write_text("1.1.0\n", encoding="utf-8")
        run("add", ".")
        run("commit", "-q", "-m", "ci: build on tags; the next version")
    for version, tag, extra in (("1.1.0rc1", "v1.1.0rc1", True), ("1.1.0", "v1.1.0", False)):
        (work / "VERSION_NUMBER").write_text(version + "\n", encoding="utf-8")
        if workflow and extra:
            (work / ".github/workflows/release.yml").write_text(workflow + PUBLISH, "utf-8")
        run("commit", "-q", "-am", f"Update VERSION_NUMBER to {version}")
        run("tag", "-a", tag, "-m", version)
        if extra:
            (work / "converter" / "fix.py").write_text("FIX = 1\n", encoding="utf-8")
            run("add", ".")
            run("commit", "-q", "-m", "fix: a fix after the RC")
    run("init", "-q", "--bare", "-b", "main", str(origin))
    run("remote", "add", "origin", str(origin))
    run("push", "-q", "origin", "main", "--tags")
    return Repo(work, origin)


def test_without_mirrors_the_page_is_checked_against_the_recorded_results(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "scripts/adoption_corpus.py", "--mirrors", str(tmp_path), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not replayed (no mirror under" in proc.stderr, proc.stderr
    assert "docs/case-studies/adoption-corpus.md" in proc.stdout + proc.stderr
