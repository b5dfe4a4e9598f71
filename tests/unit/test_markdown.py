"""The one Markdown table writer."""

from __future__ import annotations

from mlrelease import markdown
from mlrelease.gates import Gate, GateResult
from mlrelease.project.exit_criteria import render


def test_a_cell_stays_one_cell() -> None:
    assert markdown.cell("a | b\nc  d") == "a \\| b c d"
    assert markdown.cell(3) == "3"


def test_table_aligns_and_escapes() -> None:
    lines = markdown.table(["#", "name"], [(1, "x|y")], align=[markdown.RIGHT])
    assert lines == ["| # | name |", "|---:|---|", "| 1 | x\\|y |"]


def test_a_pipe_in_a_gate_description_keeps_the_exit_criteria_table() -> None:
    g = Gate("odd", "Checks a | b.", lambda ctx: GateResult.passed("ok"))
    row = render([g]).splitlines()[-1]
    assert row == ("| 1 | `odd` | Checks a \\| b. | yes | `mlrelease verify --only odd` |")
