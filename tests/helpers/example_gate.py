"""A worked example, for tests only: a new gate with its own table, in one file.

Registering it is one line in :data:`mlrelease.registry.FEATURES`, a
:class:`~mlrelease.entries.Feature` of its tables and gates (this module and its gates' names:
``Gates("helpers.example_gate", ("license",))``; the test does that line with ``monkeypatch``):
see ``test_a_new_gate_is_one_file_and_one_line`` in tests/unit/test_registry_shape.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlrelease.gates import Context, GateResult, gate


@dataclass(frozen=True)
class LicenseConfig:
    """``[tool.mlrelease.license]``: the file every release must ship."""

    file: str = "LICENSE"
    """The license file, relative to the project root."""


TABLES: dict[str, type] = {"license": LicenseConfig}


@gate("license", "The project ships a non-empty license file.")
def check_license(ctx: Context) -> GateResult:
    name = ctx.config.table(LicenseConfig).file
    path = ctx.config.path(name)
    if not path.is_file() or not path.read_text(encoding="utf-8").strip():
        return GateResult.failed(f"no license text in {name}")
    return GateResult.passed(f"{name} is there")


GATES = (check_license,)
