"""One way for a command to read its configuration: :func:`mlrelease.config.of_command`.

Five CLIs once had a ``_config()`` each, with four behaviours (one found the root itself, one
read HEAD's file after an interrupted edit, one fell back to the defaults outside a project).
Now every ``cli.py`` goes through ``of_command``; the loader the composition root hands down
(``args.load_config``) is called by ``of_command`` alone, or handed on untouched (``init``).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import mlrelease
from mlrelease.config import Config, of_command
from mlrelease.errors import ConfigError

SRC = Path(mlrelease.__file__).parent


def _calls_the_loader(path: Path) -> list[int]:
    """Lines of ``path`` that call ``args.load_config(...)`` themselves."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "load_config"
    ]


def _loaders_defined(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_config"]


@pytest.mark.parametrize("path", sorted(SRC.glob("*/cli.py")), ids=lambda p: p.parent.name)
def test_no_cli_loads_the_configuration_its_own_way(path: Path) -> None:
    assert _calls_the_loader(path) == [], f"{path}: call mlrelease.config.of_command(args)"


def _args(root: Path | None, seen: list[Path | None]) -> argparse.Namespace:
    def load(root: Path | None = None, **_: object) -> Config:
        seen.append(root)
        return Config(root=root or Path())

    return argparse.Namespace(root=root, load_config=load)


def test_of_command_reads_root_else_the_project_around_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    seen: list[Path | None] = []
    of_command(_args(None, seen))
    of_command(_args(tmp_path / "sub", seen), root=tmp_path)
    assert seen == [tmp_path.resolve(), tmp_path.resolve()]


def test_outside_a_project_only_a_command_that_allows_it_gets_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    seen: list[Path | None] = []
    assert of_command(_args(None, seen), outside_project=True) == Config(root=tmp_path.resolve())
    with pytest.raises(ConfigError, match=r"pyproject\.toml"):
        of_command(_args(None, seen))
    assert seen == []
