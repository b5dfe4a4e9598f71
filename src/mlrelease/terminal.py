"""The one place rich consoles are made.

User messages (errors, plan notes, status cells) reach the terminal through
:func:`message_console`: rich never reads their text as markup, so a message naming
``[tool.mlrelease]`` or ``[bold]`` prints it as written (markup would swallow both). Styles on
such a console come from rich objects (a :class:`~rich.table.Table`'s column style), never from
brackets in a string.

On a terminal, rich fits output to its width. Elsewhere (CI logs, pipes) it would assume 80
columns and break identifiers mid-word ("windows-11-ar|m"); there the console is wide enough
for one message per line, unless ``COLUMNS`` says otherwise. Both are decided when the console
prints, not when it is made: a CLI module's console is made at import, when the stream and
``COLUMNS`` may be another's (a test's, a wrapper's), and rich would keep 80 columns from then on.
"""

from __future__ import annotations

import logging
import os
from typing import IO, Any

from rich.console import Console, ConsoleDimensions

LOG_WIDTH = 240
"""Columns when the output is not a terminal."""


class _LogWideConsole(Console):
    """A console without a fixed width: a terminal's own width, else ``COLUMNS``, else
    :data:`LOG_WIDTH`, read each time it prints."""

    @property
    def size(self) -> ConsoleDimensions:
        fitted = super().size
        if self._width is None and not self.is_terminal and not os.environ.get("COLUMNS"):
            return ConsoleDimensions(LOG_WIDTH, fitted.height)
        return fitted

    @size.setter
    def size(self, new_size: tuple[int | None, int | None]) -> None:
        self._width, self._height = new_size


def make_console(*, stderr: bool = True, file: IO[str] | None = None, **options: Any) -> Console:
    """A console for ``file`` (default: stderr, or stdout with ``stderr=False``)."""
    options.setdefault("highlight", False)
    if file is not None:
        console = _LogWideConsole(file=file, **options)
    else:
        console = _LogWideConsole(stderr=stderr, **options)
    if "width" not in options:
        console.size = (None, None)  # rich froze COLUMNS as it was when made: read it each time
    return console


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
