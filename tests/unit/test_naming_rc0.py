"""RC tags numbered 0 (torchdata's ``v0.11.0-rc0``) are release candidates of the default
pattern ``v{major}.{minor}.{patch}-rc{rc}``: before, promote exited 2 on them and status left
them out."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.naming import Names


def test_rc_tags_numbered_zero_are_release_candidates() -> None:
    """torchdata tags ``v0.11.0-rc0``; the next candidate after it is rc1."""
    names = Names.compile("t")
    assert names.parse_tag("v0.11.0-rc0") == (Version("0.11.0"), 0)
    assert names.rc_tag.parse("v0.11.0-rc00") is None  # a number has no leading zero
