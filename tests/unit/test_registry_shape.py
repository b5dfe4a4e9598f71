"""The package's shape: one registry of features, the same rooms in every feature package,
no import cycle, and a new gate that costs one file plus one registry line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import example_gate

import mlrelease
from mlrelease import config, registry
from mlrelease.gates import Context, Status, load_gates, select

SRC = Path(mlrelease.__file__).parent
ROOMS = ("cli.py", "config.py", "gate.py")
NOT_FEATURES = {
    "edges": "edges to outside systems, no feature",
    "gates": "the gate contract; its project gates are registered as `project`",
    "init": "`mlrelease init` writes a configuration; it has no table and no gate",
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_time(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: not in functions, not for type checkers."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node):
            found += _import_time(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                found += _import_time(getattr(node, field, []) or [])
    return found


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _import_time(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                parts = target.split(".")
                # importing a.b.c runs a and a.b first (unless they are the importer's own)
                for i in range(1, len(parts) + 1):
                    dotted = ".".join(parts[:i])
                    own = name == dotted or name.startswith(dotted + ".")
                    if dotted in modules and not own:
                        graph[name].add(dotted)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
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


def test_no_import_cycle_in_the_package() -> None:
    """Over the imports that run at import time; an import inside a function is deferred on
    purpose (``config.load`` reaches the registry only when it runs) and is no edge."""
    cycles = _cycles(_graph(_modules()))
    assert cycles == [], "modules that import each other at import time: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    # The check itself must be able to fail: two modules importing each other.
    (tmp_path / "a.py").write_text("from pkg import b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nimport pkg.a\nif TYPE_CHECKING:\n    import pkg.c\n",
        encoding="utf-8",
    )
    (tmp_path / "c.py").write_text("def f():\n    import pkg.b\n", encoding="utf-8")
    modules = {f"pkg.{p.stem}": p for p in tmp_path.glob("*.py")}
    graph = _graph(modules)
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": set()}
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


def test_config_imports_no_feature() -> None:
    graph = _graph(_modules())
    features = {m.__name__.rpartition(".")[0] for m in registry.FEATURES}
    reached = {m for m in graph["mlrelease.config"] if m.rpartition(".")[0] in features}
    assert reached == set()


def test_every_feature_package_has_the_same_rooms() -> None:
    packages = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file())
    registered = {m.__name__.split(".")[1] for m in registry.FEATURES}
    missing = []
    for package in packages:
        if package in NOT_FEATURES:
            continue
        assert package in registered, f"mlrelease.{package} is in no entry of FEATURES"
        for room in ROOMS:
            if not (SRC / package / room).is_file():
                missing.append(f"{package}/{room}")
    assert missing == []


def test_every_registered_feature_satisfies_the_protocol() -> None:
    for feature in registry.FEATURES:
        assert isinstance(feature, registry.Feature), feature
        assert feature.GATES, f"{feature} registers no gate"
    assert isinstance(example_gate, registry.Feature)


def test_a_table_is_parsed_by_its_feature(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mlrelease.perf]\ngate-profile = 'gpu'\n", encoding="utf-8"
    )
    from mlrelease.perf.config import PerfConfig

    loaded = config.load(tmp_path)
    assert loaded.table(PerfConfig).gate_profile == "gpu"
    assert loaded.perf is loaded.table(PerfConfig)  # the attribute spelling reads the same
    assert config.Config().table(PerfConfig) == PerfConfig()  # no table: its defaults


def test_a_new_gate_is_one_file_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mlrelease]\ngates = ['license']\n[tool.mlrelease.license]\nfile = 'COPYING'\n",
        encoding="utf-8",
    )
    with pytest.raises(config.ConfigError, match=r"tool\.mlrelease\.license: expected a known"):
        config.load(tmp_path)  # not registered yet: its table is an unknown key

    monkeypatch.setattr(registry, "FEATURES", (*registry.FEATURES, example_gate))  # the line

    loaded = config.load(tmp_path)
    assert loaded.table(example_gate.LicenseConfig).file == "COPYING"
    assert "license" in load_gates(loaded)
    [license_gate] = select(loaded)
    assert license_gate.execute(Context(loaded)).status is Status.FAIL
    (tmp_path / "COPYING").write_text("MIT\n", encoding="utf-8")
    result = license_gate.execute(Context(loaded))
    assert (result.status, result.summary) == (Status.PASS, "COPYING is there")
