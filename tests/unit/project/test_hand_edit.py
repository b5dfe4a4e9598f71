"""A hand edit of the version files (issue 53): the one version every listed file carries
instead of ``current_version`` is named, with the command that repairs the key."""

from __future__ import annotations

from mlrelease.version_files import SYNC, Occurrence, Problem, hand_edit, stale_current


def _missing(carried: str | None) -> Problem:
    return Problem("VERSION_NUMBER", "bump-my-version's search finds nothing", carried)


def test_every_file_carrying_one_other_version_is_a_hand_edit() -> None:
    assert hand_edit([], [_missing("1.17.0rc1")], "1.16.1") == "1.17.0rc1"
    found = [Occurrence("pyproject.toml", 7, "1.17.0rc1")]
    assert hand_edit(found, [_missing("1.17.0rc1")], "1.16.1") == "1.17.0rc1"
    message = stale_current("1.16.1", "1.17.0rc1")
    assert "current_version says 1.16.1" in message and SYNC in message


def test_files_that_disagree_or_agree_with_the_key_are_no_hand_edit() -> None:
    assert hand_edit([Occurrence("a.py", 1, "1.16.1")], [_missing("1.17.0rc1")], "1.16.1") is None
    assert hand_edit([], [_missing("1.17.0rc1"), _missing("1.17.0")], "1.16.1") is None
    assert hand_edit([], [_missing(None)], "1.16.1") is None  # nothing found to follow
    assert hand_edit([Occurrence("a.py", 1, "1.16.1")], [], "1.16.1") is None
