"""Figures of the code's shape, for the closing notes of refactors (issue #41).

Prints the largest modules and functions of ``src/mlrelease``, the ``# fmt: skip`` count, and the
class and function names that more than one module defines at top level (one name, several
ideas). Run from the repository root: ``python scripts/code_figures.py [--top N]``.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

SRC = Path("src/mlrelease")


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _functions(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            found.append((length, f"{path.relative_to(SRC)}:{node.name}"))
    return found


def _top_level_names(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [node.name for node in tree.body if isinstance(node, kinds)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=8, help="how many of each list to show")
    top = parser.parse_args().top
    modules = _modules()
    sizes = sorted(
        (
            (len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(SRC)))
            for p in modules
        ),
        reverse=True,
    )
    functions = sorted((f for p in modules for f in _functions(p)), reverse=True)
    skips = sum(p.read_text(encoding="utf-8").count("# fmt: skip") for p in modules)
    owners: dict[str, list[str]] = defaultdict(list)
    for p in modules:
        for name in _top_level_names(p):
            owners[name].append(str(p.relative_to(SRC)))
    shared = {n: o for n, o in owners.items() if len(o) > 1 and not n.startswith("__")}
    print(f"modules: {len(modules)}, lines: {sum(s for s, _ in sizes)}")
    print(f"modules over 380 lines: {sum(1 for s, _ in sizes if s > 380)}")
    print("largest modules:", ", ".join(f"{n} {s}" for s, n in sizes[:top]))
    print(f"functions over 70 lines: {sum(1 for s, _ in functions if s > 70)}")
    print("largest functions:", ", ".join(f"{n} {s}" for s, n in functions[:top]))
    print(f"'# fmt: skip' lines: {skips}")
    public = {n: o for n, o in shared.items() if not n.startswith("_")}
    print(f"top-level names defined in more than one module: {len(shared)} ({len(public)} public)")
    for name in sorted(public):
        print(f"  {name}: {', '.join(public[name])}")
    private = sorted(n for n in shared if n.startswith("_"))
    print(f"  private ones: {', '.join(private)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
