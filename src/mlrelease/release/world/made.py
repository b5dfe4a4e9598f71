"""The record of the tags release commands made in this clone
(``.git/mlrelease/made/tags/<tag>.json``, in the common git dir, shared by linked worktrees).

Whether a tag that origin lacks is this clone's own, made by ``release rc`` or ``release
promote`` and not pushed yet (a run killed before its push, or run without ``--push``), is read
here, never from the tag's annotation: a fork's tag made by mlrelease carries the same
``Made-by`` line, and fetched into this clone it is nobody's release here. A tag is recorded
twice around the ``git tag`` that makes it: its name and commit right before (so a kill while
git runs leaves the intent), its tag object right after. A record names the object it made;
an intent alone names the commit, and holds only for an mlrelease tag on that commit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from mlrelease.edges import git
from mlrelease.release.plan import Action, git_action
from mlrelease.release.world.snapshot import MadeTag


def folder(root: Path) -> Path:
    return _in(git.common_dir(root))


def _in(common_dir: Path) -> Path:
    return common_dir / "mlrelease" / "made" / "tags"


def _path(root: Path, name: str) -> Path:
    return folder(root) / f"{quote(name, safe='')}.json"


def read(common_dir: Path) -> dict[str, MadeTag]:
    """Tag name -> what this clone recorded making under it (an unreadable record is no
    record: the tag is then not this clone's, and is refused, never pushed); ``common_dir``:
    the repository's common git folder (:func:`mlrelease.edges.git.folders`)."""
    here = _in(common_dir)
    found: dict[str, MadeTag] = {}
    for path in sorted(here.glob("*.json")) if here.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        name, commit, made = data.get("tag"), data.get("commit"), data.get("object")
        if (
            isinstance(name, str)
            and isinstance(commit, str)
            and isinstance(made, (str, type(None)))
        ):
            found[name] = MadeTag(name, commit, made, str(data.get("verb", "")))
    return found


def write(root: Path, made: MadeTag) -> None:
    """Record ``made`` (atomically: the old record or the new one, never half of one)."""
    target = _path(root, made.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = {"tag": made.name, "commit": made.commit, "object": made.tag_object, "verb": made.verb}
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, target)


def _made(root: Path, name: str, commit: str, verb: str) -> Callable[[], None]:
    def record() -> None:
        sha = git.run(root, "rev-parse", "--verify", f"refs/tags/{name}")
        write(root, MadeTag(name, commit, sha, verb))

    return record


def tag_action(root: Path, name: str, commit: str, verb: str, *args: str) -> Action:
    """``git tag ARGS``, which makes tag ``name`` on ``commit``, recorded as this clone's."""
    return git_action(
        "tag",
        "tag",
        *args,
        intent=lambda: write(root, MadeTag(name, commit, None, verb)),
        made=_made(root, name, commit, verb),
    )
