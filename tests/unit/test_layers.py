"""Imports go down the layers of :mod:`mlrelease.layers` only, and none goes round in a circle.

Every import counts, at module level or inside a function alike: an import deferred into a
function still couples the two modules, and a circle of them is still a circle; so does a module
a registry entry names, imported on demand (``Gates("mlrelease.docs.gate", ...)``). Imports
under ``if TYPE_CHECKING:`` do not count (they never run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import mlrelease
from mlrelease import layers, registry
from mlrelease.layers import Layer

SRC = Path(mlrelease.__file__).parent
FEATURES = layers.FEATURES
"""The layer whose members may import each other only along the registry's arrows."""
STACK = registry.stack()
"""The layers, the features layer filled from :data:`mlrelease.registry.FEATURES`."""


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` on ``line`` of the source's file."""

    source: str
    target: str
    line: int


def modules_of(folder: Path, package: str) -> dict[str, Path]:
    """Dotted name -> file of every module of the package in ``folder``."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        parts = (package, *path.relative_to(folder).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: anywhere but the body of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]))
        else:
            yield from _imports(node)


def _targets(name: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        anchor = package[: len(package) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


ON_DEMAND = ("Gates", "Commands")
"""The parts of a registry entry that name a module imported on demand
(:mod:`mlrelease.entries`): ``Gates("mlrelease.docs.gate", ...)`` is an import of that module."""


def _on_demand(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """The modules named by ``Gates("module", ...)`` and ``Commands("module", ...)`` calls."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ON_DEMAND
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value, node.lineno


def _targets_of(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``name`` imports, with the line: its import statements and the modules its
    registry entries name (imported on demand, they couple the modules all the same)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in _imports(tree):
        for target in _targets(name, path, node):
            yield target, node.lineno
    yield from _on_demand(tree)


def edges_of(modules: Mapping[str, Path]) -> list[Edge]:
    """Every import between two modules of the package (importing ``a.b.c`` runs ``a`` and
    ``a.b`` first, so those count too), but a module's imports of its own parent packages."""
    found = set()
    for name, path in modules.items():
        for target, line in _targets_of(name, path):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                dotted = ".".join(parts[:i])
                own = name == dotted or name.startswith(dotted + ".")
                if dotted in modules and not own:
                    found.add(Edge(name, dotted, line))
    return sorted(found, key=lambda e: (e.source, e.target, e.line))


def cycles(edges: Sequence[Edge]) -> list[list[str]]:
    """Groups of modules that import each other (strongly connected components > 1)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def unit_of(module: str) -> str:
    """The top-level module or package a module belongs to (``""``: the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(unit: str, order: Sequence[Layer]) -> int | None:
    return next((i for i, layer in enumerate(order) if unit in layer.units), None)


def undeclared(modules: Mapping[str, Path], order: Sequence[Layer]) -> list[str]:
    units = sorted({unit_of(m) for m in modules})
    return [u for u in units if _layer(u, order) is None]


def upward(
    edges: Sequence[Edge], order: Sequence[Layer], arrows: Mapping[str, Sequence[str]]
) -> list[str]:
    """The imports that break the order: to a higher layer, or between two features along no
    declared arrow."""
    found = []
    for edge in edges:
        source, target = unit_of(edge.source), unit_of(edge.target)
        low, high = _layer(target, order), _layer(source, order)
        if source == target or low is None or high is None or low < high:
            continue
        where = f"{edge.source} ({order[high].name}) imports {edge.target}"
        if low > high:
            found.append(f"{where} ({order[low].name}) on line {edge.line}: upward")
        elif order[low].name == FEATURES and target not in arrows.get(source, ()):
            found.append(f"{where} on line {edge.line}: no arrow {source} -> {target} declared")
    return found


def _describe(cycle: list[str], edges: Sequence[Edge]) -> str:
    members = set(cycle)
    inside = [
        f"{e.source}:{e.line} -> {e.target}" for e in edges if {e.source, e.target} <= members
    ]
    return f"{len(cycle)} modules ({', '.join(cycle)}): " + "; ".join(inside)


FIX = (
    "Pass what the lower module needs down to it (an argument, a Context field) instead of "
    "importing up, or move the shared piece down; a new feature arrow is declared in "
    "its feature's `uses` in src/mlrelease/registry.py (FEATURES) after asking."
)


def test_every_module_is_in_a_declared_layer() -> None:
    missing = undeclared(modules_of(SRC, "mlrelease"), STACK)
    assert missing == [], f"declare these units of mlrelease in src/mlrelease/layers.py: {missing}"


def test_no_import_goes_round_in_a_circle() -> None:
    edges = edges_of(modules_of(SRC, "mlrelease"))
    found = cycles(edges)
    assert found == [], "modules that import each other: " + " | ".join(
        _describe(c, edges) for c in found
    )


def test_imports_go_down_the_layers_only() -> None:
    edges = edges_of(modules_of(SRC, "mlrelease"))
    found = upward(edges, STACK, registry.arrows())
    assert found == [], (
        f"{len(found)} imports break the layer order: " + "; ".join(found) + (f". {FIX}")
    )


def test_the_feature_arrows_name_features_and_form_no_circle() -> None:
    [features] = [layer for layer in STACK if layer.name == FEATURES]
    arrows = registry.arrows()
    assert sorted(arrows) == sorted(features.units)
    for source, targets in arrows.items():
        assert set(targets) <= set(features.units) - {source}, source
    as_edges = [Edge(s, t, 0) for s, targets in arrows.items() for t in targets]
    assert cycles(as_edges) == []


def test_every_unit_is_declared_once() -> None:
    units = [u for layer in STACK for u in layer.units]
    assert len(units) == len(set(units))
    assert layers.layer_of("config") == 1 and layers.layer_of("nowhere") is None
    assert layers.layer_of("release", STACK) == 3 and layers.layer_of("release") is None


# --- the checker itself can fail ------------------------------------------------------------

ORDER = (
    Layer("core", ("", "base"), ""),
    Layer(FEATURES, ("a", "b"), ""),
    Layer("root", ("top",), ""),
)


def _package(tmp_path: Path, files: Mapping[str, str]) -> dict[str, Path]:
    folder = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return modules_of(folder, "pkg")


def test_the_checker_sees_imports_inside_functions_but_not_for_type_checkers(
    tmp_path: Path,
) -> None:
    modules = _package(
        tmp_path,
        {
            "base.py": "def load():\n    from pkg import top\n",
            "top.py": "from typing import TYPE_CHECKING\nfrom pkg import base\n"
            "if TYPE_CHECKING:\n    from pkg.a import x\nelse:\n    import pkg.b\n",
            "a/__init__.py": "",
            "b/__init__.py": "",
        },
    )
    edges = edges_of(modules)
    assert {(e.source, e.target) for e in edges} == {
        ("pkg.base", "pkg.top"),
        ("pkg.top", "pkg.base"),
        ("pkg.top", "pkg.b"),
    }
    assert cycles(edges) == [["pkg.base", "pkg.top"]]
    assert upward(edges, ORDER, {}) == ["pkg.base (core) imports pkg.top (root) on line 2: upward"]


def test_the_checker_allows_declared_feature_arrows_only(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "a/__init__.py": "",
            "a/one.py": "from pkg.b import two\nfrom pkg.a import three\n",
            "a/three.py": "from pkg import base\n",
            "b/__init__.py": "",
            "b/two.py": "",
            "base.py": "",
        },
    )
    edges = edges_of(modules)
    assert upward(edges, ORDER, {"a": ("b",), "b": ()}) == []
    assert upward(edges, ORDER, {"a": (), "b": ()}) == [
        "pkg.a.one (features) imports pkg.b on line 1: no arrow a -> b declared",
        "pkg.a.one (features) imports pkg.b.two on line 1: no arrow a -> b declared",
    ]
    assert undeclared(modules, ORDER[:1]) == ["a", "b"]


def test_a_module_a_registry_entry_names_counts_as_imported(tmp_path: Path) -> None:
    root = 'Gates("pkg.a.gate", ("one",))\nCommands("pkg.a.cli", ("a",))\n'
    empty = dict.fromkeys(("a/__init__.py", "a/gate.py", "a/cli.py"), "")
    modules = _package(tmp_path, {"root.py": root, **empty})
    assert {(e.source, e.target, e.line) for e in edges_of(modules)} == {
        ("pkg.root", "pkg.a", 1),
        ("pkg.root", "pkg.a.gate", 1),
        ("pkg.root", "pkg.a", 2),
        ("pkg.root", "pkg.a.cli", 2),
    }


TAG_WALK = (
    ("mlrelease.cli", "mlrelease.registry"),  # the command line asks the composition root
    ("mlrelease.registry", "mlrelease.config"),  # to load pyproject.toml with every table
    ("mlrelease.config", "mlrelease.naming"),  # which parses `tag` into Names, checked at load
    ("mlrelease.registry", "mlrelease.release.cli"),  # `release promote`, named by its entry
    ("mlrelease.release.cli", "mlrelease.release.service"),
    ("mlrelease.release.service", "mlrelease.release.promotion.final"),  # the promote planner
    ("mlrelease.release.promotion.final", "mlrelease.naming"),  # the final tag's name, formatted
)
"""How ``[tool.mlrelease.release] tag`` travels from pyproject.toml to the tag `release
promote` pushes: each hop an import of the next module, never an import up."""


def test_the_tag_setting_walks_down_the_layers_from_pyproject_to_promote() -> None:
    edges = {(e.source, e.target) for e in edges_of(modules_of(SRC, "mlrelease"))}
    for source, target in TAG_WALK:
        assert (source, target) in edges, f"{source} no longer imports {target}: update TAG_WALK"
        high = _layer(unit_of(source), STACK)
        low = _layer(unit_of(target), STACK)
        assert high is not None and low is not None and high >= low, f"{source} -> {target}"
