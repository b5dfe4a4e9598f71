"""A new feature is one package plus one entry in :data:`mlrelease.registry.FEATURES`.

The test copies the package, adds a toy feature the way the architecture page says (its package,
then the import of its tables and its one ``Feature`` entry in ``registry.py``, which names its
gate and command modules, nothing else), and runs the copy as users do, in a child process: the
command line, ``gates list``, ``verify``, ``doctor``, the configuration check, the extras, the
layers and the architecture page's module map all know the feature. Were any of them to keep a
list of its own, the toy would be missing from it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mlrelease

PACKAGE = Path(mlrelease.__file__).parent

TOY = {
    "__init__.py": '"""A toy feature: one table, one gate, one command (tests only)."""\n',
    "config.py": '''
        """The toy's table, ``[tool.mlrelease.toy]``, and its check of a loaded configuration."""

        from __future__ import annotations

        from dataclasses import dataclass

        from mlrelease.config import Config
        from mlrelease.errors import ConfigError


        @dataclass(frozen=True)
        class ToyConfig:
            """``[tool.mlrelease.toy]``."""

            level: int = 1
            """How loud the toy is."""


        TABLES: dict[str, type] = {"toy": ToyConfig}


        def check_loaded(config: Config) -> None:
            """A level over 9 is refused when the configuration loads."""
            level = config.table(ToyConfig).level
            if level > 9:
                raise ConfigError(
                    "tool.mlrelease.toy.level", "a level of at most 9", str(level),
                    source=str(config.pyproject_path), hint="Turn it down.",
                )


        CHECKS = (check_loaded,)
    ''',
    "service.py": '''
        """What the toy's command and gate both call."""

        from mlrelease.config import Config
        from mlrelease.toy.config import ToyConfig


        def level(config: Config) -> int:
            """The configured level."""
            return config.table(ToyConfig).level
    ''',
    "gate.py": '''
        """The toy's gate."""

        from mlrelease.config import Config
        from mlrelease.gates import Context, GateResult, Needs, gate
        from mlrelease.toy import service


        def toy_needs(config: Config) -> Needs:
            return Needs(notes=[f"the toy plays at level {service.level(config)}"])


        @gate(
            "toy_level", "The toy is switched on (level >= 1).", extra="docs",
            programs=("git",), preflight=toy_needs,
        )
        def check_level(ctx: Context) -> GateResult:
            if service.level(ctx.config) < 1:
                return GateResult.failed("the toy is off")
            return GateResult.passed(f"level {service.level(ctx.config)}")


        GATES = (check_level,)
    ''',
    "cli.py": '''
        """``mlrelease toy``: print the level."""

        import argparse
        from typing import Any

        from mlrelease.config import of_command
        from mlrelease.toy import service


        def cmd_toy(args: argparse.Namespace) -> int:
            print(f"toy level {service.level(of_command(args))}")
            return 0


        def register(sub: Any) -> None:
            sub.add_parser("toy", help="print the toy's level").set_defaults(func=cmd_toy)
    ''',
}

IMPORTS = "from mlrelease.toy import config as toy_config\n"
ENTRY = (
    '    Feature("toy", toy_config.TABLES, Gates("mlrelease.toy.gate", ("toy_level",)),\n'
    '            Commands("mlrelease.toy.cli", ("toy",)), extra="docs",\n'
    "            checks=toy_config.CHECKS, uses=('docs',)),\n"
)


def _add_toy(src: Path) -> None:
    """The package, then the registry's one edit: the import of its tables and its entry."""
    package = src / "mlrelease" / "toy"
    package.mkdir()
    for name, text in TOY.items():
        (package / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    registry = src / "mlrelease" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    anchor = "from mlrelease.wheels import config as wheels_config\n"
    last_entry = '    Feature(\n        "init",'
    assert anchor in text and last_entry in text, "the registry changed shape: update this test"
    text = text.replace(anchor, IMPORTS + anchor).replace(last_entry, ENTRY + last_entry)
    registry.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with the toy feature added; returns its ``src`` folder."""
    src = tmp_path_factory.mktemp("toy") / "src"
    shutil.copytree(PACKAGE, src / "mlrelease", ignore=shutil.ignore_patterns("__pycache__"))
    _add_toy(src)
    return src


def _run(src: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _project(tmp_path: Path, level: int) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "1.0"\n'
        '[tool.mlrelease]\ngates = ["toy_level"]\n'
        f"[tool.mlrelease.toy]\nlevel = {level}\n",
        encoding="utf-8",
    )
    return tmp_path


def test_the_command_line_the_gates_and_verify_know_the_new_feature(
    toy: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path, level=3)
    assert " toy " in _run(toy, project, "-m", "mlrelease", "--help").stdout
    assert _run(toy, project, "-m", "mlrelease", "toy").stdout.strip() == "toy level 3"
    listed = _run(toy, project, "-m", "mlrelease", "gates", "list", "--all").stdout
    assert "* toy_level" in listed
    verified = _run(toy, project, "-m", "mlrelease", "verify", "--report-dir", "out")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads((project / "out" / "report.json").read_text(encoding="utf-8"))
    assert [(g["name"], g["status"]) for g in report["results"]] == [("toy_level", "pass")]


def test_its_configuration_check_runs_when_any_command_loads(toy: Path, tmp_path: Path) -> None:
    project = _project(tmp_path, level=11)
    refused = _run(toy, project, "-m", "mlrelease", "gates", "list")
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "tool.mlrelease.toy.level" in said and "Traceback" not in said


def test_doctor_the_extras_the_layers_and_the_module_map_know_it(toy: Path, tmp_path: Path) -> None:
    project = _project(tmp_path, level=3)
    ran = _run(toy, project, "-m", "mlrelease", "doctor")
    rows = [line.split("│") for line in (ran.stdout + ran.stderr).splitlines()]
    cells = {tuple(c.strip() for c in row[1:3]) for row in rows if len(row) > 3}
    assert ("gate toy_level", "docs") in cells  # the gate's own extra
    said = ran.stdout + ran.stderr
    assert "the toy plays at level 3" in said  # its own preflight, which doctor runs
    assert any(needed.endswith(", toy") and extra == "docs" for needed, extra in cells)
    probe = textwrap.dedent(
        """
        from pathlib import Path
        from mlrelease import registry
        from mlrelease.docs import modules
        import mlrelease
        print(registry.command_extra(["toy"]), registry.gate_extras(["toy_level"]))
        [features] = [l for l in registry.stack() if l.name == "features"]
        print("toy" in features.units, registry.arrows()["toy"])
        root = Path(mlrelease.__file__).parent
        print("`mlrelease.toy.gate` | The toy's gate." in modules.render(root, "src/mlrelease"))
        """
    )
    lines = _run(toy, project, "-c", probe).stdout.splitlines()
    assert lines == ["docs ['docs']", "True ('docs',)", "True"]
