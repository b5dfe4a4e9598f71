"""The nox sessions and invoke tasks are thin, and a task's help is its command's.

- Each session's and task's body (below its signature and docstring) is at most
  :data:`MAX_BODY` lines: it calls the ``mlrelease`` CLI, a nox session or one function, and
  what it does beyond that lives in the package (read from the source: the unit lane also runs
  where nox is not installed).
- A task that wraps an ``mlrelease`` command takes each option's help from that command's parser
  (``tasks._wraps``), so ``tasks.py`` repeats none of the CLI's help texts.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from invoke.tasks import Task

from mlrelease.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
MAX_BODY = 10


def bodies(path: Path) -> dict[str, int]:
    """The length in lines of the body of each decorated top-level function of ``path`` (its
    docstring left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            body = node.body
            if ast.get_docstring(node) is not None:
                body = body[1:]
            found[node.name] = body[-1].end_lineno - body[0].lineno + 1 if body else 0
    return found


def help_texts(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every help text of an option of ``parser`` and of its sub-commands' parsers."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from help_texts(sub)
        elif action.help and action.help != argparse.SUPPRESS:
            yield action.help


def load_tasks() -> ModuleType:
    """``tasks.py`` as invoke loads it."""
    spec = importlib.util.spec_from_file_location("mlrelease_tasks_under_test", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_sessions_and_tasks_are_thin() -> None:
    long = {
        f"{path.name}:{name}": lines
        for path in (ROOT / "noxfile.py", ROOT / "tasks.py")
        for name, lines in bodies(path).items()
        if lines > MAX_BODY
    }
    assert long == {}, f"more than {MAX_BODY} lines: move the work into the package"


def test_the_length_is_measured_below_the_docstring(tmp_path: Path) -> None:
    source = '@task\ndef t(c):\n    """Doc\n    string."""\n    a = 1\n\n    run(a)\n'
    (tmp_path / "tasks.py").write_text(source, encoding="utf-8")
    assert bodies(tmp_path / "tasks.py") == {"t": 3}


def test_tasks_repeat_no_help_of_the_command_line() -> None:
    texts = set(help_texts(build_parser()))
    tree = ast.parse((ROOT / "tasks.py").read_text(encoding="utf-8"))
    copied = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in texts
    ]
    assert copied == [], "take an option's help from the parser (tasks._wraps), not a copy"


def test_a_wrapping_task_shows_the_help_of_its_command() -> None:
    tasks = load_tasks()
    promote = tasks.promote
    assert isinstance(promote, Task)
    parser = tasks._parser("release", "promote")
    flags = {a.dest: a.help for a in parser._actions if a.option_strings}
    assert promote.help["repository_url"] == flags["repository_url"]
    assert promote.help["execute"] == flags["execute"]
    assert tasks.bump.help["part"].endswith("(one of: major, minor, patch, pre, stage)")


def test_a_task_option_the_command_lacks_is_refused() -> None:
    tasks = load_tasks()
    try:
        tasks.option_help(("release", "cut"), ["version", "from_branch"])
    except LookupError as exc:
        assert "from_branch" in str(exc)
    else:
        raise AssertionError("an option `release cut` does not have was given a help")
