"""The project feature's configuration: its keys are ``[tool.mlrelease]``'s own (``changelog``,
``version-source``, ...; :class:`mlrelease.config.Config`), so it owns no table; the ``tests``
gate's options are ``[tool.mlrelease.gate-options.tests]``."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TestsOptions:
    """``[tool.mlrelease.gate-options.tests]``: the project's test command."""

    command: list[str] = field(
        default_factory=lambda: ["python", "-m", "pytest", "-q"]  # a command spec
    )
    """The test command, run in the project root; ``python`` is the interpreter running
    mlrelease, started without the root on ``sys.path`` (install the project, or set pytest's
    ``pythonpath``, for tests that import it from the root)."""
    timeout_s: int = 3600
    reuse: bool = True
    """Reuse the last passing result of the same commit, tree, command and environment."""
    programs: list[str] = field(default_factory=list)
    """Programs the suite runs or skips without (``chromium``, ``gcc``): each one's path and
    file digest are part of a reused result's key, so installing one runs the suite again."""


TABLES: dict[str, type] = {}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns: none."""
