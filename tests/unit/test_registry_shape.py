"""The package's shape: one registry of features (the composition root), the same rooms in
every feature package, and a new gate that costs one file plus one registry line."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import pytest
from helpers import example_gate

import mlrelease
from mlrelease import cli, layers, registry
from mlrelease.config import ConfigError
from mlrelease.entries import Commands, Gates
from mlrelease.gates import Context, Status
from mlrelease.perf.config import PerfConfig
from mlrelease.registry import Feature, load_config, load_gates, select

SRC = Path(mlrelease.__file__).parent
COMMAND_ROOMS = ("cli.py", "service.py")
"""Every feature: its sub-commands, and what they (and its gates) call."""
GATE_ROOMS = ("config.py", "gate.py")
"""A feature with tables or gates: its tables (and gate options), its gates."""
BUILT_IN = ["verify", "report", "gates", "doctor"]
"""The commands :mod:`mlrelease.cli` adds itself, before the features'."""
PENDING: dict[str, str] = {}
"""Rooms another branch adds: warned about until it lands, then removed from here."""


def rooms(feature: Feature) -> tuple[str, ...]:
    """What the architecture page promises a feature package holds."""
    return COMMAND_ROOMS + (GATE_ROOMS if feature.tables or feature.gates else ())


def test_every_feature_package_is_registered_and_has_the_same_rooms() -> None:
    declared = {u for layer in layers.LAYERS for u in layer.units}
    present = sorted(
        p.parent.name for p in SRC.glob("*/__init__.py") if p.parent.name not in declared
    )
    assert sorted(f.name for f in registry.FEATURES) == present, "a feature is not in FEATURES"
    missing = [
        f"{feature.name}/{room}"
        for feature in registry.FEATURES
        for room in rooms(feature)
        if not (SRC / feature.name / room).is_file()
    ]
    pending = [m for m in missing if m in PENDING]
    if pending:
        warnings.warn(f"rooms still to come from other branches: {pending}", stacklevel=1)
    assert [m for m in missing if m not in PENDING] == []
    assert not [p for p in PENDING if (SRC / p).is_file()], "landed: remove it from PENDING"


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_the_command_line_lists_the_registered_features_commands() -> None:
    # Building every command's parser registers each feature's cli, which raises if it adds
    # other commands than its entry names.
    declared = [name for f in registry.FEATURES for name in registry.command_names(f)]
    assert _commands(cli.build_parser()) == [*BUILT_IN, *declared]
    assert tuple(f.commands for f in registry.FEATURES if f.commands) == registry.commands()


@pytest.mark.parametrize(
    ("argv", "registered"),
    [
        (["release", "status", "--help"], ["release"]),
        (["--root", "x", "--version", "models", "verify"], ["models", "compat"]),
        (["--root=x", "compat"], ["models", "compat"]),
        (["--version"], []),
        (["verify", "--only", "train"], []),
        ([], []),
    ],
)
def test_a_command_line_registers_only_its_commands_feature(
    argv: list[str], registered: list[str]
) -> None:
    assert _commands(cli.build_parser(argv)) == [*BUILT_IN, *registered]


@pytest.mark.parametrize(
    "argv", [["--help"], ["-h", "release"], ["--ro", "x", "release"], ["relase"]]
)
def test_help_and_errors_see_every_command(argv: list[str]) -> None:
    assert _commands(cli.build_parser(argv)) == _commands(cli.build_parser())


def test_an_entry_that_names_other_gates_or_commands_than_its_module_is_refused() -> None:
    with pytest.raises(ValueError, match=r"mlrelease\.release\.gate defines the gates"):
        Gates("mlrelease.release.gate", ("git_state", "extra")).load()
    sub = argparse.ArgumentParser().add_subparsers()
    with pytest.raises(ValueError, match=r"mlrelease\.models\.cli defines the commands"):
        Commands("mlrelease.models.cli", ("models",)).register(sub)


def test_tables_and_gates_are_registered_once() -> None:
    assert len(registry.gates()) == sum(len(f.gates.names) for f in registry.FEATURES if f.gates)
    assert len(registry.tables()) == sum(len(f.tables) for f in registry.FEATURES)


def test_a_table_is_parsed_by_its_feature(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mlrelease.perf]\ngate-profile = 'gpu'\n", encoding="utf-8"
    )
    loaded = load_config(tmp_path)
    assert loaded.table(PerfConfig).gate_profile == "gpu"
    assert not hasattr(loaded, "perf")  # typed access only: config.table(PerfConfig)
    assert mlrelease.config.Config().table(PerfConfig) == PerfConfig()  # no table: defaults


def test_a_new_gate_is_one_file_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mlrelease]\ngates = ['license']\n[tool.mlrelease.license]\nfile = 'COPYING'\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"tool\.mlrelease\.license: expected a known"):
        load_config(tmp_path)  # not registered yet: its table is an unknown key

    gates = Gates("helpers.example_gate", ("license",))
    line = Feature("license", example_gate.TABLES, gates)
    monkeypatch.setattr(registry, "FEATURES", (*registry.FEATURES, line))  # the line

    loaded = load_config(tmp_path)
    assert loaded.table(example_gate.LicenseConfig).file == "COPYING"
    assert "license" in load_gates(loaded)
    [license_gate] = select(loaded)
    assert license_gate.execute(Context(loaded)).status is Status.FAIL
    (tmp_path / "COPYING").write_text("MIT\n", encoding="utf-8")
    result = license_gate.execute(Context(loaded))
    assert (result.status, result.summary) == (Status.PASS, "COPYING is there")
