"""Figures of the code's shape, for the closing notes of refactors (issues #41 and #49).

Prints, for ``src/mlrelease``: the largest modules and functions, the ``# fmt: skip`` count, the
class and function names that more than one module defines at top level (one name, several
ideas), the modules and subpackages of ``release/`` and the largest function signatures; for
``tests/``: the files that write ``[tool.mlrelease]`` TOML inline and the runs of six or more
lines that stand in two places or more; and the modules a real ``release promote`` enters
(``scripts/code_figures_trace.py``, some 20 s: it builds a project). Run from the repository
root: ``python scripts/code_figures.py [--top N] [--section NAME ...] [--json]``.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

SRC = Path("src/mlrelease")
TESTS = Path("tests")
INNER = "release"
"""The package of ``src/mlrelease`` whose inner rooms are counted."""
COPY_LINES = 6
"""How many identical consecutive lines make a copy."""
TOML_HEADER = re.compile(r"^\s*\[\[?tool\.mlrelease[\].]", re.MULTILINE)
THIN = re.compile(r"^(?:[\s()\[\]{},:;]*|pass|\"\"\"|''')$")
"""A line a copy does not count: blank, only brackets and commas, ``pass``, a docstring quote."""


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _shown(path: Path) -> str:
    """``path`` under the tests' folder, as ``tests/...``."""
    return (Path(TESTS.name) / path.relative_to(TESTS)).as_posix()


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _functions(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(_read(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            found.append((length, f"{path.relative_to(SRC)}:{node.name}"))
    return found


def _top_level_names(path: Path) -> list[str]:
    kinds = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [node.name for node in ast.parse(_read(path)).body if isinstance(node, kinds)]


def shape(top: int) -> dict[str, Any]:
    """Sizes, ``# fmt: skip`` lines and top-level names defined in more than one module."""
    modules = _modules(SRC)
    sizes = sorted(
        ((len(_read(p).splitlines()), str(p.relative_to(SRC))) for p in modules), reverse=True
    )
    functions = sorted((f for p in modules for f in _functions(p)), reverse=True)
    owners: dict[str, list[str]] = defaultdict(list)
    for p in modules:
        for name in _top_level_names(p):
            owners[name].append(str(p.relative_to(SRC)))
    shared = {n: o for n, o in owners.items() if len(o) > 1 and not n.startswith("__")}
    return {
        "modules": len(modules),
        "lines": sum(s for s, _ in sizes),
        "modules_over_380": sum(1 for s, _ in sizes if s > 380),
        "largest_modules": [[n, s] for s, n in sizes[:top]],
        "functions_over_70": sum(1 for s, _ in functions if s > 70),
        "largest_functions": [[n, s] for s, n in functions[:top]],
        "fmt_skip": sum(_read(p).count("# fmt: skip") for p in modules),
        "shared_names": {n: shared[n] for n in sorted(shared)},
    }


def rooms() -> dict[str, Any]:
    """The modules (``.py`` files, subpackages' included) and subpackages of ``release/``."""
    root = SRC / INNER
    modules = _modules(root)
    packages = {d for p in modules for d in p.parents if d != root and root in d.parents}
    return {
        "package": INNER,
        "modules": len(modules),
        "subpackages": len(packages),
        "lines": sum(len(_read(p).splitlines()) for p in modules),
        "subpackage_names": sorted(d.relative_to(root).as_posix() for d in packages),
    }


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Positional, keyword-only, ``*args`` and ``**kwargs``; ``self`` and ``cls`` not counted."""
    spec = node.args
    named = [*spec.posonlyargs, *spec.args, *spec.kwonlyargs, spec.vararg, spec.kwarg]
    return sum(1 for a in named if a is not None and a.arg not in ("self", "cls"))


def signatures(top: int) -> dict[str, Any]:
    """The functions of ``src/mlrelease`` with the most parameters."""
    found = []
    for path in _modules(SRC):
        for node in ast.walk(ast.parse(_read(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{path.relative_to(SRC).as_posix()}:{node.name}"
                found.append((_parameters(node), name))
    found.sort(key=lambda item: (-item[0], item[1]))
    return {"largest": [[n, c] for c, n in found[:top]]}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
    }


def _writes_toml(path: Path) -> bool:
    """Whether a string of ``path`` (not a docstring) holds a ``[tool.mlrelease...]`` header at
    the start of one of its lines."""
    tree = ast.parse(_read(path))
    docs = _docstrings(tree)
    return any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docs
        and TOML_HEADER.search(n.value) is not None
        for n in ast.walk(tree)
    )


PROJECTS = Path("helpers/projects")
"""The named test projects, under ``tests/``: where a project's tables are written, once."""


def inline_toml() -> dict[str, Any]:
    """The files under ``tests/`` that write ``[tool.mlrelease]`` tables inline, but for the
    named test projects themselves (``projects``: those of them that do)."""
    named: list[str] = []
    paths: list[str] = []
    for path in (p for p in _modules(TESTS) if _writes_toml(p)):
        (named if path.relative_to(TESTS).is_relative_to(PROJECTS) else paths).append(_shown(path))
    return {"files": len(paths), "paths": paths, "projects": named}


def _import_lines(path: Path) -> set[int]:
    """The lines of ``path``'s import statements, wherever they stand."""
    kinds = (ast.Import, ast.ImportFrom)
    return {
        number
        for node in ast.walk(ast.parse(_read(path)))
        if isinstance(node, kinds)
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }


def _significant(path: Path, *, imports: bool = False) -> list[tuple[int, str]]:
    """(line number, text with its whitespace normalised) of each line a copy counts: not import
    statements (two tests that import the same names share no code, as pylint's similarity
    check says with ``ignore-imports``), unless ``imports``."""
    skipped = set() if imports else _import_lines(path)
    lines = enumerate(_read(path).splitlines(), 1)
    normal = ((number, " ".join(line.split())) for number, line in lines if number not in skipped)
    return [(number, text) for number, text in normal if not THIN.match(text)]


def _diagonals(files: dict[str, list[str]]) -> dict[tuple[str, str, int], set[int]]:
    """(file A, file B, offset of B's lines to A's) -> the starts in A of the windows of
    :data:`COPY_LINES` lines that stand at that offset in B."""
    windows: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, texts in files.items():
        for start in range(len(texts) - COPY_LINES + 1):
            windows[tuple(texts[start : start + COPY_LINES])].append((name, start))
    diagonals: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    for places in windows.values():
        for i, (a, at) in enumerate(places):
            for b, bt in places[i + 1 :]:
                if a != b or bt - at >= COPY_LINES:  # a file's run overlapping itself is none
                    diagonals[(a, b, bt - at)].add(at)
    return diagonals


def _runs(starts: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive window starts, as (first start, last start)."""
    ordered = sorted(starts)
    runs, first = [], ordered[0]
    for before, start in itertools.pairwise(ordered):
        if start != before + 1:
            runs.append((first, before))
            first = start
    runs.append((first, ordered[-1]))
    return runs


def copies(top: int) -> dict[str, Any]:
    """Runs of :data:`COPY_LINES` or more identical lines that stand in two places or more under
    ``tests/``, one group per distinct run, longest and most repeated first; import statements
    are not counted (``with_imports``: the groups and places when they are, as before
    2026-11-30)."""
    found = _copies(top, imports=False)
    counted = _copies(0, imports=True)
    found["with_imports"] = {"groups": counted["groups"], "places": counted["places"]}
    return found


def _copies(top: int, *, imports: bool) -> dict[str, Any]:
    lines = {_shown(p): _significant(p, imports=imports) for p in _modules(TESTS)}
    texts = {name: [t for _, t in found] for name, found in lines.items()}
    groups: dict[tuple[str, ...], set[tuple[str, int, int]]] = defaultdict(set)
    for (a, b, offset), starts in _diagonals(texts).items():
        for first, last in _runs(starts):
            end = last + COPY_LINES - 1
            run = tuple(texts[a][first : end + 1])
            for name, lo, hi in ((a, first, end), (b, first + offset, end + offset)):
                groups[run].add((name, lines[name][lo][0], lines[name][hi][0]))
    ranked = sorted(groups.items(), key=lambda g: (-len(g[0]) * len(g[1]), sorted(g[1])))
    shown = [
        {"lines": len(run), "places": [f"{n}:{lo}-{hi}" for n, lo, hi in sorted(places)]}
        for run, places in ranked
    ]
    return {
        "groups": len(groups),
        "places": sum(len(p) for p in groups.values()),
        "top": shown[:top],
    }


def _say_shape(found: dict[str, Any]) -> None:
    def listed(pairs: list[list[Any]]) -> str:
        return ", ".join(f"{n} {s}" for n, s in pairs)

    print(f"modules: {found['modules']}, lines: {found['lines']}")
    print(f"modules over 380 lines: {found['modules_over_380']}")
    print("largest modules:", listed(found["largest_modules"]))
    print(f"functions over 70 lines: {found['functions_over_70']}")
    print("largest functions:", listed(found["largest_functions"]))
    print(f"'# fmt: skip' lines: {found['fmt_skip']}")
    shared = found["shared_names"]
    public = {n: o for n, o in shared.items() if not n.startswith("_")}
    print(f"top-level names defined in more than one module: {len(shared)} ({len(public)} public)")
    for name in sorted(public):
        print(f"  {name}: {', '.join(public[name])}")
    private = sorted(n for n in shared if n.startswith("_"))
    print(f"  private ones: {', '.join(private)}")


def _say_rooms(found: dict[str, Any]) -> None:
    print(
        f"inner rooms of {found['package']}/: {found['modules']} modules, "
        f"{found['subpackages']} subpackages ({', '.join(found['subpackage_names'])}), "
        f"{found['lines']} lines"
    )


def _say_signatures(found: dict[str, Any]) -> None:
    largest = found["largest"]
    print(f"largest signature: {largest[0][0]} {largest[0][1]} parameters" if largest else "")
    print("most parameters:", ", ".join(f"{n} {c}" for n, c in largest))


def _say_toml(found: dict[str, Any]) -> None:
    print(
        f"test files writing [tool.mlrelease] TOML inline: {found['files']}"
        f" (and {len(found['projects'])} of the named test projects, {PROJECTS.as_posix()}/)"
    )


def _say_copies(found: dict[str, Any]) -> None:
    print(
        f"exact copies in tests/ ({COPY_LINES}+ identical lines): {found['groups']} groups "
        f"in {found['places']} places, import statements not counted"
        f" ({found['with_imports']['groups']} groups in {found['with_imports']['places']} places"
        " counting them)"
    )
    for group in found["top"]:
        print(f"  {group['lines']} lines: {', '.join(group['places'])}")


def trace(top: int) -> dict[str, Any]:
    """The modules a real ``release promote`` enters (scripts/code_figures_trace.py)."""
    import code_figures_trace  # a sibling of this script; only this figure needs git and a build

    walk = code_figures_trace.promote_walk()
    return {**walk.as_dict(), "most_entered": walk.most_entered(top)}


def _say_trace(found: dict[str, Any]) -> None:
    print(f"promote trace: `{found['command']}` (dry run) exited {found['exit_code']}")
    print(
        f"  modules entered: {found['modules_entered']}, entries: {found['entries']}, "
        f"re-entries: {found['reentries']}, climbs back up: {found['climbs_back_up']}"
    )
    print("  by package:", ", ".join(f"{p} {n}" for p, n in found["by_package"].items()))
    print("  in order of first entry:", ", ".join(found["modules"]))
    print("  most entered:", ", ".join(f"{m} {n}" for m, n in found["most_entered"]))


SECTIONS: dict[str, tuple[Callable[[int], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
    "shape": (shape, _say_shape),
    "rooms": (lambda top: rooms(), _say_rooms),
    "signatures": (signatures, _say_signatures),
    "toml": (lambda top: inline_toml(), _say_toml),
    "copies": (copies, _say_copies),
    "trace": (trace, _say_trace),
}
"""Each figure: what measures it (given ``--top``) and what prints it."""
STATIC = [name for name in SECTIONS if name != "trace"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=8, help="how many of each list to show")
    parser.add_argument(
        "--section",
        action="append",
        choices=[*SECTIONS, "static"],
        help="only this figure (repeatable); 'static': all but the promote trace, which builds "
        "a project and takes some 20 s (default: all)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object, to compare runs")
    args = parser.parse_args()
    chosen = args.section or list(SECTIONS)
    names = [n for n in SECTIONS if n in chosen or (n in STATIC and "static" in chosen)]
    found = {name: SECTIONS[name][0](args.top) for name in names}
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    for name in names:
        SECTIONS[name][1](found[name])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
