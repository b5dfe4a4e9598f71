"""Dry runs never change or delete anything, corrupt journals included; a ledger of any wrong
shape is a clear error naming the file, never a traceback."""

from __future__ import annotations

import json

import pytest
from helpers.release import Repo


def test_dry_run_keeps_a_corrupt_journal(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    journal = repo.path / ".git" / "mlrelease-edit.json"
    journal.write_bytes(b'{"head": "abc", "fil')
    code, out, err = mlr("release", "cut", "--version", "1.4")
    assert code == 0 and "dry run" in err and "drop the unparsable journal" in out
    assert journal.read_bytes() == b'{"head": "abc", "fil'  # still there, unchanged
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
    assert code == 0, err
    assert not journal.exists()


@pytest.mark.parametrize(
    "content",
    [b"[]", b'{"steps": "x"}', b'{"steps": [1]}', b'{"steps": [{"id": 1, "x": 2}]}', b"\xff\xfe{"],
)
def test_malformed_ledger_is_a_clear_error(repo: Repo, mlr, content: bytes) -> None:  # type: ignore[no-untyped-def]
    path = repo.path / "build/release/1.4.0/ledger.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    code, _, err = mlr("release", "checklist", "--version", "1.4.0")
    assert code == 2 and "not a checklist ledger" in err and "move it away" in err
    assert "Traceback" not in err and path.read_bytes() == content


STEP = {"id": "cut", "title": "Freeze", "mutating": True}


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"steps": [{**STEP, "status": 3}]},
         "steps[0].status must be one of pending, running, done, failed, not 3 (int)"),
        ({"complete": "done", "steps": []}, 'complete must be true or false, not "done" (str)'),
        ({"steps": [{**STEP, "mutating": "yes"}]}, 'steps[0].mutating must be true or false'),
        ({"steps": [["cut", "done"]]}, "steps[0] must be an object (one step's record)"),
        ({"steps": {"cut": "done"}}, "steps must be a list of step records"),
        ({"steps": [{**STEP, "runs": "2"}]}, 'steps[0].runs must be an integer, not "2" (str)'),
        ({"steps": [{**STEP, "command": "cut"}]}, "steps[0].command must be a list of strings"),
        ({"steps": [{"title": "Freeze", "mutating": True}]}, "steps[0] lacks the key 'id'"),
    ],
)  # fmt: skip
def test_a_ledger_with_wrong_types_names_the_key(repo: Repo, mlr, data: object, named: str) -> None:  # type: ignore[no-untyped-def]
    path = repo.path / "build/release/1.4.0/ledger.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    for extra in ((), ("--execute",)):
        code, _, err = mlr("release", "checklist", "--version", "1.4.0", *extra)
        assert code == 2 and f"{path}: not a checklist ledger: {named}" in err, err
        assert "Traceback" not in err and json.loads(path.read_text()) == data
    assert repo.git("for-each-ref", "refs/heads").count("\n") == 0  # nothing ran


def test_a_ledger_that_is_not_utf8_says_so(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    path = repo.path / "build/release/1.4.0/ledger.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"steps": [{"id": "fr\xe9eze"}]}')
    code, _, err = mlr("release", "checklist", "--version", "1.4.0")
    assert code == 2 and f"{path}: not a checklist ledger: byte 21 is not UTF-8" in err, err


def test_a_step_the_world_shows_done_is_confirmed_with_a_reason(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    (repo.path / "scratch.txt").write_text("in the way\n")  # cut refuses a dirty tree
    code, _, err = mlr("release", "checklist", "--version", "1.4.0", "--execute")
    assert code == 1 and "cut: failed" in err
    (repo.path / "scratch.txt").unlink()
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0  # by hand
    args = ("release", "checklist", "--version", "1.4.0", "--execute", "--confirm", "cut")
    code, _, err = mlr(*args)
    assert code == 2 and "only with --reason" in err
    code, _, err = mlr(*args, "--reason", "cut by hand: release/1.4 is on origin")
    assert code == 0 and "confirmed by hand (cut by hand" in err and "all 8 steps done" in err
    path = repo.path / "build/release/1.4.0/ledger.json"
    freeze = json.loads(path.read_text())["steps"][0]
    assert (
        freeze["status"] == "done"
        and freeze["note"] == "confirmed: cut by hand: release/1.4 is on origin"
    )
