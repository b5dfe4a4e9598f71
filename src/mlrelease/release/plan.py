"""Plans: what a release command would do, printed by the dry run and run by ``--execute``.

A :class:`Plan` is a list of :class:`Action`\\ s. A git action is the exact argument list that
``--execute`` passes to git; the dry run prints it as ``$ git ...``, and execution prints the
same line before running it, so the two outputs list the same commands. Other actions (file
edits, bump-my-version, git-changelog) print as ``# ...`` lines.

Edits that end in a commit are journalled (:mod:`mlrelease.edges.journal`): a plan's
:func:`begin_edit` action records the files before the first is written, :func:`end_edit`
closes the journal after the commit, and a failed action rolls the files back. After each action
the plan passes a fault point (:mod:`mlrelease.edges.faults`), where the kill tests stop it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.edges import git
from mlrelease.edges.faults import fault_point
from mlrelease.edges.journal import drop_journal, rollback, write_journal
from mlrelease.errors import UserError


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
    check: Callable[[], tuple[str, ...] | None] | None = None
    """Run right before the git command (the gatekeeper before a push); it refuses by raising.
    When it returns arguments, they are the git command run instead of ``git_args``: a push of
    the very objects the gatekeeper checked (``<object>:<ref>``), not of what the names hold a
    moment later."""
    intent: Callable[[], None] | None = None
    """Run after ``check``, right before the git command: records what it is about to make."""
    made: Callable[[], None] | None = None
    """Run right after the git command succeeded, before the fault point: records what it
    made (:mod:`mlrelease.release.world.made`)."""
    after: Callable[[], None] | None = None
    """Run once the git command succeeded and ``made`` recorded it: a look at what the act
    left (origin listed again after a push). Its refusal is raised as it is: the act is done,
    and the message says so."""

    @property
    def is_git(self) -> bool:
        return self.git_args is not None


def git_action(
    key: str,
    *args: str,
    undo: tuple[str, ...] | None = None,
    check: Callable[[], tuple[str, ...] | None] | None = None,
    intent: Callable[[], None] | None = None,
    made: Callable[[], None] | None = None,
    after: Callable[[], None] | None = None,
) -> Action:
    line = "$ " + shlex.join(git.shown(args))
    return Action(
        key,
        line,
        git_args=tuple(args),
        undo=undo,
        check=check,
        intent=intent,
        made=made,
        after=after,
    )


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
        return [git.shown(a.git_args) for a in self.actions if a.git_args is not None]

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

    def data(self, *, executed: bool) -> dict[str, Any]:
        """The plan as ``--json`` prints it: the command, whether it ran, its notes, each action
        (its key, the line the dry run prints, the git arguments of a git action) and the lines
        printed after it."""
        return {
            "command": self.name,
            "executed": executed and not self.noop,
            "noop": self.noop,
            "notes": list(self.notes),
            "actions": [
                {
                    "key": a.key,
                    "line": a.line,
                    "git": git.shown(a.git_args) if a.git_args is not None else None,
                }
                for a in self.actions
            ],
            "after": list(self.after),
        }

    def execute(self, echo: Callable[[str], None] | None = None) -> None:
        """Run the actions in order, echoing each line (to stdout unless ``echo`` says where)."""
        done: list[str] = []
        say = echo or (lambda line: print(line, flush=True))
        for action in self.actions:
            say(action.line)
            try:
                checked = action.check() if action.check is not None else None
                if checked and checked != action.git_args:  # the objects the check read
                    say("  sent as: " + shlex.join(git.shown(checked)))
                if action.git_args is not None:
                    if action.intent is not None:
                        action.intent()
                    git.run(self.root, *(checked or action.git_args))
                    if action.made is not None:
                        action.made()
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
            if action.after is not None:
                action.after()
            fault_point(f"{self.name}:after:{action.key}")


# --- journal actions -----------------------------------------------------------------------


def begin_edit(root: Path, files: Sequence[str], purpose: str) -> Action:
    """The action that journals ``files`` before they are edited."""

    return call_action(
        "journal",
        f"journal {', '.join(files)} (undone if interrupted)",
        lambda: write_journal(root, files, purpose),
    )


def end_edit(root: Path) -> Action:
    return call_action("journal-end", "close the journal", lambda: drop_journal(root))
