"""The world snapshot asks git fewer questions (issue #49's promote walk), with the answers it
had when it asked one question per fact: real repositories, each answer compared with the
command the snapshot used to run for it.

- :func:`git.folders` (one ``rev-parse``) answers what :func:`git.is_repo`,
  :func:`git.git_dir` and :func:`git.common_dir` answer, in a main work tree, a subfolder, a
  linked worktree (whose folders differ), the git folder itself and a folder outside any
  repository;
- :func:`git.remote_overrides` (one ``config --get-regexp``) finds what ``git config --get``
  finds per key: the last of a key's values, the remote's name as spelt, a setting given in the
  environment, no valueless or false ``mirror``;
- the local refs read with the objects origin's read left (:func:`refs.read_local` with
  ``seen``) are the refs read afresh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease.edges import git
from mlrelease.release.world import refs


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git.run(path, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("a\n", encoding="utf-8")
    git.run(path, "add", "a.txt")
    git.run(path, "commit", "-q", "-m", "first")
    return path


def _one_by_one(root: Path) -> git.Folders | None:
    if not git.is_repo(root):
        return None
    return git.Folders(git.git_dir(root), git.common_dir(root))


def test_folders_answer_what_the_three_questions_answered(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main")
    (main / "sub").mkdir()
    linked = tmp_path / "linked"
    git.run(main, "worktree", "add", "-q", str(linked), "-b", "other")
    outside = tmp_path / "outside"
    outside.mkdir()
    places = [main, main / "sub", linked, main / ".git", outside]
    found = {place: git.folders(place) for place in places}
    assert found == {place: _one_by_one(place) for place in places}
    assert found[linked] is not None and found[linked].git_dir != found[linked].common_dir
    assert found[main / ".git"] is None and found[outside] is None


def _get_each(root: Path, name: str) -> list[str]:
    """What ``git config --get`` answers per key, as remote_overrides read it before."""
    found = []
    for key in git.TRANSPORT_KEYS:
        value = git.run(root, "config", "--get", f"remote.{name}.{key}", check=False)
        if value and not (key == "mirror" and value.lower() in ("false", "no", "off", "0")):
            found.append(f"remote.{name}.{key} = {value}")
    return found


def test_remote_overrides_read_in_one_command_find_what_each_key_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path / "work")
    git.run(root, "remote", "add", "origin", str(tmp_path / "origin.git"))
    git.run(root, "remote", "add", "Fork.Two", str(tmp_path / "fork.git"))
    git.run(root, "config", "remote.origin.uploadpack", "git upload-pack; true")
    git.run(root, "config", "--add", "remote.origin.uploadpack", "the last one")
    git.run(root, "config", "remote.origin.mirror", "No")
    with (root / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write('[remote "Fork.Two"]\n\tmirror\n\tReceivePack = elsewhere\n')
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "remote.origin.receivepack")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "from the environment")
    for name in ("origin", "Fork.Two", "fork.two", "absent"):
        assert git.remote_overrides(root, name) == _get_each(root, name), name
    assert git.remote_overrides(root, "origin") == [
        "remote.origin.uploadpack = the last one",
        "remote.origin.receivepack = from the environment",
    ]


def test_local_refs_read_with_origins_objects_are_the_refs_read_afresh(tmp_path: Path) -> None:
    root = _repo(tmp_path / "work")
    origin = tmp_path / "origin.git"
    git.run(tmp_path, "init", "-q", "--bare", str(origin))
    git.run(root, "remote", "add", "origin", str(origin))
    git.run(root, "tag", "-a", "v1.0.0rc1", "-m", "an annotated RC")
    git.run(root, "tag", "light")
    git.run(root, "push", "-q", "origin", "main", "refs/tags/v1.0.0rc1:refs/tags/v1.0.0rc1")
    git.run(root, "tag", "-a", "mine-only", "-m", "a tag origin lacks")
    seen: refs.Seen = {}
    remote = refs.read_origin(root, "origin", seen)
    assert remote is not None and remote.refs.tags["v1.0.0rc1"].annotated
    assert seen  # origin's read left the objects it read
    assert refs.read_local(root, seen) == refs.read_local(root)
    assert refs.read_local(root, seen).tags["mine-only"].annotated
