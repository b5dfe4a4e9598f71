"""A project's commit landed on a replayed branch as its change, not as its files
(:func:`case_study_replay.land`): the project's diff merged into the branch file by file, three
ways (``git merge-file``: the file where the branch stands in the project's history, the
branch's own, the commit's), so that lines the commit leaves alone keep what mlrelease's
commands made of them. A file whose change does not merge cleanly (both sides changed the same
or touching lines differently, a file one side deleted and the other changed, a binary file)
lands whole, as the commit has it, and is named."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from case_study_lib import git

Entry = tuple[str, str] | None
"""(mode, blob) of a file in a tree, or None where the tree has no such file."""


def entry(work: Path, tree: str, name: str) -> Entry:
    listed = git(work, "ls-tree", tree, "--", name).split()
    return (listed[0], listed[2]) if listed else None


def blob(work: Path, data: bytes) -> str:
    """``data`` written as a blob of ``work``; its id."""
    made = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=work,
        input=data,
        capture_output=True,
        check=True,
    )
    return made.stdout.decode().strip()


def index(work: Path, env: dict[str, str], name: str, at: Entry) -> None:
    """``name`` set to ``at`` (removed where None) in the index ``env`` names."""
    put = ["--add", "--replace", "--cacheinfo", f"{at[0]},{at[1]},{name}"] if at else []
    update = put or ["--force-remove", "--", name]
    subprocess.run(["git", "update-index", *update], cwd=work, env=env, check=True)


def _content(work: Path, at: str) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "blob", at], cwd=work, capture_output=True, check=True
    ).stdout


def merged(work: Path, base: Entry, ours: Entry, theirs: Entry) -> tuple[bool, Entry]:
    """Whether the change ``base`` -> ``theirs`` merges cleanly into the branch's ``ours``, and
    the file it leaves (``theirs`` where it does not)."""
    if ours in (base, theirs):
        return True, theirs
    if theirs == base:
        return True, ours
    if base is None or ours is None or theirs is None:
        return (
            False,
            theirs,
        )  # added on both sides differently, or deleted on one and changed on the other
    mode = theirs[0] if ours[0] == base[0] else ours[0]
    with tempfile.TemporaryDirectory(prefix="replay-merge-") as tmp:
        paths = []
        for side, at in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / side
            path.write_bytes(_content(work, at[1]))
            paths.append(str(path))
        done = subprocess.run(["git", "merge-file", "-p", "-q", *paths], capture_output=True)
    if done.returncode != 0:  # conflicts (their count), or a file git cannot merge (binary)
        return False, theirs
    return True, (mode, blob(work, done.stdout))


def land_change(
    work: Path, base: str, sha: str, env: dict[str, str], held: frozenset[str] = frozenset()
) -> list[str]:
    """The index ``env`` names set to the branch's tree (HEAD) with the project's change from
    ``base`` to ``sha`` merged in, file by file (but the files ``held`` back, which keep the
    branch's); returns the files landed whole instead (their change did not merge)."""
    subprocess.run(["git", "read-tree", "HEAD"], cwd=work, env=env, check=True)
    whole: list[str] = []
    for name in git(work, "diff", "--name-only", "--no-renames", base, sha).splitlines():
        if name in held:
            continue
        base_at, ours = entry(work, base, name), entry(work, "HEAD", name)
        clean, at = merged(work, base_at, ours, entry(work, sha, name))
        if not clean:
            whole.append(name)
        index(work, env, name, at)
    return whole


def fix_merged(
    work: Path, name: str, fixes: list[tuple[str, str, str]], env: dict[str, str]
) -> None:
    """The replay's ``fixes`` (file, text, replacement) made again in ``name`` as the index
    ``env`` names has it (a merged change may bring the text back)."""
    mine = [(text, new) for file, text, new in fixes if file == name]
    listed = git(work, "ls-files", "-s", "--", name, env=env).split()
    if not mine or not listed:
        return
    data = _content(work, listed[1]).decode("utf-8")
    for text, new in mine:
        data = data.replace(text, new)
    index(work, env, name, (listed[0], blob(work, data.encode("utf-8"))))
