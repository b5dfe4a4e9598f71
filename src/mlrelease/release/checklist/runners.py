"""Which nox sessions and invoke tasks the project really has, asking nox and invoke (once per
command), so that the checklist and the hints name only commands the project can run. A session
that a noxfile imports (``from mlrelease_nox.sessions import *``) is there; a tool that is absent
or fails is said so, and the mlrelease command stands in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mlrelease.docs.pages import invoke_task_names, nox_session_names
from mlrelease.errors import UserError


@dataclass(frozen=True)
class Runners:
    """The sessions and tasks a project has; ``None`` where its tool could not list them."""

    sessions: frozenset[str] | None = frozenset()
    tasks: frozenset[str] | None = frozenset()
    problems: tuple[str, ...] = ()
    """Why a tool could not list them, one line each."""

    def has(self, argv: Sequence[str]) -> bool:
        """Whether the project has the session (``nox -s NAME``) or task (``invoke NAME``) that
        ``argv`` runs; any other command is the project's to have."""
        if len(argv) >= 3 and list(argv[:2]) == ["nox", "-s"]:
            return self.sessions is not None and argv[2] in self.sessions
        if len(argv) >= 2 and argv[0] == "invoke":
            return self.tasks is not None and argv[1] in self.tasks
        return True


def _listed(
    root: Path, file: str, what: str, listing: Callable[[Path], set[str]]
) -> tuple[frozenset[str] | None, str]:
    """(the names ``listing`` finds, or None and why it could not)."""
    if not (root / file).is_file():
        return frozenset(), ""
    try:
        return frozenset(listing(root)), ""
    except (UserError, ValueError, KeyError, TypeError) as exc:
        said = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # The command that failed, and its last line (the error, below a traceback).
        reason = said[0] if len(said) < 2 else f"{said[0]} ... {said[-1]}"
        return None, f"could not list the {what} of {file}: {reason[-600:]}"


def ask(root: Path) -> Runners:
    """The sessions of ``root/noxfile.py`` (``nox --list --json -k True``) and the tasks of
    ``root/tasks.py`` (``invoke --list --list-format json``); a file that is absent has none."""
    sessions, nox_problem = _listed(root, "noxfile.py", "sessions", nox_session_names)
    tasks, invoke_problem = _listed(root, "tasks.py", "tasks", invoke_task_names)
    return Runners(sessions, tasks, tuple(p for p in (nox_problem, invoke_problem) if p))
