"""Docstrings are true: every cross-reference in the package's docstrings names a module,
function, class or attribute that exists.

A module that moves or is renamed leaves its old name in the docstrings that point at it (the
package docstrings listed ``.gates`` and ``.settings`` long after those modules were renamed);
Sphinx only warns about such a reference, so this test fails on it. Read from the syntax trees:
nothing is imported.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import mlrelease

SRC = Path(mlrelease.__file__).parent
REFERENCE = re.compile(r":(mod|func|class|data|attr|meth|exc|obj):`~?(\.?[\w.]+)`")


@dataclass
class Module:
    names: set[str] = field(default_factory=set)
    """What the module defines or imports at top level."""
    members: dict[str, set[str]] = field(default_factory=dict)
    """Class -> what its body defines."""


def _defined(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            names |= _defined(node.body) | _defined(getattr(node, "orelse", []))
    return names


def index(folder: Path, package: str) -> dict[str, Module]:
    found: dict[str, Module] = {}
    for path in sorted(folder.rglob("*.py")):
        parts = (package, *path.relative_to(folder).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = Module(_defined(tree.body))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                members = _defined(node.body)
                members |= {
                    a.target.id
                    for a in ast.walk(node)
                    if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
                }
                module.members[node.name] = members
        found[name] = module
    for name in found:  # a package's sub-modules are its attributes
        if "." in name:
            parent, _, child = name.rpartition(".")
            if parent in found:
                found[parent].names.add(child)
    return found


def resolves(target: str, role: str, modules: dict[str, Module]) -> bool:
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        if name in modules:
            rest = parts[cut:]
            break
    else:
        return False
    if role == "mod":
        return not rest
    module = modules[name]
    if not rest or rest[0] not in module.names:
        return False
    if len(rest) == 1 or rest[0] not in module.members:
        return True  # a function's or an imported object's attributes are not checked
    return rest[1] in module.members[rest[0]]


def dead_references(folder: Path, package: str) -> list[str]:
    modules = index(folder, package)
    dead = []
    for path in sorted(folder.rglob("*.py")):
        parts = (package, *path.relative_to(folder).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        home = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(
                node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
            ):
                continue
            for role, target in REFERENCE.findall(ast.get_docstring(node) or ""):
                if target.startswith("."):  # Sphinx looks in the module, then its package
                    candidates = [name + target, home + target]
                elif target.split(".")[0] == package:
                    candidates = [target]
                else:
                    continue  # another project's name (Python's, onnx's)
                if not any(resolves(c, role, modules) for c in candidates):
                    line = getattr(node, "lineno", 1)
                    dead.append(f"{path.relative_to(folder.parent)}:{line} :{role}:`{target}`")
    return dead


def test_every_reference_in_a_docstring_names_what_exists() -> None:
    dead = dead_references(SRC, "mlrelease")
    assert dead == [], "docstrings name what does not exist (renamed or moved?): " + "; ".join(dead)


def test_a_renamed_module_left_in_a_docstring_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        '"""Modules: :mod:`.config`, :mod:`.settings`, :func:`pkg.config.load`."""\n',
        encoding="utf-8",
    )
    (folder / "config.py").write_text(
        '"""See :class:`.Config` and :attr:`pkg.config.Config.root`, not :meth:`.Config.gone`."""\n'
        "class Config:\n    root: str = '.'\n\ndef load() -> None: ...\n",
        encoding="utf-8",
    )
    assert dead_references(folder, "pkg") == [
        "pkg/__init__.py:1 :mod:`.settings`",
        "pkg/config.py:1 :meth:`.Config.gone`",
    ]
