"""``[tool.mlrelease.ops]``: which cases run on which backends, and where the index goes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mlrelease.errors import ConfigError

TABLE = "tool.mlrelease.ops"

SOURCE_SPEC = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""``package.module:callable`` (an attribute path after the colon)."""

BackendKind = Literal["onnxruntime", "reference", "backend"]


@dataclass(frozen=True)
class BackendConfig:
    """One ``[[tool.mlrelease.ops.backends]]`` entry: a runtime the cases run on."""

    name: str
    """Column name in the index, e.g. ``onnxruntime-cpu``."""
    kind: BackendKind
    """``onnxruntime`` (an execution provider), ``reference`` (onnx.reference.ReferenceEvaluator)
    or ``backend`` (any ``onnx.backend.base.Backend`` named by ``module``)."""
    provider: str = "CPUExecutionProvider"
    """onnxruntime only: the execution provider, e.g. ``CUDAExecutionProvider``."""
    provider_options: dict[str, Any] = field(default_factory=dict)
    """onnxruntime only: options passed to the execution provider."""
    module: str = ""
    """backend only: ``package.module`` (a module with ``prepare``) or ``package.module:Class``."""
    device: str = "CPU"
    """backend only: the device passed to ``prepare``."""
    python_path: list[str] = field(default_factory=list)
    """Folders, relative to the project root, put on ``sys.path`` of the workers (backend code
    that is not installed, e.g. ``examples/custom-ops``)."""

    def describe(self) -> str:
        if self.kind == "onnxruntime":
            return f"onnxruntime {self.provider}"
        if self.kind == "reference":
            return "onnx.reference.ReferenceEvaluator"
        return f"{self.module} ({self.device})"


@dataclass(frozen=True)
class DroppedOperator:
    """One ``[[tool.mlrelease.ops.dropped]]``: a recorded decision to stop listing an operator
    that the previous release's index of a declared ``source`` had (a converter removed)."""

    operator: str
    """The operator as the index names it (``aten.relu.default``)."""
    reason: str
    decision: str
    """Where it was decided: a link to the issue, the pull request or the release notes."""


def _default_backends() -> list[BackendConfig]:
    return [
        BackendConfig(name="onnxruntime-cpu", kind="onnxruntime"),
        BackendConfig(name="reference", kind="reference"),
    ]


@dataclass(frozen=True)
class OpsConfig:
    """``[tool.mlrelease.ops]``: the supported-operators index (``mlrelease ops index``)."""

    index: str = "docs/indices/supported_ops.json"
    """The committed index (JSON), relative to the project root."""
    source: str = ""
    """An index source of the project's own instead of the conformance run:
    ``package.module:callable``, a callable yielding ``(operator, status, notes)`` rows (a
    converter registry, say). It runs in a subprocess, never in mlrelease's process; the index,
    page, diff and gate are the same. Empty: the ONNX conformance run (cases x backends)."""
    dropped: list[DroppedOperator] = field(default_factory=list)
    """Operators of the previous release's index (of a declared ``source``) that are gone on
    purpose, each with its reason and decision; any other operator gone fails the gate."""
    source_path: list[str] = field(default_factory=list)
    """Folders, relative to the project root, put on ``sys.path`` of the source's process
    (besides the root itself), e.g. ``py`` for a package under ``py/``."""
    page: str = "docs/indices/supported_ops.md"
    """The docs page rendered from the index."""
    benchmark: str = "docs/indices/conformance_benchmark.json"
    """Results of ``scripts/bench_conformance.py`` shown on the page (optional file)."""
    known_failures: str = "ci/known_failures.toml"
    """Known failures: pattern, backend, reason, and an expiry date or a tracking link."""
    tolerances: str = "ci/tolerances.toml"
    """Tolerance overrides per case-name pattern."""
    onnx_node_cases: bool = True
    """Run the node test cases of the installed onnx."""
    case_sets: list[str] = field(default_factory=list)
    """Extra case folders, in onnx's layout: ``NAME/model.onnx``, ``NAME/test_data_set_0/*.pb``."""
    select: list[str] = field(default_factory=list)
    """Case-name patterns (fnmatch) to run; empty: every case."""
    domains: list[str] = field(default_factory=list)
    """Index only these operator domains (e.g. an adopter's own); empty: every domain. For a
    domain onnx has no schemas for, an operator's versions are the opsets its cases import."""
    backends: list[BackendConfig] = field(default_factory=_default_backends)
    """The backends, in column order."""
    jobs: int = 0
    """Worker processes; 0: one per CPU."""
    timeout_s: float = 60.0
    """Seconds one case may take on one backend before it is marked ``timeout``."""
    previous_index: str = "auto"
    """The previous release's index for the diff: ``auto`` (the index at the newest release tag
    older than the current version), a file, a git ref, or ``""`` for none."""
    regenerate: str = "mlrelease ops index"
    """The command that regenerates the index, as the page and the gate's messages name it
    (e.g. ``nox -s ops_index`` in a project that wraps it in a session)."""
    cache_dir: str = ""
    """Where generated cases are cached; empty: ``$MLRELEASE_CACHE_DIR`` or the user cache."""

    @property
    def regenerate_command(self) -> str:
        """The regenerating command as messages name it: ``mlrelease ops index`` is a dry run
        unless ``--execute`` (a session wrapping it is named as configured)."""
        if self.regenerate.startswith("mlrelease ") and "--execute" not in self.regenerate:
            return f"{self.regenerate} --execute"
        return self.regenerate

    def validate(self, source: str) -> OpsConfig:
        """Check what the types alone cannot; raise :class:`ConfigError` naming the key."""
        if self.source and not SOURCE_SPEC.match(self.source):
            raise ConfigError(
                f"{TABLE}.source",
                "package.module:callable (a callable yielding (operator, status, notes) rows)",
                repr(self.source),
                source=source,
                hint="E.g. source = 'converters.registry:index_rows'.",
            )
        for i, drop in enumerate(self.dropped):
            for key in ("operator", "reason", "decision"):
                if not str(getattr(drop, key)).strip():
                    raise ConfigError(
                        f"{TABLE}.dropped[{i}].{key}",
                        "the operator, why it is dropped, and where that was decided (a link)",
                        "nothing",
                        source=source,
                    )
        seen: set[str] = set()
        for i, backend in enumerate(self.backends):
            key = f"{TABLE}.backends[{i}]"
            if not backend.name or backend.name in seen:
                raise ConfigError(
                    f"{key}.name",
                    "a unique, non-empty backend name",
                    repr(backend.name),
                    source=source,
                    hint="Each backend is a column of the index; give it its own name.",
                )
            seen.add(backend.name)
            if backend.kind == "backend" and not backend.module:
                raise ConfigError(
                    f"{key}.module",
                    "an import path (package.module or package.module:Class)",
                    "nothing",
                    source=source,
                    hint="A backend of kind 'backend' names its onnx.backend.base.Backend.",
                )
        if self.jobs < 0:
            raise ConfigError(
                f"{TABLE}.jobs",
                "0 (one per CPU) or a positive integer",
                str(self.jobs),
                source=source,
            )
        if self.timeout_s <= 0:
            raise ConfigError(
                f"{TABLE}.timeout-s",
                "a positive number of seconds",
                str(self.timeout_s),
                source=source,
            )
        if not self.onnx_node_cases and not self.case_sets:
            raise ConfigError(
                f"{TABLE}.case-sets",
                "at least one case folder when onnx-node-cases is false",
                "no cases at all",
                source=source,
            )
        return self


TABLES: dict[str, type] = {"ops": OpsConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
