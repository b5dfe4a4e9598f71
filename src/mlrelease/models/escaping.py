"""Escaping of submitted text for where it is shown: Markdown, a rich console, one line. Pure.

A submission controls many strings that end up in a verdict: file and model names, tensor and
node names inside error messages, README headings, the stderr of a crashed worker. None of them
may change the structure of what shows them: no new line, heading, list item, table cell, link,
image, HTML tag or console markup, so nothing submitted can forge the verdict.
"""

from __future__ import annotations

import re
import unicodedata

from rich.markup import escape as _rich_escape

_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>|~#])")
# An underscore between two letters or digits never opens or closes emphasis (CommonMark), so
# names such as test_data_set_0 stay as written; any other underscore is escaped.
_LOOSE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_LIST_START = re.compile(r"^([-+]|\d+[.)])")
_SPACES = re.compile(r"\s+")


def one_line(text: object) -> str:
    """``text`` on one line: control, format and separator characters (newlines, ANSI escapes,
    bidirectional overrides, zero-width characters) become spaces; runs of spaces collapse."""
    chars = (
        " " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") else c
        for c in str(text)
    )
    return _SPACES.sub(" ", "".join(chars)).strip()


def md_text(text: object) -> str:
    """``text`` as inert inline Markdown: one line, every structural character backslash-escaped
    (a list item or table cell holding it renders exactly these characters, nothing more)."""
    line = _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text))
    line = _LOOSE_UNDERSCORE.sub(r"\\_", line)
    return _LIST_START.sub(r"\\\1", line)


def md_code(text: object, *, table: bool = False) -> str:
    """``text`` as a Markdown code span that it cannot close early, on one line.

    ``table``: inside a table row, where GitHub splits cells at ``|`` even in code spans.
    """
    line = one_line(text)
    if table:
        line = line.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def console(text: object) -> str:
    """``text`` for rich console markup: one line, markup brackets escaped."""
    return _rich_escape(one_line(text))
