"""Outside systems are touched from their edge only: the package's source, read as syntax trees.

Processes are started from at most three modules (``edges/proc.py``, ``edges/git.py`` and one
more); onnxruntime sessions are created in at most two, and onnxruntime is imported by its edge
alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mlrelease

SRC = Path(mlrelease.__file__).parent

SPAWNING_MODULES = frozenset({"subprocess", "multiprocessing", "pty", "concurrent.futures.process"})
"""Importing one of these is how Python code starts another process."""

SPAWNING_CALLS = frozenset(
    {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile"}
)
"""``os.<name>(...)`` calls that start a process (besides the ``exec*`` and ``spawn*`` families)."""

PROCESS_EDGES = ("edges/proc.py", "edges/git.py")
MAX_SPAWNING = 3


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=name)


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _os_call(name: str) -> bool:
    return name in SPAWNING_CALLS or name.startswith(("exec", "spawn"))


def spawns(tree: ast.Module) -> list[str]:
    """How the module starts processes (empty: it does not)."""
    found = sorted(
        f"import {name}"
        for name in _imported(tree)
        if name in SPAWNING_MODULES or name.split(".")[0] in SPAWNING_MODULES
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "os" and _os_call(node.func.attr):
                found.append(f"os.{node.func.attr}() on line {node.lineno}")
            if (
                isinstance(owner, ast.Name)
                and owner.id == "asyncio"
                and node.func.attr.startswith("create_subprocess")
            ):
                found.append(f"asyncio.{node.func.attr}() on line {node.lineno}")
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"from os import {a.name}" for a in node.names if _os_call(a.name)]
    return found


def creates_sessions(tree: ast.Module) -> list[int]:
    """Lines where the module constructs an onnxruntime ``InferenceSession``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "InferenceSession":
                lines.append(node.lineno)
    return lines


def spawning_modules() -> dict[str, list[str]]:
    return {name: how for name, tree in _modules() if (how := spawns(tree))}


def test_the_scanner_sees_every_way_to_start_a_process() -> None:
    seen = [
        "import subprocess",
        "import multiprocessing.pool",
        "from concurrent.futures.process import ProcessPoolExecutor",
        "from subprocess import run",
        "import os\nos.system('x')",
        "import os\nos.execvp('x', ['x'])",
        "import os\nos.posix_spawn('x', ['x'], {})",
        "from os import spawnlp",
        "import asyncio\nasyncio.create_subprocess_exec('x')",
    ]
    for source in seen:
        assert spawns(ast.parse(source)), source
    quiet = ["import os\nos.environ.get('X')", "from mlrelease.edges import proc\nproc.call(['x'])"]
    for source in quiet:
        assert not spawns(ast.parse(source)), source


def test_processes_are_started_from_at_most_three_modules() -> None:
    counted = spawning_modules()
    assert "edges/proc.py" in counted, "edges/proc.py is the module that starts processes"
    others = {name: how for name, how in counted.items() if name not in PROCESS_EDGES}
    assert len(counted) <= MAX_SPAWNING, (
        f"{len(counted)} modules start processes, at most {MAX_SPAWNING} may: "
        + "; ".join(f"{name} ({', '.join(how)})" for name, how in sorted(others.items()))
        + ". Start outside tools with mlrelease.edges.proc.call, workers with proc.start/run."
    )


def test_onnxruntime_sessions_are_created_in_at_most_two_modules() -> None:
    creators = {name: lines for name, tree in _modules() if (lines := creates_sessions(tree))}
    assert "edges/onnxruntime.py" in creators
    assert len(creators) <= 2, f"InferenceSession constructed in {creators}; use edges.onnxruntime"


def test_onnxruntime_is_imported_by_its_edge_alone() -> None:
    importers = sorted(
        name
        for name, tree in _modules()
        if any(n == "onnxruntime" or n.startswith("onnxruntime.") for n in _imported(tree))
    )
    assert importers == ["edges/onnxruntime.py"], importers


GIT_EDGE = "edges/git.py"


def starts_git(tree: ast.Module) -> list[int]:
    """Lines where the module builds a git command line: a list or tuple whose first item is
    the string ``"git"`` (what every way of starting git is handed), outside the git edge."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value == "git":
                lines.append(node.lineno)
    return lines


def test_the_git_scanner_sees_a_git_command_line() -> None:
    seen = [
        "proc.call(['git', 'status'])",
        "subprocess.run(('git', 'push'), check=True)",
        "args = ['git', *rest]",
    ]
    for source in seen:
        assert starts_git(ast.parse(source)), source
    quiet = ["git.run(root, 'status')", "shutil.which('git')", "x = ['gitlab', 'git']"]
    for source in quiet:
        assert not starts_git(ast.parse(source)), source


def test_git_is_started_by_its_edge_alone() -> None:
    """Every git command runs through ``edges/git.py``, hermetic (its fixed settings, its
    scrubbed environment): a command line built anywhere else would escape both."""
    found = {name: lines for name, tree in _modules() if (lines := starts_git(tree))}
    assert GIT_EDGE in found, "edges/git.py is where git command lines are built"
    others = {name: lines for name, lines in found.items() if name != GIT_EDGE}
    assert not others, (
        "git command lines built outside edges/git.py (run them with mlrelease.edges.git.run, "
        f"call_git or run_bytes): {others}"
    )
