"""The PyTorch family's release practice on a repository shaped like Torch-TensorRT
(:mod:`helpers.torch_family`, a bare origin and a clone): an RC tagged again on the same commit
(Torch-TensorRT's rc8 was rc7's commit, rebuilt), RC numbers chosen with a gap, fixes picked by
hand (the pull request's number in the subject, no trailer), a revert chain."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from helpers.projects import configure
from helpers.projects.tag_model import FILES, TENSORRT
from helpers.release import GIT_ENV, Repo, run_mlrelease
from helpers.repo import Run, in_process
from helpers.torch_family import adopt, push_torch_family


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


def _unreleased(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: Mapping[str, str]) -> Repo:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path, files)
    repo.git("tag", "-d", "v2.13.0")
    repo.git("push", "-q", "origin", ":refs/tags/v2.13.0")
    return repo


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """2.13 before its final: rc1..rc3 on origin (hand-made), mlrelease to be adopted."""
    yield _unreleased(tmp_path, monkeypatch, FILES)


@pytest.fixture
def tensorrt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """The same history in Torch-TensorRT's shape (setup.py, workflows, a native build)."""
    yield _unreleased(tmp_path, monkeypatch, TENSORRT)


def _on_branch(repo: Repo, run: Run) -> None:
    """Adopted, on release/2.13 with its changelog section."""
    adopt(repo, run)
    repo.git("switch", "-q", "release/2.13")
    code, _, err = run(repo.path, "release", "prepare", "--version", "2.13.0", "--execute")
    assert code == 0, err


def _said(out: str, err: str) -> str:
    return " ".join((out + err).split())


def test_an_rc_is_rebuilt_on_the_same_commit_as_the_next_number(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    head = family.git("rev-parse", "HEAD")
    code, out, err = run(family.path, "release", "rc")
    assert code == 0, err
    said = _said(out, err)
    assert "already v2.13.0-rc4" in said and "--rebuild" in said and "v2.13.0-rc5" in said, said
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code == 0, err
    assert "git tag -a v2.13.0-rc5" in _said(out, err), out + err
    code, out, err = run(family.path, "release", "rc", "--rebuild", "--json")
    assert code == 0, err
    plan = json.loads(out)  # the plan alone on stdout, as scripts read it
    assert plan["command"] == "rc" and plan["executed"] is False, plan
    assert plan["actions"][0]["git"][:4] == ["git", "tag", "-a", "v2.13.0-rc5"], plan
    code, out, err = run(family.path, "release", "rc", "--rebuild", "--execute", "--push")
    assert code == 0, out + err
    assert family.origin_git("rev-parse", "v2.13.0-rc5^{commit}") == head
    note = family.git("tag", "-l", "--format=%(contents)", "v2.13.0-rc5")
    assert "Rebuild-of: v2.13.0-rc4" in note and "Made-by: mlrelease release rc" in note, note
    # Pinned by --tag, a rebuild run again finds it made.
    code, out, err = run(
        family.path, "release", "rc", "--rebuild", "--tag", "v2.13.0-rc5", "--execute", "--push"
    )
    assert code == 0, err
    assert "Nothing to do" in out + err or "nothing to do" in out + err, out + err
    assert "v2.13.0-rc6" not in family.git("tag", "-l")
    # Run again without --tag, after the rebuild was pushed: nothing to do, and how to ask.
    code, out, err = run(family.path, "release", "rc", "--rebuild", "--execute", "--push")
    assert code == 0, err
    said = _said(out, err)
    assert "nothing to do" in said and "--rebuild --tag v2.13.0-rc6" in said, said
    assert "v2.13.0-rc6" not in family.git("tag", "-l")
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["tags"]["rebuilds"] == {"v2.13.0-rc5": "v2.13.0-rc4"}, status["tags"]
    assert status["next_rc"] == "v2.13.0-rc6"
    code, out, err = run(family.path, "release", "status")
    assert "v2.13.0-rc5 (a rebuild of v2.13.0-rc4)" in _said(out, err), out


def test_a_rebuild_follows_origins_newest_rc(family: Repo, run: Run) -> None:
    """A colleague's rebuild pushed to origin (by hand, as Torch-TensorRT's) takes rc5: this
    clone's rebuild is rc6, never a second rc5."""
    _on_branch(family, run)
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    family.git("push", "-q", "origin", "HEAD:refs/tags/v2.13.0-rc5")  # lightweight, by hand
    family.git("tag", "-d", "v2.13.0-rc5", check=False)
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code == 0, err
    assert "git tag -a v2.13.0-rc6" in _said(out, err), out + err


def test_rebuild_needs_a_candidate_at_head(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code != 0
    said = _said(out, err)
    assert "nothing to rebuild" in said and "Omit --rebuild" in said, said


def test_tag_takes_any_number_above_the_newest_and_names_the_gap(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, out, err = run(family.path, "release", "rc", "--tag", "v2.13.0-rc7")
    assert code == 0, err
    said = _said(out, err)
    assert "git tag -a v2.13.0-rc7" in said and "skips rc4, rc5, rc6" in said, said
    code, out, err = run(family.path, "release", "rc", "--tag", "v2.13.0-rc2")
    assert code != 0
    said = _said(out, err)
    assert "next free number is 4" in said and "v2.13.0-rc3" in said, said


def _hand_picked(repo: Repo, run: Run) -> dict[str, str]:
    """Torch-TensorRT's 2.13 picks, made by hand (no trailer): main's fixes since the fork, and
    release/2.13 with #4300 adapted (its subject names it), #4301 picked as is (no -x line),
    #4305 picked and reverted on the branch; on main #4303 reverted and relanded, #4304
    reverted. Returns subject -> main's commit."""
    adopt(repo, run)
    fixes: dict[str, str] = {}
    for n, subject in enumerate(
        [
            "fix: dynamic shapes in the converter (#4300)",
            "Fix the ABI flag of the C++ runtime (#4301)",
            "feat: a 2.14 feature (#4302)",
            "fix: a broken cast (#4303)",
            "fix: an unsafe default (#4304)",
            "fix: the engine cache key (#4305)",
        ]
    ):
        fixes[subject] = repo.commit_file(f"src/demo/change{n}.py", f"N = {n}\n", subject)
    for pr in ("4303", "4304"):
        repo.git("revert", "--no-edit", next(c for s, c in fixes.items() if pr in s))
    repo.git("revert", "--no-edit", "HEAD~1")  # the revert of #4303, reverted: relanded
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/2.13")
    repo.commit_file(
        "src/demo/change0.py",
        "N = 0  # adapted for 2.13\n",
        "[release/2.13] fix: dynamic shapes in the converter (#4300) (#4390)",
    )
    repo.git("cherry-pick", fixes["Fix the ABI flag of the C++ runtime (#4301)"])
    repo.git("cherry-pick", "-x", fixes["fix: the engine cache key (#4305)"])
    repo.git("revert", "--no-edit", "HEAD")
    return fixes


def _configure(repo: Repo, picks: str) -> None:
    """``picks = PICKS`` added to [tool.mlrelease.release] on the branch, committed."""
    configure(repo.path, "tool.mlrelease.release", {"picks": picks})
    repo.git("commit", "-q", "-am", "chore: configure the picks")


def _row(out: str, sha: str) -> str:
    return next(line for line in out.splitlines() if f"`{sha[:12]}`" in line)


def test_hand_picks_are_found_by_pull_request_patch_and_reverts(family: Repo, run: Run) -> None:
    fixes = _hand_picked(family, run)
    code, out, err = run(family.path, "release", "cherry-picks")
    assert code == 0, err
    said = _said(out, err)
    assert "No commit is marked" not in said
    assert "- not wanted" in _row(out, fixes["fix: a broken cast (#4303)"])
    assert "no `Release-Target: 2.13`" in _row(out, fixes["fix: a broken cast (#4303)"])
    assert 'picks = "fixes"' in said, said  # the way to say how this project picks
    _configure(family, "fixes")
    code, out, err = run(family.path, "release", "cherry-picks")
    assert code == 0, err
    rows = {s: _row(out, c) for s, c in fixes.items() if "feat" not in s}
    assert "feat: a 2.14 feature" not in out  # not a fix: not the release's business
    assert "picked (same pull request)" in rows["fix: dynamic shapes in the converter (#4300)"]
    assert "#4300 in the subject" in rows["fix: dynamic shapes in the converter (#4300)"]
    assert "the same patch (patch id)" in rows["Fix the ABI flag of the C++ runtime (#4301)"]
    assert "- [ ] missing" in rows["fix: a broken cast (#4303)"]  # reverted, then relanded
    assert "withdrawn" in rows["fix: an unsafe default (#4304)"]
    assert "reverted on the branch" in rows["fix: the engine cache key (#4305)"]
    assert "a fix since the fork" in rows["fix: a broken cast (#4303)"]
    # The adoption, picked onto the branch with -x, is no fix but is shown: it is on the branch.
    assert "2 of 5 picked, 1 missing, 1 withdrawn, 1 reverted; 1 other commit(s) of main" in out
    adoption = next(line for line in out.splitlines() if "chore: adopt mlrelease" in line)
    assert adoption.startswith("| - [x] picked (adapted) |"), adoption
    assert f"git cherry-pick -x {fixes['fix: a broken cast (#4303)']}" in _said(out, err)
    assert _said(out, err).count("git cherry-pick -x") == 2  # the row's hint and the plan's
    code, out, err = run(family.path, "release", "cherry-picks", "--json")
    assert code == 0, err
    found = {p["subject"]: p for p in json.loads(out)["picks"]}  # stdout is the JSON alone
    assert found["fix: dynamic shapes in the converter (#4300)"]["state"] == "same-pr"
    assert found["fix: a broken cast (#4303)"]["state"] == "missing"
    assert found["fix: the engine cache key (#4305)"]["picked"] is False
    assert "feat: a 2.14 feature (#4302)" not in found
    assert [a["git"][1:3] for a in json.loads(out)["actions"]] == [["cherry-pick", "-x"]]


def test_a_milestone_file_says_which_fixes_are_wanted(family: Repo, run: Run) -> None:
    fixes = _hand_picked(family, run)
    _configure(family, "milestone")
    code, _, err = run(family.path, "release", "cherry-picks")
    assert code != 0 and "release-picks-2.13.txt" in err and "#1234" in err, err
    (family.path / "release-picks-2.13.txt").write_text("# the 2.13 milestone\n#4301\n4305\n")
    code, out, err = run(family.path, "release", "cherry-picks")
    assert code == 0, err
    assert "#4301 in the milestone file" in _row(
        out, fixes["Fix the ABI flag of the C++ runtime (#4301)"]
    )
    assert "- not wanted" in _row(out, fixes["fix: a broken cast (#4303)"])
    assert "git cherry-pick -x" not in err  # nothing the milestone wants is missing
    (family.path / "release-picks-2.13.txt").write_text("#4301\nthe cast fix\n")
    code, _, err = run(family.path, "release", "cherry-picks")
    assert code != 0 and "release-picks-2.13.txt:2" in err, err


EDITS = """
[[tool.mlrelease.release.edits]]
file = ".github/workflows/*.yml"
search = "@main"
replace = "@{branch}"
"""
"""Torch-TensorRT's release-only edit: the reusable workflows pinned to the release branch."""


def test_rc_refuses_a_branch_that_lacks_a_release_only_edit(tensorrt: Repo, run: Run) -> None:
    repo = tensorrt
    adopt(repo, run)
    for branch in ("main", "release/2.13"):
        repo.git("switch", "-q", branch)
        with (repo.path / "pyproject.toml").open("a", encoding="utf-8") as handle:
            handle.write(EDITS)
        repo.git("commit", "-q", "-am", "chore: declare the release-only edit")
    repo.git("push", "-q", "origin", "main", "release/2.13")
    code, _, err = run(repo.path, "release", "prepare", "--version", "2.13.0", "--execute")
    assert code == 0, err
    code, out, err = run(repo.path, "release", "status")
    assert "MISSING on release/2.13" in _said(out, err), out  # what status flags ...
    code, out, err = run(repo.path, "release", "rc", "--execute")
    said = _said(out, err)
    assert code != 0 and "rc: release/2.13 lacks release-only edits" in said, said  # ... rc refuses
    assert ".github/workflows/build-tensorrt-linux.yml: '@main' -> '@release/2.13'" in said
    assert "mlrelease release cut --version 2.13 --execute" in said
    assert "v2.13.0-rc4" not in repo.git("tag", "-l")
    code, out, err = run(repo.path, "release", "cut", "--version", "2.13", "--execute")
    assert code == 0, out + err
    assert "@release/2.13" in (repo.path / ".github/workflows/build-tensorrt-linux.yml").read_text()
    code, out, err = run(repo.path, "release", "rc")
    assert code == 0 and "git tag -a v2.13.0-rc4" in _said(out, err), out + err


def test_after_an_rc_status_proposes_verification_and_promotion(family: Repo, run: Run) -> None:
    """No changelog section yet (the tag model only notes it): prepare would write one, a
    commit that needs another RC. Nor is bump-my-version's tag warning repeated."""
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    preview = json.loads(out)["next"]["prepare"]
    assert preview.startswith("not proposed: HEAD is v2.13.0-rc4"), preview
    assert "mlrelease release promote --rc v2.13.0-rc4" in preview


def test_bump_my_versions_tag_warning_is_not_repeated(family: Repo, run: Run) -> None:
    """release/2.13 carries 2.13.0a0, behind its newest tag v2.13.0-rc3, as the tag model
    promises: bump-my-version warned at every configuration read."""
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    done = run_mlrelease(family, "release", "status")  # a process of its own: its logging
    assert done.returncode == 0, done.stderr
    assert "does not match last tagged version" not in done.stderr, done.stderr


def test_a_published_hand_made_rc_is_never_advised_deleted(family: Repo, run: Run) -> None:
    adopt(family, run)
    family.git("switch", "-q", "release/2.13")
    family.git("push", "-q", "origin", "HEAD:refs/tags/v2.13.0-rc4")  # by hand, lightweight
    code, out, err = run(family.path, "release", "rc")
    said = _said(out, err)
    assert code != 0 and "lightweight tag" in said, said
    assert "delete" not in said.replace("never deleted", ""), said
    assert "mlrelease release rc --rebuild --execute --push" in said
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code == 0 and "git tag -a v2.13.0-rc5" in _said(out, err), out + err


def _init(repo: Repo) -> tuple[int, str, str]:
    """``mlrelease init`` (a dry run) in a process of its own: its findings table is as wide
    as COLUMNS says, whatever width an earlier test left the in-process console."""
    done = run_mlrelease(repo, "init")
    assert done.returncode == 0, done.stderr
    return done.returncode, done.stdout, done.stderr


CARRIERS = {
    "MODULE.bazel": 'module(\n    name = "torch_tensorrt",\n    version = "2.14.0a0",\n)\n',
    "docker/MODULE.bazel.ngc": 'module(name = "torch_tensorrt", version = "2.14.0a0")\n',
    "cpp/include/torch_tensorrt/macros.h": '#define TORCH_TENSORRT_VERSION "2.14.0a0"\n',
    "docker/Dockerfile": "FROM ubuntu\nRUN pip install torch==2.14.0a0 --pre\n",
    "docs/install.md": "Nightlies are 2.14.0a0 until the branch cut.\n",
}
"""Torch-TensorRT's other version carriers on main, and two places that only spell it."""


def test_init_finds_bazel_modules_and_a_cpp_macro_and_cut_bumps_them(
    tensorrt: Repo, run: Run
) -> None:
    repo = tensorrt
    for path, text in CARRIERS.items():
        repo.commit_file(path, text, f"build: {path}")
    repo.git("push", "-q", "origin", "main")
    code, out, err = _init(repo)
    said = _said(out, err)
    for path in ("MODULE.bazel", "docker/MODULE.bazel.ngc", "cpp/include/torch_tensorrt/macros.h"):
        assert f'filename = "{path}"' in out, out
    assert 'search = "#define TORCH_TENSORRT_VERSION \\"{current_version}\\""' in out, out
    assert "docker/Dockerfile:2: a pin of another package" in said, said
    assert "docs/install.md:1:" in said and "documentation: it names versions" in said, said
    assert 'filename = "docker/Dockerfile"' not in out
    adopt(repo, run)
    code, out, err = run(repo.path, "verify", "--only", "versions")
    assert code == 0, out + err
    code, out, err = run(repo.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, out + err
    for path in ("MODULE.bazel", "docker/MODULE.bazel.ngc", "cpp/include/torch_tensorrt/macros.h"):
        assert "2.15.0a0" in repo.git("show", f"main:{path}"), path  # moved with main
        assert "2.14.0a0" in repo.git("show", f"release/2.14:{path}"), path
    assert "torch==2.14.0a0" in repo.git("show", "main:docker/Dockerfile")  # left as it was
    repo.git("switch", "-q", "main")
    (repo.path / "MODULE.bazel").write_text(CARRIERS["MODULE.bazel"], encoding="utf-8")
    code, out, err = run(repo.path, "verify", "--only", "versions")
    assert code != 0 and "MODULE.bazel" in out + err, out + err  # the gate checks it


def test_init_proposes_the_release_only_edits_of_the_newest_branch(
    tensorrt: Repo, run: Run
) -> None:
    """release/2.14's first commit pins the reusable workflows to the branch, as
    Torch-TensorRT's every release branch does: init proposes that edit, with {branch}, and
    names the commit that made it."""
    repo = tensorrt
    repo.git("switch", "-q", "-c", "release/2.14")
    for name in ("linux", "windows"):
        path = repo.path / f".github/workflows/build-tensorrt-{name}.yml"
        path.write_text(path.read_text().replace("@main", "@release/2.14"), encoding="utf-8")
    repo.git("commit", "-q", "-am", "chore: release-only edits for 2.14")
    repo.git("push", "-q", "origin", "release/2.14")
    repo.git("switch", "-q", "main")
    code, out, err = _init(repo)
    assert "[[tool.mlrelease.release.edits]]" in out, out
    assert 'file = ".github/workflows/build-tensorrt-linux.yml"' in out
    assert "build_wheels_linux.yml@{branch}" in out, out
    assert "release-only edits: made by" in _said(out, err), _said(out, err)
    assert "'chore: release-only edits for 2.14' of release/2.14" in _said(out, err)
    code, out, err = run(repo.path, "init", "--execute")
    assert code == 0, err
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("push", "-q", "origin", "main")
    code, out, err = run(repo.path, "release", "status", "--json", "--version", "2.14.0")
    assert code == 0, err
    assert json.loads(out)["release_edits"]["missing"] == [], out  # the branch has them all


def test_rc_refuses_a_pin_of_a_nightly_build(family: Repo, run: Run) -> None:
    """A pick brings a torchvision nightly pin onto the branch (Torch-TensorRT's #4391)."""
    _on_branch(family, run)
    path = family.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    pinned = text.replace(
        'dynamic = ["version"]\n',
        'dynamic = ["version"]\ndependencies = ["torchvision==0.29.0.dev20261101"]\n',
    )
    assert pinned != text
    path.write_text(pinned, encoding="utf-8")
    family.git("commit", "-q", "-am", "fix: the converter (#4391)")
    code, out, err = run(family.path, "release", "rc", "--execute")
    said = _said(out, err)
    assert code != 0 and "rc: release/2.13 pins development (nightly) builds" in said, said
    assert "pyproject.toml:8 ([project] dependencies): torchvision==0.29.0.dev20261101" in said
    assert "v2.13.0-rc4" not in family.git("tag", "-l")
    path.write_text(pinned.replace("0.29.0.dev20261101", "0.29.0"), encoding="utf-8")
    family.git("commit", "-q", "-am", "fix: pin the released torchvision")
    code, out, err = run(family.path, "release", "rc")
    assert code == 0 and "git tag -a v2.13.0-rc4" in _said(out, err), out + err
