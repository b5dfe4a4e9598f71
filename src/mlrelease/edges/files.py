"""Generated files: compare with what is committed, show the diff, write, or fail on drift.

Every command that generates or rewrites a file (``gates doc``, ``docs generate``,
``ops index``, ``changelog``, ``release checklist-doc``, ``architecture``) speaks one grammar,
added to its parser by :func:`add_arguments` and carried out by :func:`apply`:

- no flag: a dry run; it prints the unified diff of each file that would change and writes
  nothing;
- ``--execute``: it writes the files that changed (and only those);
- ``--check``: it writes nothing and exits 1 when a file differs, naming the file and its
  first differing line (CI's drift check).

``gates doc``, ``docs generate``, ``ops index`` and ``release checklist-doc`` wrote by default
before this grammar; for one release their ``--write`` still does that, with a deprecation
message, and their dry run says how the default changed.
"""

from __future__ import annotations

import argparse
import difflib
import enum
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


class Mode(str, enum.Enum):
    """What a generating command does with its files."""

    DRY_RUN = "dry-run"
    EXECUTE = "execute"
    CHECK = "check"


@dataclass(frozen=True)
class Generated:
    """One generated file: where it goes, how it is shown, and its fresh text."""

    path: Path
    text: str
    label: str = ""
    """The path as messages show it (project-relative); the path itself when empty."""

    @property
    def shown(self) -> str:
        return self.label or str(self.path)

    def current(self) -> str | None:
        """The file's text now; None when there is no file."""
        return self.path.read_text(encoding="utf-8") if self.path.is_file() else None

    def difference(self) -> str | None:
        """The first difference between the file and its fresh text; None when current."""
        current = self.current()
        if current is None:
            return "missing"
        return first_difference(self.text, current)

    def diff(self) -> str:
        """The unified diff from the file now to its fresh text ("" when current)."""
        lines = difflib.unified_diff(
            (self.current() or "").splitlines(),
            self.text.splitlines(),
            self.shown,
            f"{self.shown} (generated)",
            lineterm="",
        )
        return "\n".join(lines)

    def write(self) -> bool:
        """Write the fresh text when it differs; True when the file changed."""
        if self.current() == self.text:
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside it, then renamed: an interrupted write never leaves half a file.
        staged = self.path.with_name(self.path.name + ".mlrelease-tmp")
        staged.write_text(self.text, encoding="utf-8", newline="\n")
        os.replace(staged, self.path)
        return True


def first_difference(expected: str, actual: str) -> str | None:
    """Where ``actual`` first departs from ``expected``, as one line; None when equal."""
    if expected == actual:
        return None
    want, have = expected.splitlines(), actual.splitlines()
    for i, (w, h) in enumerate(zip(want, have, strict=False), 1):
        if w != h:
            return f"line {i}: expected {w!r}, found {h!r}"
    if len(want) > len(have):
        return f"line {len(have) + 1}: expected {want[len(have)]!r}, found the end of the file"
    if len(have) > len(want):
        return f"line {len(want) + 1}: expected the end of the file, found {have[len(want)]!r}"
    return "line endings or the final newline differ"


WRITE_DEPRECATED = (
    "warning: `--write` is deprecated and goes away in the next release: this command is a dry "
    "run unless --execute, like every generating command; use --execute."
)
DEFAULT_CHANGED = (
    "Note: this command wrote by default until now; it is a dry run now (`--write`, deprecated, "
    "keeps the old behaviour for this release)."
)


def add_arguments(
    parser: argparse.ArgumentParser, *, what: str = "the file", wrote_by_default: bool = False
) -> None:
    """Add ``--execute`` and ``--check`` (mutually exclusive) to a generating command;
    ``wrote_by_default``: also the deprecated ``--write`` of a command whose default changed."""
    group = parser.add_mutually_exclusive_group()
    if wrote_by_default:
        group.add_argument("--write", action="store_true", help=argparse.SUPPRESS)
        parser.set_defaults(wrote_by_default=True)
    group.add_argument(
        "--execute", action="store_true", help=f"write {what} (default: dry run, show the diff)"
    )
    group.add_argument(
        "--check",
        action="store_true",
        help=f"write nothing; exit 1 when a regeneration would change {what}",
    )


def mode(args: argparse.Namespace, say: Callable[[str], None] = print) -> Mode:
    """The mode the parsed ``--execute`` / ``--check`` flags ask for."""
    if getattr(args, "write", False):
        say(WRITE_DEPRECATED)
        return Mode.EXECUTE
    if getattr(args, "check", False):
        return Mode.CHECK
    return Mode.EXECUTE if getattr(args, "execute", False) else Mode.DRY_RUN


def apply(
    files: Sequence[Generated],
    how: Mode,
    *,
    command: str,
    say: Callable[[str], None] = print,
    show: Callable[[str], None] = print,
    wrote_by_default: bool = False,
) -> int:
    """Show, write or check ``files`` as ``how`` says; the exit code (1: drift under --check).

    ``command`` is the regenerating command line, named in the messages; ``say`` prints a
    message (a console), ``show`` a diff (standard output).
    """
    if how is Mode.CHECK:
        stale = [(f, d) for f in files if (d := f.difference()) is not None]
        for file, difference in stale:
            say(f"{file.shown} is stale ({difference}); run `{command} --execute` and commit it.")
        if not stale:
            say(f"{_names(files)} current.")
        return 1 if stale else 0
    if how is Mode.EXECUTE:
        changed = [f for f in files if f.write()]
        for file in changed:
            say(f"Wrote {file.shown}")
        if not changed:
            say(f"{_names(files)} current; nothing to write.")
        return 0
    diffs = [d for f in files if (d := f.diff())]
    for text in diffs:
        show(text)
    if not diffs:
        say(f"{_names(files)} current; nothing to write.")
        return 0
    say(f"Dry run: nothing written. Re-run `{command}` with --execute to write.")
    if wrote_by_default:
        say(DEFAULT_CHANGED)
    return 0


def _names(files: Sequence[Generated]) -> str:
    if len(files) == 1:
        return f"{files[0].shown} is"
    return f"{', '.join(f.shown for f in files)} are"


def run(
    args: argparse.Namespace,
    files: Sequence[Generated],
    *,
    command: str,
    say: Callable[[str], None] = print,
    show: Callable[[str], None] = print,
) -> int:
    """:func:`apply` in the mode the parsed flags of :func:`add_arguments` ask for."""
    how = mode(args, say)
    wrote_by_default = bool(getattr(args, "wrote_by_default", False))
    return apply(files, how, command=command, say=say, show=show, wrote_by_default=wrote_by_default)
