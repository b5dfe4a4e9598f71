"""``version-source = "tag"`` on a PyTorch-family repository (:mod:`helpers.torch_family`):
``mlrelease init --execute`` detects the model from the tags' history, and then the gates,
``release status`` and the dry runs of ``cut``, ``rc``, ``promote`` and ``bump`` judge what the
model promises (a development marker on main and on the branch, the version from the tag)
without ever demanding a version-file edit. Before the model existed, init proposed the files
model and every one of them refused ("main carries a .dev version", "a release candidate needs
the final version")."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.dist import build_dist
from helpers.projects.tag_model import FILES, STOPPED_CHANGELOG
from helpers.release import GIT_ENV, Repo
from helpers.repo import Run, in_process
from helpers.torch_family import adopt, push_torch_family

from mlrelease.release.world import refs


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("COLUMNS", "300")


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    _quiet_env(monkeypatch)
    yield push_torch_family(tmp_path)


@pytest.fixture
def prepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """torchdata's shape: the files model with PyTorch's ``a0`` marker on main."""
    _quiet_env(monkeypatch)
    yield push_torch_family(tmp_path, prepared=True)


def test_init_detects_the_tag_model_from_tags_on_marker_commits(family: Repo, run: Run) -> None:
    code, out, err = run(family.path, "init")
    assert code == 0, err
    assert 'version-source = "tag"' in out
    assert "v2.13.0 on 2.13.0a0" in err  # the evidence, shown


def test_gates_status_cut_and_bump_on_main(family: Repo, run: Run) -> None:
    adopt(family, run)
    code, out, err = run(family.path, "verify")  # main's 2.14.0a0: the Unreleased section
    assert code == 0, out + err
    code, out, err = run(family.path, "release", "cut", "--version", "2.14")
    assert code == 0, err
    shown = " ".join(out.split()) + err
    assert "2.14.0a0 -> 2.15.0a0" in shown, shown
    assert (family.path / "version.txt").read_text() == "2.14.0a0\n"  # a dry run
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert not status["next"]["cut"].startswith("refused"), status["next"]
    code, out, err = run(family.path, "bump", "--to", "2.14.0b1")
    assert code == 0, err
    code, out, err = run(family.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, err
    assert family.git("show", "main:version.txt") == "2.15.0a0"  # main's marker moved on
    assert family.branch() == "release/2.14"  # cut ends on the new branch, which keeps 2.14.0a0
    assert (family.path / "version.txt").read_text() == "2.14.0a0\n"
    for branch in ("release/2.14", "main"):
        family.git("switch", "-q", branch)
        code, out, err = run(family.path, "verify", "--only", "git_state", "--only", "versions")
        assert code == 0, out + err


def test_rc_tags_without_a_bump_and_promote_tags_the_rc_commit(family: Repo, run: Run) -> None:
    family.git("tag", "-d", "v2.13.0")  # 2.13.0 not released yet: rc3 is the newest candidate
    family.git("push", "-q", "origin", ":refs/tags/v2.13.0")
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    code, out, err = run(family.path, "verify")
    assert code == 0, out + err
    code, out, err = run(family.path, "release", "prepare", "--version", "2.13.0")
    assert code == 0, err
    assert "git-changelog" in out and "bump-my-version" not in out, out  # the changelog only
    code, out, err = run(family.path, "release", "prepare", "--version", "2.13.0", "--execute")
    assert code == 0, err
    assert (family.path / "version.txt").read_text() == "2.13.0a0\n"
    code, out, err = run(family.path, "release", "rc")
    assert code == 0, err
    assert "git tag -a v2.13.0-rc4" in out and "bump" not in out + err, out + err
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    rc4 = family.git("rev-parse", "HEAD")
    assert family.tags()["v2.13.0-rc4"] == rc4
    assert (family.path / "version.txt").read_text() == "2.13.0a0\n"  # no bump
    tree = family.path.parent / "built-at-the-tag"  # the release build: the tag's version
    shutil.copytree(family.path, tree, ignore=shutil.ignore_patterns(".git"))
    (tree / "version.txt").write_text("2.13.0\n", encoding="utf-8")
    pyproject = tree / "pyproject.toml"  # restamped as `wheels build --release-tag` does
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('current_version = "2.13.0a0"', 'current_version = "2.13.0"'))
    build_dist(tree, family.path / "dist")
    code, _, err = run(family.path, "release", "bind", "--rc", "v2.13.0-rc4", "--execute", "--push")
    assert code == 0, err
    code, out, err = run(family.path, "verify")
    assert code == 0, out + err
    code, out, err = run(
        family.path, "release", "promote", "--rc", "v2.13.0-rc4", "--published-elsewhere"
    )
    assert code == 0, err
    assert "git tag -a v2.13.0 " + rc4 in out, out
    code, _, err = run(
        family.path,
        "release",
        "promote",
        "--rc",
        "v2.13.0-rc4",
        "--published-elsewhere",
        "--execute",
    )
    assert code == 0, err
    assert family.tags()["v2.13.0"] == rc4


def test_status_on_a_released_branch_heads_for_the_next_patch(family: Repo, run: Run) -> None:
    """release/2.13 still carries 2.13.0a0 after v2.13.0: the next release it makes is 2.13.1,
    tagged from the same files (no prepare bump is planned)."""
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert (status["release"], status["next_rc"]) == ("2.13.1", "v2.13.1-rc1")
    assert "bump-my-version" not in status["next"]["prepare"], status["next"]
    assert "git tag -a v2.13.1-rc1" in status["next"]["rc"], status["next"]


def test_verify_passes_after_init_alone(family: Repo, run: Run) -> None:
    """#25's acceptance: after ``init --execute`` (committed), every proposed gate passes."""
    code, _, err = run(family.path, "init", "--execute")
    assert code == 0, err
    family.git("commit", "-q", "-am", "chore: adopt mlrelease")
    code, out, err = run(family.path, "verify")
    assert code == 0, out + err


def test_verify_passes_after_init_alone_when_the_changelog_stopped(
    tmp_path: Path, family: Repo, run: Run
) -> None:
    """Torch-TensorRT's CHANGELOG.md stops at 1.1.0 (2022): init proposed the changelog gate,
    which then failed on main ("no section for Unreleased"). It is left out, with a note."""
    repo = push_torch_family(tmp_path / "stopped", {**FILES, "CHANGELOG.md": STOPPED_CHANGELOG})
    code, out, err = run(repo.path, "init", "--execute")
    assert code == 0, err
    assert "changelog is left out: CHANGELOG.md stopped" in " ".join((out + err).split())
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    code, out, err = run(repo.path, "verify")
    assert code == 0, out + err
    repo.git("push", "-q", "origin", "main")
    code, out, err = run(repo.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, out + err
    code, out, err = run(repo.path, "release", "rc")
    assert code == 0, out + err
    assert "git tag -a v2.14.0-rc1" in out, out
    assert "changelog gate" not in out + err  # not a gate of this project: no note about it


def test_origin_is_read_in_a_constant_number_of_batches(
    family: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Torch-TensorRT's origin has ~1000 refs: `release cut` took 25 s because every ref's
    sha was checked with its own `git cat-file --batch` over all of them."""
    for n in range(30):
        family.git("tag", "-a", f"old-{n}", "-m", f"old {n}", "main~1")
    family.git("push", "-q", "origin", "--tags")
    calls: list[int] = []
    real = refs.objects

    def counted(root: Path, shas: list[str]) -> dict[str, tuple[str, str]]:
        calls.append(len(shas))
        return real(root, shas)

    monkeypatch.setattr(refs, "objects", counted)
    remote = refs.read_origin(family.path, "origin")
    assert remote is not None and "old-29" in remote.refs.tags
    assert len(calls) <= 2, calls  # one presence check, one read of the tag objects


def test_no_candidate_on_a_commit_already_released(family: Repo, run: Run) -> None:
    """Under the tag model the files do not change between releases, so nothing but this check
    stops ``rc`` from tagging ``v2.13.2-rc1`` on the very commit released as ``v2.13.1`` (the
    same bytes under a second version). It refuses and says what is needed."""
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    family.git("tag", "-a", "v2.13.1", "-m", "2.13.1")
    family.git("push", "-q", "origin", "v2.13.1")
    code, out, err = run(family.path, "release", "rc")
    assert code != 0, out
    assert "already released as v2.13.1" in err, err
    assert "cherry-pick a fix" in err, err
    family.git("commit", "-q", "--allow-empty", "-m", "fix: a fix for 2.13.2")
    code, out, err = run(family.path, "release", "rc")
    assert code == 0, err
    assert "git tag -a v2.13.2-rc1" in out, out


def test_a_part_bump_keeps_the_marker_style(family: Repo, run: Run) -> None:
    """Torch-TensorRT's main carries 2.14.0a0: `bump --part minor` planned 2.15.0.dev0 (the
    first value of the pre-release part), a style the project never uses; it keeps `a0`."""
    adopt(family, run)
    for part, new in (("minor", "2.15.0a0"), ("major", "3.0.0a0"), ("pre", "2.14.0a1")):
        code, out, err = run(family.path, "bump", "--part", part)
        assert code == 0, err
        assert f"2.14.0a0 -> {new}" in out + err, out + err


# --- the files model with PyTorch's a0 marker (torchdata) ---
# torchdata's practice, the files model with PyTorch's development marker: main carries
# ``X.Y.0a0`` (``0.12.0a0``), and the release branch is prepared as ``X.Y.0`` before its tags
# (``v0.11.0-rc0`` and ``v0.11.0`` sit on commits carrying ``0.11.0``). After ``init --execute``
# alone the gates pass on main, ``cut`` moves main to the next ``a0`` (not to ``.dev0``) and
# ``prepare`` sets the release version on the branch. Before, ``git_state`` called ``0.12.0a0``
# "a release version" and failed, and ``cut`` refused.


def test_main_keeps_its_a0_marker_through_the_release(prepared: Repo, run: Run) -> None:
    code, out, err = run(prepared.path, "init", "--execute")
    assert code == 0, err
    text = (prepared.path / "pyproject.toml").read_text(encoding="utf-8")
    assert "version-source" not in text  # the tags sit on prepared commits: the files model
    prepared.git("commit", "-q", "-am", "chore: adopt mlrelease")
    prepared.git("push", "-q", "origin", "main")
    code, out, err = run(prepared.path, "verify", "--only", "git_state", "--only", "versions")
    assert code == 0, out + err
    code, out, err = run(prepared.path, "release", "status", "--json")
    assert code == 0, err
    assert json.loads(out)["release"] == "2.14.0"
    code, out, err = run(prepared.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, err
    assert prepared.git("show", "main:version.txt") == "2.15.0a0"  # main's own marker
    assert (prepared.path / "version.txt").read_text() == "2.14.0a0\n"
    code, out, err = run(prepared.path, "release", "prepare", "--version", "2.14.0")
    assert code == 0, err
    assert "2.14.0a0 -> 2.14.0" in " ".join(out.split()) + err
    prepared.git("switch", "-q", "main")
    code, out, err = run(prepared.path, "verify", "--only", "git_state", "--only", "versions")
    assert code == 0, out + err


def test_a_real_alpha_on_main_is_named_for_what_it_is(prepared: Repo, run: Run) -> None:
    code, _, err = run(prepared.path, "init", "--execute")
    assert code == 0, err
    prepared.git("commit", "-q", "-am", "chore: adopt mlrelease")
    code, _, err = run(prepared.path, "bump", "--to", "2.14.0a1", "--execute")
    assert code == 0, err
    prepared.git("commit", "-q", "-am", "chore: an alpha on main")
    code, out, err = run(prepared.path, "verify", "--only", "git_state")
    assert code != 0
    assert "2.14.0a1, a pre-release version" in " ".join((out + err).split()), out + err
