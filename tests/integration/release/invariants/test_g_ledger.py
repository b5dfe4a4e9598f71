"""Invariant (g): a ledger belongs to one version (docs/release/invariants.md)."""

from __future__ import annotations

import json

from helpers.release import CHECKLIST_STEPS, Repo


def test_a_ledger_of_another_version_is_refused(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 14: a ledger of another version, copied from a colleague's machine, reported "all
    steps done"."""
    theirs = colleague.path / "build/release/1.3.0/ledger.json"
    theirs.parent.mkdir(parents=True)
    steps = [
        {"id": s, "title": s, "mutating": True, "status": "done", "finished": "2026-01-01"}
        for s in CHECKLIST_STEPS
    ]
    theirs.write_text(json.dumps({"schema_version": 1, "version": "1.3.0", "steps": steps}))
    mine = repo.path / "build/release/1.4.0/ledger.json"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(theirs.read_bytes())  # copied under the 1.4.0 folder
    code, _, err = mlr("release", "checklist", "--version", "1.4.0", "--execute")
    assert code == 2 and "1.3.0" in err and "steps done" not in err
    assert repo.git("for-each-ref", "refs/heads").count("\n") == 0  # nothing ran
