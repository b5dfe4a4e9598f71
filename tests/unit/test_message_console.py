"""User messages are never rich markup: printed through :func:`mlrelease.terminal.message_console`
(the console every release message and the ``release status`` table reach), ``[tool.mlrelease]``
and ``[bold]`` stay as written. Before, rich read them as tags and dropped them
("CHANGELOG.md does not exist on release/0.11 ( changelog)")."""

from __future__ import annotations

import io

import pytest
from rich.table import Table

from mlrelease.terminal import make_console, message_console

MESSAGE = "CHANGELOG.md does not exist on release/0.11 ([tool.mlrelease] changelog); [bold]x[/]"


def test_a_message_prints_as_written_in_text_and_in_table_cells() -> None:
    out = io.StringIO()
    console = message_console(file=out, width=200)
    console.print(MESSAGE)
    table = Table(show_header=False)
    table.add_column("what", style="bold")
    table.add_column("state")
    table.add_row("next: prepare", MESSAGE)
    console.print(table)
    printed = out.getvalue()
    assert printed.count("([tool.mlrelease] changelog)") == 2, printed
    assert printed.count("[bold]x[/]") == 2, printed


def test_a_console_made_while_columns_was_set_prints_log_wide_once_it_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without ``COLUMNS`` and without a terminal when it prints, a console is as wide as a
    log line (:data:`mlrelease.terminal.LOG_WIDTH`), whatever it was when it was made."""
    out = io.StringIO()
    monkeypatch.setenv("COLUMNS", "300")
    console = make_console(file=out)
    monkeypatch.delenv("COLUMNS")
    console.print("Wrote " + "/tmp/ci/" * 20 + "SHA256SUMS")
    assert out.getvalue() == "Wrote " + "/tmp/ci/" * 20 + "SHA256SUMS\n"


def test_a_console_follows_columns_set_after_it_was_made(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.delenv("COLUMNS", raising=False)
    console = make_console(file=out)
    monkeypatch.setenv("COLUMNS", "20")
    console.print("word " * 8)
    assert max(len(line) for line in out.getvalue().splitlines()) <= 20


def test_a_console_made_under_narrow_columns_follows_them_when_they_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CLI module's console is made at import: under pytest-xdist, whose workers inherit
    ``COLUMNS=80``, rich kept 80 columns after the tests set their own, and CI's long
    temporary paths broke mid-name."""
    out = io.StringIO()
    monkeypatch.setenv("COLUMNS", "80")
    console = make_console(file=out)
    monkeypatch.setenv("COLUMNS", "300")
    console.print("Wrote " + "/tmp/ci/" * 20 + "SHA256SUMS")
    assert out.getvalue() == "Wrote " + "/tmp/ci/" * 20 + "SHA256SUMS\n"
