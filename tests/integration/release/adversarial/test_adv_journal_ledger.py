"""Dry runs never change or delete anything, corrupt journals included; a ledger of any wrong
shape is a clear error naming the file, never a traceback."""

from __future__ import annotations

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
