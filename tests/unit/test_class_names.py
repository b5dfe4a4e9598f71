"""One name per idea: no public class name is defined at top level in two modules of the package.

Two classes of one name in two modules are two ideas a reader has to tell apart by the import
line (four ``Verdict`` classes once meant a case on a backend, a pair of test outcomes, a perf
row against its baseline and the RC's report). A class that needs a name already taken is named
by its feature and idea instead (``ConformanceVerdict``, ``PairVerdict``, ``RowVerdict``,
``RcVerdict``), or shares the one type where the idea is the same.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import mlrelease

SRC = Path(mlrelease.__file__).parent

ALLOWED: dict[str, frozenset[str]] = {}
"""Class name -> the modules allowed to define it, each with a comment saying why. Empty: no
public class name is shared on purpose."""


def _classes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef)]


def shared_class_names(src: Path) -> dict[str, list[str]]:
    """Public class name -> the modules (relative paths) that define it, where more than one."""
    owners: dict[str, list[str]] = defaultdict(list)
    for path in sorted(src.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for name in _classes(path):
            if not name.startswith("_"):
                owners[name].append(path.relative_to(src).as_posix())
    return {name: found for name, found in owners.items() if len(found) > 1}


def test_no_public_class_name_is_defined_in_two_modules() -> None:
    shared = {
        name: found
        for name, found in shared_class_names(SRC).items()
        if set(found) - ALLOWED.get(name, frozenset())
    }
    assert not shared, (
        "one name per idea: these public class names are defined in more than one module of "
        "src/mlrelease; name each by its feature and idea, or share one type where the idea is "
        "the same:\n"
        + "\n".join(f"  {n}: {', '.join(found)}" for n, found in sorted(shared.items()))
    )


def test_the_check_sees_a_class_defined_twice(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Verdict:\n    pass\n\n\nclass _Private:\n    pass\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "c.py").write_text(
        "class Verdict:\n    pass\n\n\nclass _Private:\n    pass\n"
    )
    (tmp_path / "d.py").write_text("def f():\n    class Verdict:\n        pass\n")
    assert shared_class_names(tmp_path) == {"Verdict": ["a.py", "b/c.py"]}


def test_every_allowed_name_is_still_shared() -> None:
    """An allow-list entry whose modules no longer share the name is stale: remove it."""
    shared = shared_class_names(SRC)
    stale = [n for n, mods in ALLOWED.items() if not mods <= set(shared.get(n, ()))]
    assert not stale, f"stale entries of ALLOWED in {__file__}: {stale}"
