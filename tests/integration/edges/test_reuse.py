"""A reused verdict's key: equal only for the same commit, tree, inputs and environment."""

from __future__ import annotations

from pathlib import Path

from helpers.repo import commit_all, git

from mlrelease.edges import reuse


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text("A = 1\n", encoding="utf-8")
    commit_all(root, "feat: a")
    return root


def test_the_key_changes_with_the_commit_the_tree_and_the_inputs(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = reuse.key(root, "pytest", "-q")
    assert first is not None and first == reuse.key(root, "pytest", "-q")
    assert first != reuse.key(root, "pytest", "-x")
    (root / "a.py").write_text("A = 2\n", encoding="utf-8")  # a tracked edit
    edited = reuse.key(root, "pytest", "-q")
    assert edited not in (None, first)
    (root / "b.py").write_text("B = 1\n", encoding="utf-8")  # an untracked file
    untracked = reuse.key(root, "pytest", "-q")
    assert untracked not in (None, first, edited)
    (root / "b.py").write_text("B = 2\n", encoding="utf-8")  # its content counts
    assert reuse.key(root, "pytest", "-q") not in (None, first, edited, untracked)
    commit_all(root, "feat: b")
    committed = reuse.key(root, "pytest", "-q")
    assert committed is not None and committed.commit != first.commit
    plain = tmp_path / "plain"
    plain.mkdir()
    assert reuse.key(plain, "pytest") is None  # outside git: nothing to key, never reused


def test_a_stamp_is_recalled_only_for_its_own_key(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    stamp = tmp_path / "evidence" / "passed.json"
    now = reuse.key(root, "docs")
    reuse.remember(stamp, now, "built", internal_links=3)
    last = reuse.recall(stamp, now)
    assert last is not None and last.summary == "built" and last.facts == {"internal_links": 3}
    assert "reused: the run of" in last.note(now, "[tool.mlrelease.gate-options.docs]")  # type: ignore[arg-type]
    (root / "a.py").write_text("A = 3\n", encoding="utf-8")
    assert reuse.recall(stamp, reuse.key(root, "docs")) is None
    assert not stamp.exists()  # a stale stamp is removed: a failing run leaves no old pass


def test_an_unreadable_stamp_is_no_stamp(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    stamp = tmp_path / "passed.json"
    for garbage in ("", "{", "[]", '{"fingerprint": 1}', '{"facts": 3}'):
        stamp.write_text(garbage, encoding="utf-8")
        assert reuse.load(stamp) is None
        assert reuse.recall(stamp, reuse.key(root, "x")) is None
