"""Commit subjects read as back-ports write them (invariant (e): a fix is found by its pull
request or its subject as well as by its patch)."""

from __future__ import annotations

from mlrelease.release.commit_subjects import named_prs, normalised, pr_number


def test_subjects_are_compared_as_back_ports_write_them() -> None:
    assert pr_number("fix: empty answers (#123)") == "123"
    assert pr_number("Merge pull request #7 from a/b") == "7"
    assert pr_number("fix: 1.4 (#1) and more") is None
    assert normalised("[1.4] Fix: Empty  answers. (#123)") == normalised("fix: empty answers")
    assert normalised("cherry-pick: fix: x") == "fix: x"


def test_a_back_port_names_the_pull_requests_it_carries() -> None:
    assert named_prs("[cherry-pick][release/2.13] fix (#4321) (#4373)") == {"4321", "4373"}
    assert named_prs("cherrypick: PRs #4371, #4387") == {"4371", "4387"}
    assert named_prs("cherry pick 4247 4256 from main") == {"4247", "4256"}
    assert named_prs("fix: off by one") == set()
