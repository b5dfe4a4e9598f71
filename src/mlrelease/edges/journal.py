"""The edit journal: crash safety for every command that edits files before it commits them.

Before the first file is written, the journal (``.git/mlrelease-edit.json``) records HEAD, the
files about to change and the command's purpose. A process killed between the edits and the
commit leaves the journal behind; the next run of an editing command restores exactly those
files from HEAD (:func:`rollback`) and redoes the edit, so no half-edited file survives a crash.
A journal whose HEAD has moved on means the commit landed; it is dropped. Used by the release
verbs (through their plans' journal actions) and by ``mlrelease bump``.

A long command that measures rather than edits (``mlrelease perf bisect``) keeps a step log
instead: one JSON line per finished step, appended and synced (:func:`append_entry`), read back
whole lines only (:func:`read_entries`), so a killed run resumes from its last finished step.

A journal may name each file with the SHA-256 of its content before and after the edit (the
release verbs compute every edit before writing it): then only a file holding exactly what the
edit wrote is restored, and a file holding anything else is someone's edit, never reverted
(docs/release/invariants.md (f)).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mlrelease.edges import git
from mlrelease.edges.digests import sha256

JOURNAL = "mlrelease-edit.json"
"""The journal's file name, in the repository's git folder."""


def journal_path(root: Path) -> Path:
    return git.git_dir(root) / JOURNAL


def read_journal(root: Path, git_dir: Path | None = None) -> dict[str, Any] | None:
    """The journal left in ``root``'s git folder (``git_dir`` where the caller asked git for
    it already), or None."""
    path = journal_path(root) if git_dir is None else git_dir / JOURNAL
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        # Unparsable (a kill during the journal write cannot leave one: it is replaced
        # atomically). Left in place: only an executing run drops it, never a dry run.
        return None
    return data if isinstance(data, dict) else None


def write_journal(
    root: Path, files: Sequence[str] | Mapping[str, Mapping[str, str | None]], purpose: str
) -> None:
    """Record HEAD and ``files`` before they are edited (atomically: absent or complete): a
    list of names, or name -> the SHA-256 of its content ``before`` and ``after`` the edit."""
    listed = {k: dict(v) for k, v in files.items()} if isinstance(files, Mapping) else list(files)
    write_state(journal_path(root), {"head": git.head(root), "files": listed, "purpose": purpose})


def write_state(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically: after a kill it is absent, as it was, or
    complete (the state of a resumable command: a train promotion's chosen candidates)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def read_state(path: Path) -> dict[str, Any] | None:
    """What :func:`write_state` wrote at ``path`` (None: nothing, or not a JSON object)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def drop_journal(root: Path) -> None:
    journal_path(root).unlink(missing_ok=True)


def rollback(root: Path) -> list[str]:
    """Restore the journalled files from HEAD (after a failed edit); returns the files."""
    journal = read_journal(root)
    if journal is None or journal.get("head") != git.head(root):
        drop_journal(root)
        return []
    dirty = set(git.dirty_files(root))
    listed = journal.get("files", [])
    files = [f for f in listed if f in dirty]
    if isinstance(listed, dict):  # only files holding what the edit wrote
        files = [f for f in files if digest_if_present(root / f) == listed[f].get("after")]
    if files:
        git.run(root, "restore", "--source=HEAD", "--staged", "--worktree", "--", *files)
    drop_journal(root)
    return files


def digest_if_present(path: Path) -> str | None:
    """A journalled file's SHA-256 as it is now, as the journal records it: None when the file
    is missing (an edit may delete one)."""
    return sha256(path) if path.is_file() else None


def append_entry(path: Path, entry: Mapping[str, Any]) -> None:
    """Append ``entry`` to the step log at ``path`` as one JSON line, synced to disk before
    returning: a long command (a perf bisect) that is killed keeps every step it finished. A
    kill during the write leaves at most a partial last line, which :func:`read_entries` drops
    and the next append ends first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(entry, sort_keys=True) + "\n"
    cut = path.is_file() and path.stat().st_size > 0 and not _ends_with_newline(path)
    with open(path, "ab") as handle:
        if cut:
            handle.write(b"\n")
        handle.write(line.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def read_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of the step log at ``path``, in order (none when it does not exist); a line
    that is not a whole JSON object (the one a kill cut short) is left out."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    entries = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries
