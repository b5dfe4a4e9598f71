"""``[tool.mlrelease.opset-rules]``: where the snapshot is and which schemas to collect."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OpsetRulesConfig:
    """``[tool.mlrelease.opset-rules]``: operator-versioning rules against a schema snapshot."""

    snapshot: str = "ci/opset_snapshot.json"
    """The previous release's schema snapshot (written by ``mlrelease opset snapshot``)."""
    domains: list[str] = field(default_factory=list)
    """Domains to check (``ai.onnx`` or ``""`` for the default one); empty: every domain."""
    schema_modules: list[str] = field(default_factory=list)
    """Modules whose import registers custom operator schemas with ``onnx.defs``."""
    python_path: list[str] = field(default_factory=list)
    """Folders (relative to the project root) put on ``sys.path`` to import ``schema-modules``."""


TABLES: dict[str, type] = {"opset-rules": OpsetRulesConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
