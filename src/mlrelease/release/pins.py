"""Pins of other packages that point at a nightly or development build (``torchvision==
0.26.0.dev20261101``, ``torch>=2.14.0.dev``): on a release branch they would make the release
depend on a nightly, as a pick brought into Torch-TensorRT's 2.13 (#4391). Read with
``packaging`` from the files that declare dependencies: pyproject.toml's tables,
``requirements*.txt`` files (in any folder) and setup.py's literal ``install_requires``,
``setup_requires``, ``tests_require`` and ``extras_require`` (parsed with :mod:`ast`, never
run). Pure: the texts are those of the commit being released, in the world snapshot (``at``);
:func:`refuse` is the one rule ``release rc`` (either RC model) and the final bump apply."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from mlrelease.errors import PreconditionError
from mlrelease.release.config import is_glob
from mlrelease.release.world.snapshot import World, short

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PIN_FILES = ("pyproject.toml", "setup.py", "*requirements*.txt")
"""The files read for pins (fnmatch patterns over the commit's tree: ``*`` crosses folders)."""

SETUP_KEYWORDS = ("install_requires", "setup_requires", "tests_require", "extras_require")
_COMMENT = re.compile(r"(^|\s+)#.*$")  # pip's rule: a '#' at the start or after a blank


@dataclass(frozen=True)
class DevPin:
    """One requirement pinned on a development build, where it is written."""

    file: str
    line: int
    where: str
    """The declaration holding it (``[project] dependencies``, ``install_requires``...)."""
    requirement: str
    name: str
    version: str

    @property
    def fix(self) -> str:
        base = Version(self.version).base_version
        return (
            f"pin {self.name} on a released or release-candidate version (e.g. "
            f"{self.name}>={base}rc1, or =={base} once released), not {self.version}"
        )

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.where}): {self.requirement}: {self.fix}"


def _dev_version(text: str) -> tuple[str, str] | None:
    """(package, version) when ``text`` is a requirement pinned on a ``.devN`` release
    (PyTorch's nightlies); None otherwise, or when it is no requirement at all."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None  # a path, a URL, a malformed line: the build's own tools report those
    for spec in requirement.specifier:
        try:
            if Version(spec.version.removesuffix(".*")).is_devrelease:
                return requirement.name, spec.version.removesuffix(".*")
        except InvalidVersion:
            continue
    return None


def _pyproject(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, where, requirement text) of every dependency pyproject.toml declares."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # the configuration loader reports it, naming the position
    project = data.get("project", {})
    declared: list[tuple[str, Any]] = [("[project] dependencies", project.get("dependencies"))]
    for extra, items in (project.get("optional-dependencies") or {}).items():
        declared.append((f"[project.optional-dependencies] {extra}", items))
    declared.append(("[build-system] requires", data.get("build-system", {}).get("requires")))
    for group, items in (data.get("dependency-groups") or {}).items():
        declared.append((f"[dependency-groups] {group}", items))
    lines = text.splitlines()
    for where, items in declared:
        for item in items or []:
            if isinstance(item, str):
                # The line shown is the first that holds the requirement as written.
                at = next((i for i, line in enumerate(lines, 1) if item in line), 0)
                yield at, where, item


def _requirements(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, "requirement", text) of every requirement line (continuations joined, comments,
    options such as ``-r``/``--index-url`` and per-line ``--hash`` options left out)."""
    logical, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not logical:
            start = number
        line = _COMMENT.sub("", raw)
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical, whole = "", (logical + line).strip()
        if whole and not whole.startswith("-"):  # an option line: -r, -c, -e, --index-url...
            # Options of the requirement itself (--hash=..., --config-settings) follow it.
            yield start, "requirement", re.split(r"\s+--", whole, maxsplit=1)[0]


def _literal_strings(node: ast.AST, names: Mapping[str, ast.AST]) -> Iterator[ast.Constant]:
    """The string constants of a literal list or tuple (a name bound at module level to one is
    followed); anything computed is left out: it cannot be read without running setup.py."""
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item


def _setup(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, keyword, requirement text) of each literal requirement given to ``setup()``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    names = {
        target.id: statement.value
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        if (getattr(call.func, "id", None) or getattr(call.func, "attr", None)) != "setup":
            continue
        for keyword in call.keywords:
            if keyword.arg not in SETUP_KEYWORDS:
                continue
            value = keyword.value
            if isinstance(value, ast.Name) and value.id in names:
                value = names[value.id]
            lists = value.values if isinstance(value, ast.Dict) else [value]
            for listed in lists:
                for item in _literal_strings(listed, names):
                    yield item.lineno, str(keyword.arg), str(item.value)


def dev_pins(files: Mapping[str, str]) -> list[DevPin]:
    """Every pin on a development build in ``files`` (path -> text, the :data:`PIN_FILES` of
    one commit), in path order."""
    found = []
    for path in sorted(files):
        name = PurePosixPath(path).name
        if path == "pyproject.toml":
            declared = _pyproject(files[path])
        elif name == "setup.py":
            declared = _setup(files[path])
        else:
            declared = _requirements(files[path])
        for line, where, text in declared:
            dev = _dev_version(text)
            if dev:
                found.append(DevPin(path, line, where, text, *dev))
    return found


def at(world: World, ref: str) -> list[DevPin]:
    """The pins on development builds at ``ref``, from the world's snapshot of its
    :data:`PIN_FILES` (gathered by the asks of the commands that check them)."""
    texts = {}
    for pattern in PIN_FILES:
        for path in world.files_matching(ref, pattern) if is_glob(pattern) else [pattern]:
            text = world.file_at(ref, path)
            if text is not None:
                texts[path] = text
    return dev_pins(texts)


def refuse(world: World, verb: str, branch: str) -> None:
    """A release never depends on a nightly: a dev-build pin in the files that declare
    dependencies (:data:`PIN_FILES`) at HEAD, the commit ``verb`` releases, is refused, each
    named with its file, line and fix. ``release rc`` under either RC model, and the final
    version bump under ``rc-model = "bump"`` (a new commit), check it."""
    head = str(world.head)
    found = at(world, head)
    if found:
        made = "A release candidate" if verb == "rc" else "The release"
        raise PreconditionError(
            f"{verb}: {branch} pins development (nightly) builds at {short(head)}: "
            f"{'; '.join(map(str, found))}. {made} would depend on a nightly: make each fix, "
            "commit it on the branch, then re-run."
        )
