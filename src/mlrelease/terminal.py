"""The one place rich consoles are made.

User messages (errors, plan notes, status cells) reach the terminal through
:func:`message_console`: rich never reads their text as markup, so a message naming
``[tool.mlrelease]`` or ``[bold]`` prints it as written (markup would swallow both). Styles on
such a console come from rich objects (a :class:`~rich.table.Table`'s column style), never from
brackets in a string.

On a terminal, rich fits output to its width. Elsewhere (CI logs, pipes) it would assume 80
columns and break identifiers mid-word ("windows-11-ar|m"); there the console is wide enough
for one message per line, unless ``COLUMNS`` says otherwise.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import IO, Any

from rich.console import Console

LOG_WIDTH = 240
"""Columns when the output is not a terminal."""


def make_console(*, stderr: bool = True, file: IO[str] | None = None, **options: Any) -> Console:
    """A console for ``file`` (default: stderr, or stdout with ``stderr=False``)."""
    stream = file or (sys.stderr if stderr else sys.stdout)
    interactive = hasattr(stream, "isatty") and stream.isatty()
    if "width" not in options and not interactive and not os.environ.get("COLUMNS"):
        options["width"] = LOG_WIDTH
    options.setdefault("highlight", False)
    if file is not None:
        return Console(file=file, **options)
    return Console(stderr=stderr, **options)


def message_console(*, stderr: bool = True, file: IO[str] | None = None, **options: Any) -> Console:
    """A console for user messages: text printed on it, table cells included, is never markup."""
    return make_console(stderr=stderr, file=file, markup=False, **options)


class _Untagged(logging.Filter):
    """Drops bump-my-version's "does not match last tagged version" warning. Its last tag is
    any tag of the repository (an RC, another series' release), and under the PyTorch family's
    tag model the files never carry it; the ``git_state`` gate judges tags against the version
    model instead. It was printed once per configuration read: 11 to 16 times a command."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not match last tagged version" not in str(record.msg)


def quiet_third_party() -> None:
    """Keep third-party warnings mlrelease answers itself off the terminal (idempotent)."""
    logging.getLogger("bumpversion.config").addFilter(_UNTAGGED)


_UNTAGGED = _Untagged()
