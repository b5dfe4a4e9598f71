"""GitHub Actions expressions (``if:`` conditions), evaluated with what is known of an event
before it happens: a value the rehearsal cannot know (a pull request's head branch, a job's
outputs, a matrix value) is ``UNKNOWN``, and so is any operation on it whose result it could
change. ``false && UNKNOWN`` is false; ``true && UNKNOWN`` is ``UNKNOWN``.

The grammar and the rules are GitHub's (docs.github.com, "Evaluate expressions in workflows and
actions"): literals, contexts (``a.b``, ``a['b']``, ``a.*``), ``!``, comparisons (strings
compared case-insensitively, other mixed types as numbers), ``&&`` and ``||`` (which return an
operand), and the functions below. Status functions (``success()``, ``always()``, ...) are
given by the caller, which knows the jobs a job needs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
"""A value not known before the event happens."""

STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")

_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))"
    r"|(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)


class ExpressionError(ValueError):
    """An expression this evaluator cannot read (the workflow file names it)."""


def tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        found = _TOKEN.match(text, at)
        if not found or found.end() == at:
            raise ExpressionError(f"cannot read {text[at:]!r} in {text!r}")
        kind = str(found.lastgroup)
        out.append((kind, found.group(kind)))
        at = found.end()
    return out


class _Parser:
    """Recursive descent over the tokens, into nested tuples (the tree ``evaluate`` walks)."""

    def __init__(self, text: str) -> None:
        self.text, self.toks, self.at = text, tokens(text), 0

    def peek(self) -> str:
        return self.toks[self.at][1] if self.at < len(self.toks) else ""

    def take(self, expected: str = "") -> tuple[str, str]:
        if self.at >= len(self.toks) or (expected and self.peek() != expected):
            raise ExpressionError(f"expected {expected or 'more'!r} in {self.text!r}")
        self.at += 1
        return self.toks[self.at - 1]

    def parse(self) -> tuple[Any, ...]:
        tree = self.binary(0)
        if self.at != len(self.toks):
            raise ExpressionError(f"unexpected {self.peek()!r} in {self.text!r}")
        return tree

    LEVELS = (("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="))

    def binary(self, level: int) -> tuple[Any, ...]:
        if level == len(self.LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in self.LEVELS[level] and self.toks[self.at][0] == "op":
            op = self.take()[1]
            left = ("op", op, left, self.binary(level + 1))
        return left

    def unary(self) -> tuple[Any, ...]:
        if self.peek() == "!":
            self.take()
            return ("not", self.unary())
        return self.postfix(self.primary())

    def primary(self) -> tuple[Any, ...]:
        kind, value = self.take()
        if value == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        if kind == "num":
            return ("lit", float(int(value, 16)) if "x" in value.lower() else float(value))
        if kind == "str":
            return ("lit", value[1:-1].replace("''", "'"))
        if kind != "name":
            raise ExpressionError(f"unexpected {value!r} in {self.text!r}")
        literals = {"true": True, "false": False, "null": None}
        if value in literals:
            return ("lit", literals[value])
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.binary(0))
                if self.peek() == ",":
                    self.take()
            self.take(")")
            return ("call", value.lower(), args)
        return ("ctx", value)

    def postfix(self, tree: tuple[Any, ...]) -> tuple[Any, ...]:
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                key = self.take()[1]
                tree = ("index", tree, ("star",) if key == "*" else ("lit", key))
            else:
                tree = ("index", tree, self.binary(0))
                self.take("]")
        return tree


def parse(text: str) -> tuple[Any, ...]:
    """The tree of one expression (``${{ }}`` around it or not)."""
    inner = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", text, re.S)
    return _Parser(inner.group(1) if inner else text).parse()


def uses_status(tree: Any) -> bool:
    """Whether the expression calls a status function (else GitHub adds ``success() &&``)."""
    if not isinstance(tree, tuple):
        return False
    if tree[0] == "call" and tree[1] in STATUS_FUNCTIONS:
        return True
    return any(uses_status(part) for part in tree[1:] if isinstance(part, tuple | list)) or any(
        uses_status(arg) for part in tree[1:] if isinstance(part, list) for arg in part
    )


def truthy(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, float):
        return value != 0 and not math.isnan(value)
    return value not in (None, False, "")


def _number(value: Any) -> float:
    if value is None or isinstance(value, bool | float | int):
        return float(value or 0)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return math.nan
    return math.nan


def compare(op: str, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(left, str) and isinstance(right, str):
        a: Any = left.casefold()
        b: Any = right.casefold()
    elif type(left) is type(right) and not isinstance(left, dict | list):
        a, b = left, right
    elif isinstance(left, dict | list) or isinstance(right, dict | list):
        a, b = id(left), id(right)  # objects are equal only to themselves
    else:
        a, b = _number(left), _number(right)
    checks: dict[str, Callable[[Any, Any], bool]] = {
        "==": lambda x, y: x == y,
        "!=": lambda x, y: x != y,
        "<": lambda x, y: x < y,
        "<=": lambda x, y: x <= y,
        ">": lambda x, y: x > y,
        ">=": lambda x, y: x >= y,
    }
    return checks[op](a, b)


def _text(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    return (
        {None: "", True: "true", False: "false"}.get(value, value)
        if not isinstance(value, dict | list)
        else json.dumps(value)
    )


def _contains(haystack: Any, needle: Any) -> Any:
    if haystack is UNKNOWN or needle is UNKNOWN:
        return UNKNOWN
    if isinstance(haystack, list):
        return any(compare("==", item, needle) is True for item in haystack)
    return _text(needle).casefold() in _text(haystack).casefold()


def _affix(how: str) -> Callable[[Any, Any], Any]:
    def check(value: Any, part: Any) -> Any:
        if value is UNKNOWN or part is UNKNOWN:
            return UNKNOWN
        return getattr(_text(value).casefold(), how)(_text(part).casefold())

    return check


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains,
    "startswith": _affix("startswith"),
    "endswith": _affix("endswith"),
    "fromjson": lambda v: UNKNOWN if v is UNKNOWN else json.loads(_text(v)),
    "tojson": lambda v: UNKNOWN if v is UNKNOWN else json.dumps(v),
    "format": lambda f, *a: (
        UNKNOWN if UNKNOWN in (f, *a) else _text(f).format(*(_text(x) for x in a))
    ),
    "hashfiles": lambda *a: UNKNOWN,
    "join": lambda *a: UNKNOWN,
}


def evaluate(
    tree: Any, contexts: Mapping[str, Any], status: Mapping[str, Callable[[], Any]]
) -> Any:
    """The value of a parsed expression; ``UNKNOWN`` where what is known does not decide it."""
    kind = tree[0]
    if kind == "lit":
        return tree[1]
    if kind == "ctx":
        return contexts.get(tree[1], UNKNOWN)
    if kind == "not":
        value = truthy(evaluate(tree[1], contexts, status))
        return UNKNOWN if value is UNKNOWN else not value
    if kind == "index":
        return _index(evaluate(tree[1], contexts, status), tree[2], contexts, status)
    if kind == "call":
        if tree[1] in STATUS_FUNCTIONS:
            return status[tree[1]]()
        if tree[1] not in FUNCTIONS:
            raise ExpressionError(f"unknown function {tree[1]}()")
        return FUNCTIONS[tree[1]](*(evaluate(a, contexts, status) for a in tree[2]))
    op, left_tree, right_tree = tree[1:]
    left = evaluate(left_tree, contexts, status)
    if op in ("&&", "||"):
        return _logic(op, left, lambda: evaluate(right_tree, contexts, status))
    return compare(op, left, evaluate(right_tree, contexts, status))


def _logic(op: str, left: Any, right: Callable[[], Any]) -> Any:
    """``&&`` / ``||``, short-circuiting as GitHub does, three-valued where ``left`` is not
    known: the result is known only when the right side decides it alone."""
    known = truthy(left)
    if known is not UNKNOWN:
        decided = (not known) if op == "&&" else known
        return left if decided else right()
    value = truthy(right())
    stops = value is False if op == "&&" else value is True
    return value if stops else UNKNOWN


def _index(value: Any, key_tree: Any, contexts: Mapping[str, Any], status: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    if key_tree[0] == "star":
        items = value.values() if isinstance(value, dict) else value
        return list(items) if isinstance(items, list | type({}.values())) else None
    key = evaluate(key_tree, contexts, status)
    if key is UNKNOWN:
        return UNKNOWN
    if isinstance(value, dict):
        found = {str(k).casefold(): v for k, v in value.items()}
        return found.get(_text(key).casefold(), UNKNOWN)  # a key not known: not known
    if isinstance(value, list) and isinstance(key, float) and key.is_integer():
        return value[int(key)] if 0 <= key < len(value) else None
    return None
