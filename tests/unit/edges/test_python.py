"""The Python launcher (:mod:`mlrelease.edges.python`): its command lines, and a scan of the
package that fails when a Python command line is built anywhere else.

``[sys.executable, "-m", TOOL]`` runs TOOL with the current directory first on ``sys.path``; a
folder named like a module TOOL imports (a submission's ``mlrelease/``, an adopter's ``build/``)
is then imported instead, and run. Every Python subprocess starts from the launcher's command
line; the scan below reads the package's syntax trees and names every other place.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import mlrelease
from mlrelease.edges import proc
from mlrelease.edges.python import BOOTSTRAP, display, python, python_module

SRC = Path(mlrelease.__file__).parent
LAUNCHER = "edges/python.py"
SPEC_PRAGMA = "# a command spec"
"""A list of plain strings (``["python", "-m", "pytest"]``) that is configuration, not a command
line: the line says so with this comment, and the code that runs it goes through the launcher."""

PYTHON_NAMES = ("python", "python3", "python.exe", "executable", "interpreter")


def _looks_like_python(node: ast.expr) -> bool:
    """``sys.executable``, ``python``, ``self.build.python``, ``str(python)``, ``"python3"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Path(node.value).name.lower().startswith("python")
    if isinstance(node, ast.Call) and node.args:  # str(python), os.fspath(python)
        return _looks_like_python(node.args[0])
    if isinstance(node, ast.BoolOp):  # python or sys.executable
        return any(_looks_like_python(v) for v in node.values)
    if isinstance(node, ast.IfExp):  # str(python) if command[0] == "python" else command[0]
        return _looks_like_python(node.body) or _looks_like_python(node.orelse)
    text = ast.unparse(node).lower()
    return text.endswith(PYTHON_NAMES)


def _argument(node: ast.expr) -> bool:
    """What follows the interpreter in a command line: an option (``-m``, ``-c``, ``-X``),
    a script (``x.py``), or arguments spliced in (``*command[1:]``)."""
    if isinstance(node, ast.Starred):
        return True
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value.startswith("-") or node.value.endswith(".py"))
    )


def python_command_lines(tree: ast.Module, source: list[str]) -> Iterator[tuple[int, str]]:
    """Every list or tuple display that starts a Python interpreter, ``[<python>, ARG, ...]``:
    ARG an option, a script or spliced arguments; ``<python>`` is ``sys.executable`` or names a
    Python (``python``, ``self.build.python``, ``str(python)``, ``"python3"``)."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
            continue
        first = node.elts[0]
        if SPEC_PRAGMA in source[node.lineno - 1]:
            continue
        if len(node.elts) > 1 and _looks_like_python(first) and _argument(node.elts[1]):
            yield node.lineno, ast.unparse(node)[:80]


def _scan() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name == LAUNCHER:
            continue
        text = path.read_text(encoding="utf-8")
        for line, shown in python_command_lines(ast.parse(text), text.splitlines()):
            found.append(f"{name}:{line}: {shown}")
    return found


def test_every_python_subprocess_starts_from_the_launcher() -> None:
    assert _scan() == [], (
        "a Python command line is built outside mlrelease.edges.python: use "
        "proc.python_module(MODULE, *args) (or proc.python(...)), which keeps the current "
        "directory off sys.path"
    )


@pytest.mark.parametrize(
    "code",
    [
        'cmd = [sys.executable, "-m", "build"]',
        'cmd = [sys.executable, "-c", "print(1)"]',
        'cmd = [python, "-m", "pip", "install"]',
        'cmd = [self.build.python, "-m", "mlrelease.perf.worker"]',
        'cmd = [str(python), "-m", "pip"]',
        'cmd = (python or sys.executable, "-m", "sphinx")',
        'cmd = ["python3", "-m", "pytest"]',
        "cmd = [sys.executable, *rest]",
        'argv = [str(python) if command[0] == "python" else command[0], *command[1:]]',
    ],
)
def test_the_scan_catches_a_python_command_line_built_by_hand(code: str) -> None:
    tree = ast.parse(code)
    assert [line for line, _ in python_command_lines(tree, code.splitlines())] == [1]


@pytest.mark.parametrize(
    "code",
    [
        'cmd = ["git", "commit", "-m", "message"]',
        'cmd = [uv, "venv", "--python", sys.executable, str(env)]',
        'cmd = proc.python_module("build", "--outdir", out)',
        'spec = ["python", "-m", "pytest", "-q"]  # a command spec, run through proc.python',
    ],
)
def test_the_scan_leaves_other_command_lines_alone(code: str) -> None:
    tree = ast.parse(code)
    assert list(python_command_lines(tree, code.splitlines())) == []


def test_a_module_command_line_runs_the_bootstrap_first() -> None:
    argv = python_module("twine", "upload", "dist/x.whl", interpreter="/venv/bin/python")
    assert argv == ["/venv/bin/python", "-c", BOOTSTRAP, "-m", "twine", "upload", "dist/x.whl"]
    assert display(argv) == "/venv/bin/python -P -m twine upload dist/x.whl"
    assert proc.python_module is python_module and proc.display is display


def test_interpreter_options_stay_before_the_bootstrap() -> None:
    argv = python("-X", "dev", "-W", "error", "-m", "pytest", "-q", interpreter="py")
    assert argv[:6] == ["py", "-X", "dev", "-W", "error", "-c"]
    assert argv[7:] == ["-m", "pytest", "-q"]
    assert display(argv) == "py -X dev -W error -P -m pytest -q"


def test_scripts_code_and_bare_options() -> None:
    assert python("run.py", "a", interpreter="py")[3:] == ["-", "run.py", "a"]
    assert display(python("run.py", "a", interpreter="py")) == "py -P run.py a"
    assert python("-c", "print(1)", interpreter="py")[3:] == ["-c", "print(1)"]
    assert python("-V", interpreter="py") == ["py", "-V"]
    for bad in (("-",), ("-m",), ("-O", "-c")):
        with pytest.raises(ValueError, match="must name a module"):
            python(*bad)
