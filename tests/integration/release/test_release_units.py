"""Unit tests of the pure parts: name patterns, config validation, the checklist page,
the gate on real repositories, journal recovery and cherry-pick conflicts."""

from __future__ import annotations

import re

import pytest
from helpers import REPO_ROOT
from helpers.release import Repo
from packaging.version import Version

from mlrelease.errors import ConfigError, UserError
from mlrelease.gates import Context, Status
from mlrelease.naming import Names
from mlrelease.registry import load_config, load_gates
from mlrelease.release.checklist import doc as checklist_doc
from mlrelease.release.checklist.fitting import steps_for
from mlrelease.release.config import ReleaseConfig, parse_release, parse_series
from mlrelease.toml_tables import parse_section

ROOT = REPO_ROOT


def names(**table: object) -> Names:
    config = parse_section(ReleaseConfig, table, prefix="tool.mlrelease.release", source="t")
    return Names.of(config, "t")


def test_default_names_round_trip() -> None:
    n = names()
    assert n.branch_for((1, 4)) == "release/1.4"
    assert n.series_of_branch("release/1.4") == (1, 4)
    assert n.series_of_branch("release/1.4.1") is None and n.series_of_branch("main") is None
    assert n.rc_tag_for(Version("1.4.0"), 2) == "v1.4.0-rc2"
    assert n.final_tag(Version("1.4.0")) == "v1.4.0"
    assert n.parse_tag("v1.4.0-rc2") == (Version("1.4.0"), 2)
    assert n.parse_tag("v1.4.0") == (Version("1.4.0"), None)
    assert n.parse_tag("v1.4.0-rc0") == (Version("1.4.0"), 0)  # torchdata starts at rc0
    for bad in ("v1.4.0rc2", "v12.0.0.0", "1.4.0", "v1.4.0-rc00", "v01.4.0", "v1.4.0-rc"):
        assert n.parse_tag(bad) is None, bad


def test_custom_names() -> None:
    n = names(
        branch="rel-{major}.{minor}.x",
        tag="{major}.{minor}.{patch}",
        rc_tag="{major}.{minor}.{patch}.rc{rc}",
    )
    assert n.branch_for((2, 0)) == "rel-2.0.x" and n.series_of_branch("rel-2.0.x") == (2, 0)
    assert n.parse_tag("2.0.1.rc3") == (Version("2.0.1"), 3)
    assert n.parse_tag("2.0.1") == (Version("2.0.1"), None)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("branch", "release/{major}", "each of {major}{minor} once"),
        ("rc_tag", "v{major}.{minor}.{patch}", "each of {major}{minor}{patch}{rc} once"),
        ("tag", "v{major}.{minor}.{patch}{build}", "no other placeholder"),
        ("tag", "v {major}.{minor}.{patch}", "a valid git ref name"),
        ("branch", "release..{major}.{minor}", "a valid git ref name"),
    ],
)
def test_bad_patterns_are_config_errors(key: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        names(**{key: value})
    assert expected in str(info.value) and "tool.mlrelease.release." in str(info.value)


def test_unknown_release_key_is_named() -> None:
    with pytest.raises(ConfigError, match=r"tool.mlrelease.release.trailr.*Did you mean 'trailer'"):
        parse_section(ReleaseConfig, {"trailr": "X"}, prefix="tool.mlrelease.release", source="t")
    with pytest.raises(ConfigError, match=r"checklist\[0\].title"):
        parse_section(
            ReleaseConfig,
            {"checklist": [{"id": "a", "task": "t"}]},
            prefix="tool.mlrelease.release",
            source="t",
        )


def test_version_arguments() -> None:
    assert parse_series("1.4") == (1, 4)
    assert parse_release("1.4.0") == Version("1.4.0")
    for bad in ("1.4.0rc1", "1.4", "1.4.0.dev0", "v1.4.0", "1.04.0"):
        with pytest.raises(UserError, match="expected a final release version"):
            parse_release(bad)


def test_checklist_page_is_generated_and_current() -> None:
    config = load_config(ROOT)
    text = checklist_doc.render(config)
    assert (ROOT / config.table(ReleaseConfig).checklist_doc).read_text(encoding="utf-8") == text, (
        "docs/release/checklist.md is stale: run `mlrelease release checklist-doc`"
    )
    body = re.sub(r"```.*?```", "", text, flags=re.S)
    assert [line for line in body.splitlines() if line.startswith("# ")] == ["# Release checklist"]
    for step in steps_for(config):
        assert f"| `{step.id}` |" in text
    assert "## Patch releases" in text and "## Cherry-picks" in text
    assert "`Release-Target: X.Y`" in text
    # MyST: no `{name}` directly followed by a backtick outside code (it would be a role)
    assert not re.search(r"(?<!`)\{[a-z_]+\}`", re.sub(r"`[^`]*`", "", text))


def test_checklist_doc_check_mode(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr("release", "checklist-doc", "--check")
    assert code == 1 and "is stale" in err
    assert mlr("release", "checklist-doc", "--execute")[0] == 0
    page = (repo.path / "docs/release/checklist.md").read_text()
    assert "| 8 | `promote` |" in page and "`?ref=main`" not in page
    code, _, err = mlr("release", "checklist-doc", "--check")
    assert code == 0 and "is current" in err


def gate(repo: Repo):  # type: ignore[no-untyped-def]
    g = load_gates(load_config(repo.path))["git_state"]
    return g.execute(Context(load_config(repo.path)))


def test_git_state_passes_on_this_repository_style_main(repo: Repo) -> None:
    result = gate(repo)
    assert result.status is Status.PASS, result.details
    assert "version 1.4.0.dev0, branch main agree" in result.summary


def test_git_state_failures(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    (repo.path / "scratch.txt").write_text("x")
    result = gate(repo)
    assert result.status is Status.FAIL and "uncommitted changes: `scratch.txt`" in result.summary
    (repo.path / "scratch.txt").unlink()
    repo.git("branch", "release/1.4")  # cut by hand, main not moved on
    result = gate(repo)
    assert result.status is Status.FAIL and "the cut did not finish" in result.summary
    repo.git("branch", "-D", "release/1.4")
    repo.git("tag", "-a", "v1.4.0-rc1", "-m", "wrong: main carries a .dev version")
    result = gate(repo)
    assert result.status is Status.FAIL
    assert "HEAD is tagged `v1.4.0-rc1` (release candidate 1 of 1.4.0)" in result.summary
    repo.git("tag", "-d", "v1.4.0-rc1")
    repo.git("switch", "-q", "-c", "release/1.3")
    result = gate(repo)
    assert result.status is Status.FAIL and "`release/1.3` carries 1.4.0.dev0" in result.summary


def test_git_state_on_a_release_candidate(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    assert gate(repo).status is Status.PASS
    assert mlr("release", "prepare", "--version", "1.4.0", "--execute")[0] == 0
    assert mlr("release", "rc", "--execute")[0] == 0
    result = gate(repo)
    assert result.status is Status.PASS and "tag v1.4.0-rc1" in result.summary


def test_interrupted_edit_with_foreign_changes_is_refused(repo: Repo, mlr, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # a real half-edit: kill points need a subprocess, so make the journal the way a killed
    # run leaves it (HEAD, files) and edit one of its files
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    from mlrelease.release.plan import begin_edit

    begin_edit(repo.path, ["pyproject.toml", "src/demo/__init__.py"], "prepare").call()  # type: ignore[misc]
    init = repo.path / "src/demo/__init__.py"
    init.write_text(init.read_text().replace("1.4.0.dev0", "1.4.0"))
    (repo.path / "README.md").write_text("someone's work\n")
    code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute")
    assert code == 1 and "left src/demo/__init__.py half-edited, and README.md changed too" in err
    assert (repo.path / "README.md").read_text() == "someone's work\n"  # not touched
    code, _, err = mlr("release", "rc", "--execute")
    assert code == 1 and "An interrupted `prepare` left files half-edited" in err
    repo.git("checkout", "README.md")
    code, out, err = mlr("release", "prepare", "--version", "1.4.0", "--execute")
    assert code == 0, err
    assert "$ git restore --source=HEAD --staged --worktree -- src/demo/__init__.py" in out
    assert repo.status() == "" and repo.git("log", "-1", "--format=%s") == (
        "chore(release): prepare 1.4.0"
    )


def test_cherry_pick_conflict_is_aborted(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 1\n", "fix: branch")
    repo.git("switch", "-q", "main")
    repo.commit_file(
        "src/demo/core.py",
        "def answer() -> int:\n    return 2\n",
        "fix: main\n\nRelease-Target: 1.4, 1.5\n",
    )
    repo.git("push", "-q", "origin", "main")  # main's fixes are origin's
    head = repo.git("rev-parse", "release/1.4")
    code, out, err = mlr("release", "cherry-picks", "--branch", "release/1.4", "--execute")
    assert code == 1 and "could not apply" in err
    assert "Ran `git cherry-pick --abort`: nothing of it is left" in err
    assert repo.git("rev-parse", "release/1.4") == head and repo.status() == ""
    assert "0 of 1 picked, 1 missing" in out


def test_status_json(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    import json

    code, out, _ = mlr("release", "status", "--json")
    data = json.loads(out)
    assert code == 0 and data["version"] == "1.4.0.dev0" and data["release"] == "1.4.0"
    assert data["consistent"] and data["release_branch"] == {
        "name": "release/1.4",
        "exists": False,
        "on_remote": False,
    }
    assert data["next_rc"] == "v1.4.0-rc1" and data["tags"] == {
        "rc": [],
        "final": None,
        "local_only": [],
        "rebuilds": {},
    }
    assert data["next"]["cut"].startswith("git branch release/1.4 refs/heads/main")
    assert data["next"]["rc"].startswith("refused: rc: you are on main")
    code, out, _ = mlr("release", "status")
    assert code == 0 and "next: cut" in out


def test_status_names_a_release_branch_only_origin_has(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    # A fresh clone of torchcodec: status said "release/0.7 does not exist" (origin had it).
    repo.git("push", "-q", "origin", "main:release/1.4")
    code, out, _ = mlr("release", "status")
    assert code == 0
    assert "release/1.4 exists on origin, not in this clone" in " ".join(out.split())
