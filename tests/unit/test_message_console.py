"""User messages are never rich markup: printed through :func:`mlrelease.terminal.message_console`
(the console every release message and the ``release status`` table reach), ``[tool.mlrelease]``
and ``[bold]`` stay as written. Before, rich read them as tags and dropped them
("CHANGELOG.md does not exist on release/0.11 ( changelog)")."""

from __future__ import annotations

import io

from rich.table import Table

from mlrelease.terminal import message_console

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
