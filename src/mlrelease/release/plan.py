"""Plans: what a release command would do, printed by the dry run and run by ``--execute``.

A :class:`Plan` is a list of :class:`Action`\\ s. A git action is the exact argument list that
``--execute`` passes to git; the dry run prints it as ``$ git ...``, and execution prints the
same line before running it, so the two outputs list the same commands. Other actions (file
edits, bump-my-version, git-changelog) print as ``# ...`` lines.

Edits that end in a commit are journalled: before the first file is written, the journal
(``.git/mlrelease-edit.json``) records HEAD and the files about to change. A process killed
between the edits and the commit leaves the journal behind; the next run of any editing command
restores exactly those files from HEAD (``git restore``) and redoes the edit, so no half-edited
file survives a crash. A journal whose HEAD has moved on means the commit landed; it is dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.edges import git
from mlrelease.errors import UserError

FAULT_ENV = "MLRELEASE_FAULT"
"""Test hook: the name of a point (``prepare:after:bump``) where the process kills itself."""
FAULT_ALSO_KILL_ENV = "MLRELEASE_FAULT_ALSO_KILL"
"""Test hook: process ids (comma-separated) killed together with this one (the checklist
that ran the step, the promotion that ran the publisher)."""
FAULT_RECORD_ENV = "MLRELEASE_FAULT_RECORD"
"""Test hook: a file every fault point a run passes appends its name to."""
JOURNAL = "mlrelease-edit.json"


def fault_point(name: str) -> None:
    """SIGKILL this process (and the checklist runner above it) when ``$MLRELEASE_FAULT`` names
    this point. Used only by the fault-injection tests: a kill cannot be caught or cleaned up
    after, which is what a crash, an OOM kill or a closed laptop looks like."""
    record = os.environ.get(FAULT_RECORD_ENV)
    if record:  # the harness lists every point a run passes, to kill it there next
        with open(record, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    if os.environ.get(FAULT_ENV) != name:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    for other in os.environ.get(FAULT_ALSO_KILL_ENV, "").split(","):
        if other.isdigit() and int(other) != os.getpid():
            os.kill(int(other), kill)
    os.kill(os.getpid(), kill)


def fault_env() -> dict[str, str]:
    """The environment of a child process: a fault point in it kills this process (and the
    ones above it) too, as a crash of the machine would."""
    above = os.environ.get(FAULT_ALSO_KILL_ENV, "")
    return {**os.environ, FAULT_ALSO_KILL_ENV: ",".join(filter(None, [above, str(os.getpid())]))}


class StepFailed(UserError):
    """An action of an executing plan failed (its effects were undone where they can be)."""

    exit_code = 1


@dataclass(frozen=True)
class Action:
    """One step of a plan: a git command (``git_args``) or a Python callable (``call``)."""

    key: str
    """Short name; ``<plan>:after:<key>`` is the fault point after it."""
    line: str
    """What the dry run prints and execution echoes."""
    git_args: tuple[str, ...] | None = None
    call: Callable[[], None] | None = None
    undo: tuple[str, ...] | None = None
    """git arguments that clean up after this git command fails (``cherry-pick --abort``)."""
    check: Callable[[], None] | None = None
    """Run right before the git command (the gatekeeper before a push); it refuses by raising."""

    @property
    def is_git(self) -> bool:
        return self.git_args is not None


def git_action(
    key: str,
    *args: str,
    undo: tuple[str, ...] | None = None,
    check: Callable[[], None] | None = None,
) -> Action:
    line = "$ " + shlex.join(["git", *args])
    return Action(key, line, git_args=tuple(args), undo=undo, check=check)


def call_action(key: str, line: str, call: Callable[[], None]) -> Action:
    return Action(key, "# " + line, call=call)


@dataclass
class Plan:
    """What one command would do, in order; ``notes`` say what is already done."""

    name: str
    root: Path
    actions: list[Action] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    """Lines printed after a successful execution (e.g. the publish command to run next)."""

    @property
    def noop(self) -> bool:
        return not self.actions

    def lines(self) -> list[str]:
        return [a.line for a in self.actions]

    def git_commands(self) -> list[list[str]]:
        return [["git", *a.git_args] for a in self.actions if a.git_args is not None]

    def print(self, *, execute: bool, out: Callable[[str], None]) -> None:
        """Show the plan (dry run) or run it (``execute``), one line per action."""
        for note in self.notes:
            out(f"{self.name}: {note}")
        if self.noop:
            out(f"{self.name}: nothing to do.")
            return
        if not execute:
            for line in self.lines():
                print(line, flush=True)
            for line in self.after:
                out(line)
            out(
                f"{self.name}: dry run, nothing changed. Re-run with --execute to run the "
                f"{len(self.git_commands())} git command(s) above."
            )
            return
        self.execute()
        for line in self.after:
            out(line)
        out(f"{self.name}: done.")

    def execute(self) -> None:
        done: list[str] = []
        for action in self.actions:
            print(action.line, flush=True)
            try:
                if action.check is not None:
                    action.check()
                if action.git_args is not None:
                    git.run(self.root, *action.git_args)
                elif action.call is not None:
                    action.call()
            except UserError as exc:
                note = ""
                if action.undo is not None:
                    git.run(self.root, *action.undo, check=False)
                    note += f" Ran `git {' '.join(action.undo)}`: nothing of it is left."
                rolled_back = rollback(self.root)
                if rolled_back:
                    note += f" Restored {', '.join(rolled_back)} from HEAD."
                finished = f" Already done: {'; '.join(done)}." if done else ""
                raise StepFailed(
                    f"{self.name}: `{action.line[2:]}` failed: {exc}{note}{finished} Fix the "
                    "cause and re-run; finished steps are not repeated."
                ) from None
            done.append(action.line[2:])
            fault_point(f"{self.name}:after:{action.key}")


# --- the edit journal -----------------------------------------------------------------------


def journal_path(root: Path) -> Path:
    return (root / git.run(root, "rev-parse", "--git-dir")).resolve() / JOURNAL


def read_journal(root: Path) -> dict[str, Any] | None:
    path = journal_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        # Unparsable (a kill during the journal write cannot leave one: it is replaced
        # atomically). Left in place: only an executing run drops it (see recovery), never
        # a dry run.
        return None
    return data if isinstance(data, dict) else None


def begin_edit(root: Path, files: Sequence[str], purpose: str) -> Action:
    """The action that journals ``files`` before they are edited."""

    return call_action(
        "journal",
        f"journal {', '.join(files)} (undone if interrupted)",
        lambda: write_journal(root, files, purpose),
    )


def write_journal(
    root: Path, files: Sequence[str] | Mapping[str, Mapping[str, str | None]], purpose: str
) -> None:
    """Record HEAD and ``files`` before they are edited (atomically: absent or complete):
    a list of names, or name -> the SHA-256 of its content ``before`` and ``after`` the edit
    (recovery then restores only a file holding what the edit wrote)."""
    path = journal_path(root)
    tmp = path.with_suffix(".tmp")
    listed = {k: dict(v) for k, v in files.items()} if isinstance(files, Mapping) else list(files)
    data = {"head": git.head(root), "files": listed, "purpose": purpose}
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def end_edit(root: Path) -> Action:
    return call_action("journal-end", "close the journal", lambda: drop_journal(root))


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
    if isinstance(listed, dict):  # only files holding what the edit wrote (invariant (f))
        files = [f for f in files if _sha256(root / f) == listed[f].get("after")]
    if files:
        git.run(root, "restore", "--source=HEAD", "--staged", "--worktree", "--", *files)
    drop_journal(root)
    return files


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
