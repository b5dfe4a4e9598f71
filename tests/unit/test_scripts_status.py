"""Every script in ``scripts/`` has a status, and keeps the rule of its kind (scripts/README.md).

The README's two tables are the list: *supported tools* and *generators* (case studies and
benchmarks). Every ``scripts/*.py`` is in exactly one. Read from the syntax trees and the pages;
nothing is run or imported here.

- A supported tool is tested (the test the table names exists and names the script's file), it
  imports only public names of ``mlrelease`` (:func:`private_imports` says what public means),
  it reaches no outside system itself (no ``subprocess``, ``urllib``, ``http``, ``socket``:
  those go through ``mlrelease.edges``) and it imports nothing from ``tests/``.
- A generator names the page that holds its output, and that page says its command
  (``scripts/<name>.py``); a module that only serves a generator names that generator.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers import REPO_ROOT

from mlrelease import layers, registry

SCRIPTS = REPO_ROOT / "scripts"
SRC = REPO_ROOT / "src" / "mlrelease"
ROOMS = {"config", "service", "gate", "cli"}
OUTSIDE = {"subprocess", "urllib", "http", "socket"}
ROW = re.compile(r"^\| `([\w.]+\.py)` \| (.*?) \|\s*(.*?)\s*\|$")
MOD_REF = re.compile(r":mod:`~?([\w.]+)`")


def tables(text: str) -> dict[str, dict[str, tuple[str, str]]]:
    """Section heading -> script -> (its second, its third column), from the README."""
    found: dict[str, dict[str, tuple[str, str]]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        match = ROW.match(line)
        if match and section:
            found.setdefault(section, {})[match.group(1)] = (match.group(2), match.group(3))
    return found


def _lists() -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    found = tables((SCRIPTS / "README.md").read_text(encoding="utf-8"))
    return found["Supported tools"], found["Generators: case studies and benchmarks"]


def exposed(feature: str, src: Path = SRC) -> set[str]:
    """The modules a feature package exposes: its rooms and every module its docstring names."""
    doc = ast.get_docstring(ast.parse((src / feature / "__init__.py").read_text("utf-8"))) or ""
    names = set(ROOMS)
    for ref in MOD_REF.findall(doc):
        dotted = f"mlrelease.{feature}{ref}" if ref.startswith(".") else ref
        parts = dotted.split(".")
        if parts[:2] == ["mlrelease", feature] and len(parts) > 2:
            names.add(parts[2])
    return names


def _is_module(dotted: str, src: Path) -> bool:
    path = src.joinpath(*dotted.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _public(dotted: str, src: Path) -> str | None:
    """Why importing the module ``dotted`` is not public, or None when it is."""
    parts = dotted.split(".")
    if any(p.startswith("_") for p in parts):
        return "a private module"
    stack = registry.stack()
    index = layers.layer_of(parts[1] if len(parts) > 1 else "", stack)
    if index is None:
        return "no module a layer declares"
    if stack[index].name != "features" or len(parts) == 2:
        return None  # utilities, core, edges, the composition root; a feature package itself
    if parts[2] not in exposed(parts[1], src):
        return f"not a module mlrelease.{parts[1]} exposes (its rooms and its docstring's list)"
    return None


def private_imports(source: str, src: Path = SRC) -> list[str]:
    """What a supported tool imports that is no public name of ``mlrelease``, or that reaches
    an outside system or the tests itself.

    Public: no part of the module path and no imported name starts with ``_``, and the module
    is one the package exposes: any module of the utilities, core, edges or composition-root
    layers of :mod:`mlrelease.layers`, or a module of a feature package that is one of its
    rooms (``config``, ``service``, ``gate``, ``cli``) or that the package's docstring names.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            pairs = [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            pairs = [(node.module, a.name) for a in node.names]
        else:
            continue
        for module, name in pairs:
            top = module.split(".")[0]
            if top in OUTSIDE:
                found.append(f"{module}: an outside system reached without mlrelease.edges")
            elif top == "helpers":
                found.append(f"{module}: the tests' helpers")
            elif top == "mlrelease":
                if name.startswith("_"):
                    found.append(f"{module}.{name}: a private name")
                    continue
                target = f"{module}.{name}" if name else module
                dotted = target if name and _is_module(target, src) else module
                why = _public(dotted, src)
                if why:
                    found.append(f"{dotted}: {why}")
    return found


def test_every_script_has_one_status() -> None:
    supported, generators = _lists()
    scripts = {p.name for p in SCRIPTS.glob("*.py")}
    assert set(supported) & set(generators) == set()
    assert sorted(scripts - set(supported) - set(generators)) == [], "add them to scripts/README.md"
    assert sorted((set(supported) | set(generators)) - scripts) == [], "listed, but not there"


def test_supported_tools_are_tested() -> None:
    supported, _ = _lists()
    for script, (_, test) in supported.items():
        path = REPO_ROOT / test.strip("`")
        assert path.is_file(), f"{script}: its test {test} does not exist"
        strings = {
            n.value
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        assert any(s == script or s.endswith(f"/{script}") for s in strings), (
            f"{test} does not name {script}: a supported tool's test runs it"
        )


def test_supported_tools_use_public_names_and_the_edges() -> None:
    supported, _ = _lists()
    found = {s: private_imports((SCRIPTS / s).read_text(encoding="utf-8")) for s in supported}
    assert {s: f for s, f in found.items() if f} == {}


def test_generators_pages_say_their_command() -> None:
    _, generators = _lists()
    for script, (what, page) in generators.items():
        if not page:
            owners = re.findall(r"`(\w+\.py)`", what.split(":")[0])
            assert what.startswith("part of ") and owners, f"{script}: no page and no owner"
            assert all(generators.get(o, ("", ""))[1] for o in owners), f"{script}: {owners}"
            continue
        text = (REPO_ROOT / page).read_text(encoding="utf-8")
        assert f"scripts/{script}" in text, f"{page} does not say `scripts/{script}`"


def test_a_supported_tool_reaching_inside_is_found() -> None:
    source = (
        "import subprocess\n"
        "from helpers.release import GIT_ENV\n"
        "from mlrelease.perf import runner, service\n"
        "from mlrelease.perf.runner import _private\n"
        "from mlrelease.models import probe_cache\n"
        "from mlrelease.models.probe_cache import cached_probe\n"
        "from mlrelease.edges import git\n"
        "from mlrelease.registry import load_config\n"
        "def f():\n"
        "    import mlrelease.release._nothing\n"
    )
    assert private_imports(source) == [
        "subprocess: an outside system reached without mlrelease.edges",
        "helpers.release: the tests' helpers",
        "mlrelease.perf.runner._private: a private name",
        "mlrelease.models.probe_cache: not a module mlrelease.models exposes (its rooms and "
        "its docstring's list)",
        "mlrelease.models.probe_cache: not a module mlrelease.models exposes (its rooms and "
        "its docstring's list)",
        "mlrelease.release._nothing: a private module",
    ]
