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


def test_a_step_the_world_shows_done_is_confirmed_with_a_reason(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    (repo.path / "scratch.txt").write_text("in the way\n")  # cut refuses a dirty tree
    code, _, err = mlr("release", "checklist", "--version", "1.4.0", "--execute")
    assert code == 1 and "freeze: failed" in err
    (repo.path / "scratch.txt").unlink()
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0  # by hand
    args = ("release", "checklist", "--version", "1.4.0", "--execute", "--confirm", "freeze")
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
