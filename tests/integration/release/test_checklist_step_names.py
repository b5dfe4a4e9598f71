"""Checklist steps are named after the verbs they run (``cut``, ``prepare``, ``rc``); the old
names (``freeze``, ``bump``, ``rc-tag``) are accepted for one release with a message saying the
new name: in the configuration, in ``--confirm``/``--redo`` and in ledgers written before. A step
has one command: the one it runs is the one the page and the dry run show."""

from __future__ import annotations

import json
import re

from helpers.release import Repo

from mlrelease.registry import load_config
from mlrelease.release.checklist.doc import render
from mlrelease.release.checklist.steps import DEFAULT_CHECKLIST


def _use_old_names(repo: Repo) -> None:
    path = repo.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    for new, old in (("cut", "freeze"), ("prepare", "bump"), ("rc", "rc-tag")):
        text = text.replace(f'id = "{new}"\n', f'id = "{old}"\n')
    path.write_text(text, encoding="utf-8")
    repo.git("commit", "-q", "-am", "chore: a checklist written before the rename")


def test_the_default_steps_are_named_after_their_verbs() -> None:
    ids = {s.id: s.run[:3] for s in DEFAULT_CHECKLIST if s.run[:2] == ["mlrelease", "release"]}
    # The RC channel is a publish, to the test index: named after what it feeds.
    assert ids.pop("rc-channel")[2] == "publish"
    assert all(run[2] == step for step, run in ids.items()), ids
    assert {"cut", "prepare", "rc", "bind", "publish", "promote"} <= set(ids)


def test_old_step_names_in_the_config_are_accepted_and_named(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    _use_old_names(repo)
    code, _, err = mlr("release", "checklist", "--version", "1.4.0")
    assert code == 0, err
    assert "step 'freeze' is now called 'cut'" in err and "step 'rc-tag' is now called 'rc'" in err
    assert "pending cut:" in err and "pending rc:" in err and "freeze:" not in err


def test_old_step_names_on_the_command_line_are_accepted(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr("release", "checklist", "--version", "1.4.0", "--confirm", "freeze")
    assert code == 0 and "checklist --confirm: step 'freeze' is now called 'cut'" in err, err
    code, _, err = mlr("release", "checklist", "--version", "1.4.0", "--redo", "bump")
    assert code == 2 and "checklist --redo prepare: a mutating step is never repeated" in err


def test_a_ledger_written_under_the_old_names_resumes(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    path = repo.path / "build/release/1.4.0/ledger.json"
    path.parent.mkdir(parents=True)
    done = {"title": "Cut", "mutating": True, "status": "done", "finished": "2026-11-01"}
    path.write_text(json.dumps({"steps": [{"id": "freeze", **done}]}), encoding="utf-8")
    code, _, err = mlr("release", "checklist", "--version", "1.4.0")
    assert code == 0 and "[1/8] done cut: Cut the branch (2026-11-01)" in err, err


def test_a_step_has_one_command_and_the_page_shows_it(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    page = render(load_config(repo.path))
    row = next(line for line in page.splitlines() if line.startswith("| 1 | `cut` |"))
    assert "`mlrelease release cut --version {series} --execute --push`" in row, row
    path = repo.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace('id = "cut"\n', 'id = "cut"\ntask = "invoke release.cut"\n'), "utf-8"
    )
    code, _, err = mlr("release", "checklist", "--version", "1.4.0")
    assert code == 2 and "tool.mlrelease.release.checklist[0].task" in err, err
    assert re.search(r"no task for a step with a run", err)
