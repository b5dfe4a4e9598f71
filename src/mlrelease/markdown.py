"""Markdown tables: the one writer, every cell made safe the same way. Pure.

GitHub splits a table row at every ``|``, even inside a code span, and a newline ends the
row: :func:`cell` puts a value on one line and escapes its pipes; :func:`table` writes the
header, the alignment row and the rows through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LEFT = "---"
RIGHT = "---:"


def cell(value: object) -> str:
    """``value`` inside one table cell: on one line (whitespace runs become one space), with
    every ``|`` escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def row(values: Iterable[object]) -> str:
    """One table row of ``values``, each through :func:`cell`."""
    return "| " + " | ".join(cell(v) for v in values) + " |"


def table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    align: Sequence[str] = (),
) -> list[str]:
    """The lines of a table: ``header``, its alignment row (``align`` per column, :data:`LEFT`
    or :data:`RIGHT`; left when not given) and ``rows``."""
    aligns = [*align, *[LEFT] * (len(header) - len(align))]
    return [row(header), "|" + "|".join(aligns) + "|", *(row(r) for r in rows)]
