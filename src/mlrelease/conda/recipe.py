"""A feedstock recipe read with the line each value sits on (pure): recipe v1 (``recipe.yaml``,
rattler-build) and conda-build's ``meta.yaml`` (Jinja2 over YAML, ``# [selector]`` comments).

Neither is read as YAML: a ``meta.yaml`` is no YAML before Jinja2 runs, and the change is
written back into the maintainers' own text (comments, order, selectors kept), so the reader
keeps lines. It reads what the change touches: the version, the source's ``sha256``, the build
number, the patches, and each requirement of ``build``, ``host``, ``run`` with its condition
(a v1 ``if:`` block or a selector)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

V1 = "recipe.yaml"
META = "meta.yaml"
SECTIONS = ("build", "host", "run")

_SET = re.compile(r"""{%-?\s*set\s+(\w+)\s*=\s*["']?([^"'%]+?)["']?\s*-?%}""")
_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w-]*):(?:\s+(.*))?$")
_SELECTOR = re.compile(r"#\s*\[(.+)\]\s*$")
_TEMPLATE = re.compile(r"\$?\{\{.*\}\}")


@dataclass(frozen=True)
class Item:
    """One requirement line: ``numpy >=1.22,<2  # [unix]``."""

    section: str
    name: str
    constraint: str
    condition: str
    """The selector or the ``if:`` expression ("" when unconditional)."""
    line: int
    """The 0-based index of its line in the recipe."""
    template: bool = False
    """A Jinja2 expression (``${{ compiler('c') }}``), no package name."""

    @property
    def spec(self) -> str:
        return f"{self.name} {self.constraint}".strip()


@dataclass(frozen=True)
class Value:
    """A scalar the change rewrites: its text and its line."""

    text: str
    line: int


@dataclass(frozen=True)
class Recipe:
    """What the change needs of a recipe, each with its line."""

    kind: str
    """:data:`V1` or :data:`META`."""
    lines: tuple[str, ...]
    version: Value | None
    sha256: tuple[Value, ...]
    number: Value | None
    patches: tuple[Value, ...]
    items: tuple[Item, ...]
    noarch: bool

    def section(self, name: str) -> list[Item]:
        return [i for i in self.items if i.section == name]

    def end_of(self, section: str) -> int | None:
        """The line after the section's last item (where an added item goes)."""
        found = [i.line for i in self.items if i.section == section]
        return max(found) + 1 if found else None

    def item_indent(self, section: str) -> str:
        """The indentation of the section's unconditional items."""
        plain = [i for i in self.section(section) if not i.condition]
        if plain:
            line = self.lines[plain[0].line]
            return line[: len(line) - len(line.lstrip())]
        return "    "


def split_spec(text: str) -> tuple[str, str]:
    """(name, constraint) of ``numpy >=1.22, <2`` (a build string is dropped)."""
    words = text.split()
    if not words:
        return "", ""
    name = words[0]
    rest = words[1:]
    # "numpy >=1.22, <2" has its constraint in several words; a build string is the last one
    # when it is neither an operator nor a version.
    if len(rest) >= 2 and not re.match(r"^[<>=!~,\d*]", rest[-1]) and not rest[-2].endswith(","):
        rest = rest[:-1]
    return name, "".join(rest)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _code(line: str, kind: str) -> tuple[str, str]:
    """(the line without its comment, its selector)."""
    selector = ""
    if kind == META:
        match = _SELECTOR.search(line)
        selector = match.group(1).strip() if match else ""
    cut = re.sub(r"\s+#.*$", "", line)
    return cut.rstrip(), selector


def _blank(line: str) -> bool:
    text = line.strip()
    return not text or text.startswith("#") or text.startswith("{%")


def block(lines: tuple[str, ...], start: int) -> range:
    """The lines of the mapping key on line ``start``: the deeper ones after it, and list
    items at its own indentation (``host:`` then ``- python`` at the same column)."""
    own = _indent(lines[start])
    end = start + 1
    for i in range(start + 1, len(lines)):
        if _blank(lines[i]):
            continue
        ind = _indent(lines[i])
        if ind > own or (ind == own and lines[i].lstrip().startswith("- ")):
            end = i + 1
            continue
        break
    return range(start + 1, end)


def find_key(lines: tuple[str, ...], key: str, within: range | None = None) -> int | None:
    """The line of the shallowest ``key:`` in ``within`` (the whole recipe by default)."""
    scope = within if within is not None else range(len(lines))
    best: tuple[int, int] | None = None
    for i in scope:
        match = _KEY.match(lines[i])
        hit = match is not None and match.group(3) == key and not match.group(2)
        if hit and (best is None or _indent(lines[i]) < best[0]):
            best = (_indent(lines[i]), i)
    return None if best is None else best[1]


def _items(lines: tuple[str, ...], kind: str, section: str, scope: range) -> Iterator[Item]:
    """The requirement items of one section's block."""
    entries = [i for i in scope if not _blank(lines[i])]
    if not entries:
        return
    top = min(_indent(lines[i]) for i in entries)
    i = 0
    while i < len(entries):
        n = entries[i]
        code, selector = _code(lines[n], kind)
        text = code.strip()[2:].strip() if code.strip().startswith("- ") else code.strip()
        if _indent(lines[n]) == top and text.startswith("if:"):
            inner = [m for m in entries[i + 1 :] if _indent(lines[m]) > top]
            yield from _conditional(lines, kind, section, text[3:].strip(), n, inner)
            i += 1 + len(inner)
            continue
        if text:
            yield _item(section, text, selector, n)
        i += 1


def _conditional(
    lines: tuple[str, ...], kind: str, section: str, condition: str, at: int, inner: list[int]
) -> Iterator[Item]:
    """The items of a v1 ``- if: ... then: ... else: ...`` block."""
    branch = condition
    for n in inner:
        code, _ = _code(lines[n], kind)
        text = code.strip()
        for key in ("then:", "else:"):
            if text.startswith(key):
                branch = condition if key == "then:" else f"not ({condition})"
                text = text[len(key) :].strip()
        if text.startswith("- "):
            text = text[2:].strip()
        if text.startswith("if:"):
            branch = f"({condition}) and ({text[3:].strip()})"
            continue
        if text and not text.endswith(":"):
            yield _item(section, text.strip("[] "), branch, n)


def _item(section: str, text: str, condition: str, line: int) -> Item:
    text = text.strip().strip("\"'")
    if _TEMPLATE.search(text):
        return Item(section, text, "", condition, line, template=True)
    name, constraint = split_spec(text)
    return Item(section, name, constraint, condition, line)


def _scalar(lines: tuple[str, ...], key: str, scope: range) -> Value | None:
    at = find_key(lines, key, scope)
    if at is None:
        return None
    match = _KEY.match(_code(lines[at], V1)[0])
    value = (match.group(4) or "").strip().strip("\"'") if match else ""
    return Value(value, at)


def _list(lines: tuple[str, ...], key: str, scope: range) -> tuple[Value, ...]:
    at = find_key(lines, key, scope)
    if at is None:
        return ()
    found = []
    for n in block(lines, at):
        text = _code(lines[n], V1)[0].strip()
        if text.startswith("- ") and not text[2:].startswith(("if:", "then:", "else:")):
            found.append(Value(text[2:].strip().strip("\"'"), n))
        elif text.startswith(("then:", "else:")) and text.split(":", 1)[1].strip():
            found.append(Value(text.split(":", 1)[1].strip().strip("\"'"), n))
    return tuple(found)


def _version(lines: tuple[str, ...], kind: str) -> Value | None:
    for n, line in enumerate(lines):
        match = _SET.search(line)
        if match and match.group(1) == "version":
            return Value(match.group(2).strip(), n)
    context = find_key(lines, "context")
    if kind == V1 and context is not None:
        found = _scalar(lines, "version", block(lines, context))
        if found:
            return found
    package = find_key(lines, "package")
    found = _scalar(lines, "version", block(lines, package)) if package is not None else None
    return found if found and not _TEMPLATE.search(found.text) else None


def parse(text: str, kind: str) -> Recipe:
    """The recipe's version, hashes, build number, patches and requirements, with their lines."""
    lines = tuple(text.splitlines())
    whole = range(len(lines))
    items: list[Item] = []
    top = find_key(lines, "requirements")
    if top is not None:
        req = block(lines, top)
        for section in SECTIONS:
            at = find_key(lines, section, req)
            if at is not None:
                items += _items(lines, kind, section, block(lines, at))
    source = find_key(lines, "source")
    scope = block(lines, source) if source is not None else whole
    build = find_key(lines, "build")
    build_scope = block(lines, build) if build is not None else range(0)
    noarch = _scalar(lines, "noarch", build_scope)
    return Recipe(
        kind=kind,
        lines=lines,
        version=_version(lines, kind),
        sha256=tuple(
            Value(m.group(1), n)
            for n, line in enumerate(lines)
            if (m := re.match(r"^\s*-?\s*sha256:\s*['\"]?([0-9a-fA-F]{64})", line))
        ),
        number=_scalar(lines, "number", build_scope),
        patches=_list(lines, "patches", scope),
        items=tuple(items),
        noarch=bool(noarch and noarch.text == "python"),
    )
