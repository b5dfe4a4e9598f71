"""No module of the package or of ``scripts/`` is over 400 lines and no function over 80: a
bigger one holds more than one responsibility. A function's lines run from its ``def`` to its
last line (decorators aside, docstring included)."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

from helpers import REPO_ROOT

import mlrelease

SRC = Path(mlrelease.__file__).parent
FOLDERS = {"src/mlrelease": SRC, "scripts": REPO_ROOT / "scripts"}
"""The code held to the limits, by its folder in the repository: the package and the scripts
(case studies, benchmarks, supported tools) alike."""
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80

PENDING: dict[str, str] = {}
"""Over the limit in code another branch is replacing (``scripts/x.py`` for a module,
``scripts/x.py:Class.function`` for a function), with why: warned about until it lands, then
removed from here (an entry that is no longer over the limit fails the test)."""


def module_sizes(folder: Path) -> dict[str, int]:
    return {
        path.relative_to(folder).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(folder.rglob("*.py"))
    }


def function_sizes(folder: Path) -> dict[str, int]:
    """``path:Class.function`` -> its lines, for every function and method."""
    sizes: dict[str, int] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                sizes[f"{path}:{name}"] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, path, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, path, f"{prefix}{child.name}.")
            else:
                visit(child, path, prefix)

    for file in sorted(folder.rglob("*.py")):
        visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(folder).as_posix(), "")
    return sizes


def all_module_sizes() -> dict[str, int]:
    """:func:`module_sizes` of every folder in :data:`FOLDERS`, named from the repository."""
    return {f"{top}/{name}": n for top, f in FOLDERS.items() for name, n in module_sizes(f).items()}


def all_function_sizes() -> dict[str, int]:
    """:func:`function_sizes` of every folder in :data:`FOLDERS`, named from the repository."""
    return {
        f"{top}/{name}": n for top, f in FOLDERS.items() for name, n in function_sizes(f).items()
    }


def _over(sizes: dict[str, int], limit: int) -> dict[str, int]:
    big = {name: n for name, n in sizes.items() if n > limit}
    pending = {name: n for name, n in big.items() if name in PENDING}
    if pending:
        warnings.warn(f"still over {limit} lines, to be replaced: {pending}", stacklevel=2)
    return {name: n for name, n in big.items() if name not in PENDING}


def test_no_module_is_over_400_lines() -> None:
    over = _over(all_module_sizes(), MAX_MODULE_LINES)
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split them by responsibility): {over}"


def test_no_function_is_over_80_lines() -> None:
    over = _over(all_function_sizes(), MAX_FUNCTION_LINES)
    assert not over, (
        f"functions over {MAX_FUNCTION_LINES} lines (extract the steps they take): {over}"
    )


def test_pending_entries_are_still_over_the_limit() -> None:
    sizes = {**all_module_sizes(), **all_function_sizes()}
    limit = {False: MAX_MODULE_LINES, True: MAX_FUNCTION_LINES}
    done = [name for name in PENDING if sizes.get(name, 0) <= limit[":" in name]]
    assert done == [], f"no longer over the limit (or gone): remove from PENDING: {done}"


def test_the_sizes_count_nested_functions_and_methods(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "class A:\n    def f(self):\n        def g():\n            pass\n        return g\n",
        encoding="utf-8",
    )
    assert function_sizes(tmp_path) == {"m.py:A.f": 4, "m.py:A.f.g": 2}
    assert module_sizes(tmp_path) == {"m.py": 5}


def test_the_scripts_are_held_to_the_limits_too() -> None:
    modules, functions = all_module_sizes(), all_function_sizes()
    assert "scripts/adoption_corpus_replay.py" in modules
    assert "scripts/case_study_replay_steps.py:Replay.rc" in functions
    assert "src/mlrelease/registry.py" in modules
