"""GitHub Actions ``if:`` expressions, evaluated for one event (pure): whether a job of a
workflow runs when a given tag or branch is pushed, or a release is published.

The part of the expression language a publishing job's condition uses: string literals,
``github.*`` contexts, ``==``/``!=``, ``!``, ``&&``, ``||``, parentheses, and the functions
``contains``, ``startsWith``, ``endsWith`` (case-insensitive, as GitHub compares) and the status
functions. Anything else (another context, an unknown function) is *unknown*, and so is every
result it decides: a caller treats an unknown condition as one that may run."""

from __future__ import annotations

import re
from collections.abc import Mapping

Value = str | bool | None
"""A string, a boolean, or None: unknown (never decided from)."""

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[!(),])"
    r"|(?P<name>[A-Za-z_][\w.-]*)|(?P<number>\d+(?:\.\d+)?))"
)
STATUS = {"success": True, "always": True, "failure": False, "cancelled": False}
"""The status functions, as a job whose needs succeeded sees them."""


def _tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            return [("bad", text[at:])]
        kind = m.lastgroup or "bad"
        found.append((kind, m[kind]))
        at = m.end()
    return found


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], context: Mapping[str, str]) -> None:
        self.tokens, self.at, self.context = tokens, 0, context

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def either(self) -> Value:
        left = self.both()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.both()
            left = (
                True
                if left is True or right is True
                else (None if None in (left, right) else right)
            )
        return left

    def both(self) -> Value:
        left = self.compare()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.compare()
            falsy = left is False or left == "" or right is False or right == ""
            left = False if falsy else (None if None in (left, right) else right)
        return left

    def compare(self) -> Value:
        left = self.unary()
        while self.peek() in (("op", "=="), ("op", "!=")):
            _, op = self.take()
            right = self.unary()
            if left is None or right is None:
                left = None
            else:
                same = str(left).lower() == str(right).lower()
                left = same if op == "==" else not same
        return left

    def unary(self) -> Value:
        if self.peek() == ("op", "!"):
            self.take()
            value = self.unary()
            return None if value is None else not value or value == ""
        return self.atom()

    def atom(self) -> Value:
        kind, text = self.take()
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return text
        if (kind, text) == ("op", "("):
            value = self.either()
            return value if self.take() == ("op", ")") else None
        if kind != "name":
            return None
        if self.peek() == ("op", "("):
            return self.call(text)
        if text in ("true", "false"):
            return text == "true"
        return self.context.get(text)

    def call(self, name: str) -> Value:
        self.take()
        args: list[Value] = []
        while self.peek() not in (("op", ")"), ("end", "")):
            args.append(self.either())
            if self.peek() == ("op", ","):
                self.take()
        self.take()
        if name in STATUS:
            return STATUS[name]
        if len(args) != 2 or None in args:
            return None
        a, b = str(args[0]).lower(), str(args[1]).lower()
        tests = {"contains": b in a, "startswith": a.startswith(b), "endswith": a.endswith(b)}
        return tests.get(name.lower())


def evaluate(condition: str, context: Mapping[str, str]) -> bool | None:
    """Whether ``condition`` (an ``if:``, with or without ``${{ }}``) holds in ``context``
    (``github.ref`` -> ``refs/tags/v1.0.0`` ...): True, False, or None when it cannot be told."""
    text = condition.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    tokens = _tokens(text)
    if not tokens or tokens[0][0] == "bad":
        return None
    parser = _Parser(tokens, context)
    value = parser.either()
    if parser.peek() != ("end", ""):
        return None
    return None if value is None else bool(value) and value != ""


def push_of(ref: str) -> dict[str, str]:
    """The ``github`` context of a push of ``ref`` (``refs/tags/v1.0.0``, ``refs/heads/main``)."""
    kind = "tag" if ref.startswith("refs/tags/") else "branch"
    name = ref.split("/", 2)[2]
    return {
        "github.event_name": "push",
        "github.ref": ref,
        "github.ref_name": name,
        "github.ref_type": kind,
    }


RELEASE_EVENT = {"github.event_name": "release", "github.ref_type": "tag"}
"""The ``github`` context of a published GitHub release (its tag is not known here)."""
