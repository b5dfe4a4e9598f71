"""``[tool.mlrelease.models]`` and ``[tool.mlrelease.compat]``, registered in :data:`TABLES`.

Plain frozen dataclasses (no onnx import), parsed by :func:`mlrelease.config.load` with every
other table of ``[tool.mlrelease]`` and read with ``config.table(ModelsConfig)``.
(``[tool.mlrelease.opset-rules]`` is the opsets feature's: :mod:`mlrelease.opsets.config`.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

ONNX_DOMAIN_ALIASES = ("", "ai.onnx")
"""The default ONNX domain is the empty string; configuration may spell it ``ai.onnx``."""


def canonical_domain(domain: str) -> str:
    """``"ai.onnx"`` -> ``""`` (how models and onnx.defs spell the default domain)."""
    return "" if domain in ONNX_DOMAIN_ALIASES else domain


def display_domain(domain: str) -> str:
    """``""`` -> ``"ai.onnx"`` (how people spell it)."""
    return domain or "ai.onnx"


@dataclass(frozen=True)
class RuntimeSpec:
    """One runtime the project supports, e.g. ``{ name = "onnxruntime", providers = [...] }``."""

    name: str = "onnxruntime"
    """A runtime adapter: ``onnxruntime`` is built in, others come from ``runtime-plugins``."""
    providers: list[str] = field(default_factory=lambda: ["CPUExecutionProvider"])
    """Execution providers (onnxruntime), each probed and run separately."""
    required: bool = True
    """A required runtime that is missing or lacks a provider fails the gate; otherwise skipped."""


@dataclass(frozen=True)
class CompatConfig:
    """``[tool.mlrelease.compat]``: what the project produces and which runtimes must load it."""

    runtimes: list[RuntimeSpec] = field(default_factory=lambda: [RuntimeSpec()])
    """Runtimes whose real limits are probed and compared with what the project produces."""
    ir_version: int | None = None
    """The IR version the project's exporters stamp; unset: the pinned onnx's default."""
    opsets: dict[str, int] = field(default_factory=dict)
    """Opset per domain the exporters target (``ai.onnx`` or ``""`` for the default domain);
    unset: the pinned onnx's default opset."""
    runtime_plugins: list[str] = field(default_factory=list)
    """Modules imported before probing; each may call
    ``mlrelease.models.runtimes.register_runtime``."""
    cache_dir: str = ""
    """Where probe results are cached (by runtime version); empty: ``$MLRELEASE_CACHE_DIR`` or
    the user cache folder."""


@dataclass(frozen=True)
class ModelsConfig:
    """``[tool.mlrelease.models]``: the model set the ``models`` gate verifies, and the sandbox."""

    manifest: str = "models/manifest.toml"
    """The model manifest, relative to the project root."""
    memory_limit_mb: int = 3072
    """Address-space limit of each model's verifier subprocess (POSIX only). The default lets
    four verifications share GitHub's standard Linux runner (4 cores, 16 GB) at once."""
    time_limit_s: int = 600
    """Wall-clock limit of each model's verifier subprocess."""
    total_time_limit_s: int = 1800
    """Wall-clock budget of one verification run (a submission, a manifest): models still waiting
    when it is spent fail without being started, and none runs past it (0: no budget)."""
    inspect_time_limit_s: int = 60
    """Wall-clock limit of the subprocess that reads a submission's README, scripts and
    model.toml."""
    max_tensor_elements: int = 2**32
    """Larger declared tensors are refused as absurd before anything allocates them."""
    max_nodes: int = 500_000
    """Node budget: a model with more nodes (in every graph, subgraph and function, counted on
    its bytes) is declined before anything loads it. Verifying costs about 2.7 KB of memory per
    node (onnxruntime's session alone 2.4 KB), so the default fits ``memory-limit-mb``. 0: none."""
    max_model_bytes: int = 2**30
    """Size budget: a model file larger than this, or one whose external data makes it so when a
    step loads the weights (inference, version conversion, performance), is declined before
    loading. 0: none (a protobuf still cannot exceed 2 GiB)."""
    max_input_elements: int = 2**28
    """Generated test inputs larger than this are refused (the graph declares an absurd shape)."""
    threads: int = 0
    """onnxruntime intra-op threads in the verifier (0: onnxruntime's default)."""
    jobs: int = 0
    """Models verified at once, each in its own sandboxed worker (0: one per CPU core, at most
    four; a submission's models always run one at a time)."""
    allow_missing_expected_outputs: bool = False
    """Model Zoo mode: accept a test data set with inputs but no expected outputs, recording
    the weaker check (onnxruntime vs the onnx reference evaluator) in the verdict."""


TABLES: dict[str, type] = {"models": ModelsConfig, "compat": CompatConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
