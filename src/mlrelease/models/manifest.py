"""The model manifest (``models/manifest.toml``) and the jobs it describes. Pure but for paths.

A manifest lists models with what verifying them needs::

    [defaults]
    target-opset = 21          # version-converter round trip target (ai.onnx)
    rtol = 1e-3
    atol = 1e-7

    [[models]]
    name = "resnet50"
    path = "pkg:onnx/backend/test/data/light/light_resnet50.onnx"
    inputs = "onnx-backend-dummy"
    expected-outputs = ["pkg:onnx/backend/test/data/light/light_resnet50_output_0.pb"]
    checksums = { "light_resnet50.onnx" = "<sha256>" }

Paths are relative to the manifest's folder; ``pkg:NAME/...`` points inside an installed
package (not allowed in a Model Zoo submission, whose every path must stay in its folder).
Test data is either Model Zoo style folders (``test_data_set_N/input_I.pb``, ``output_I.pb``,
found next to the model when nothing else is declared) or a named input generator with
expected-output files.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.config import read_toml
from mlrelease.errors import ConfigError
from mlrelease.models.verdicts import DEFAULT_STEPS, STEPS
from mlrelease.toml_tables import parse_section

INPUT_GENERATORS = {
    "onnx-backend-dummy": "the deterministic input onnx's backend test runner feeds the models "
    "under onnx/backend/test/data/light to produce their stored outputs "
    "(onnx.backend.test.runner.Runner.generate_dummy_data, random=False)",
}
REFERENCES = {
    "onnx-reference": "onnx.reference.ReferenceEvaluator, where it supports the model's operators",
    "none": "no reference run",
}


@dataclass(frozen=True)
class PerformanceSpec:
    """A declared performance baseline: the first runtime's median latency must not exceed it."""

    latency_ms: float
    """Maximum median latency of one inference, in milliseconds."""
    runs: int = 20
    warmup: int = 3


@dataclass(frozen=True)
class ManifestDefaults:
    """``[defaults]``: values every model inherits unless it sets its own."""

    rtol: float = 1e-3
    atol: float = 1e-7
    target_opset: int | None = None
    inputs: str = ""
    reference: str = "onnx-reference"
    steps: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ModelEntry:
    """One ``[[models]]`` entry."""

    path: str
    name: str = ""
    description: str = ""
    inputs: str | None = None
    expected_outputs: list[str] = field(default_factory=list)
    test_data: list[str] = field(default_factory=list)
    reference: str | None = None
    rtol: float | None = None
    atol: float | None = None
    target_opset: int | None = None
    checksums: dict[str, str] = field(default_factory=dict)
    """sha256 (hex) of files, keyed by path relative to the model's folder."""
    steps: list[str] = field(default_factory=list)
    preprocess: str = ""
    postprocess: str = ""
    performance: PerformanceSpec | None = None


@dataclass(frozen=True)
class ModelManifest:
    """A whole manifest file."""

    defaults: ManifestDefaults = field(default_factory=ManifestDefaults)
    models: list[ModelEntry] = field(default_factory=list)


@dataclass
class ModelJob:
    """Everything the sandboxed worker needs to verify one model: plain JSON-able data."""

    name: str
    model: str
    """Absolute path of the model file (symlinks not resolved: integrity checks them)."""
    confine: str
    """The folder the model file must (really) stay inside; external data must stay in the
    model's own folder."""
    data_confine: str | None = None
    """Where test data and expected outputs must stay (a submission); None: the project's own."""
    inputs: str = ""
    expected_outputs: list[str] = field(default_factory=list)
    test_data: list[str] = field(default_factory=list)
    reference: str = "onnx-reference"
    rtol: float = 1e-3
    atol: float = 1e-7
    target_opset: int | None = None
    checksums: dict[str, str] = field(default_factory=dict)
    steps: list[str] = field(default_factory=lambda: list(DEFAULT_STEPS))
    performance: dict[str, Any] | None = None
    limits: list[dict[str, Any]] = field(default_factory=list)
    """Probed runtime limits (:class:`mlrelease.models.runtimes.RuntimeLimits` as dicts), for
    step 4."""
    runtimes: list[dict[str, Any]] = field(default_factory=list)
    """Runtime specs (:class:`~mlrelease.models.config.RuntimeSpec` as dicts) for steps 5-6."""
    runtime_plugins: list[str] = field(default_factory=list)
    trusted: bool = False
    """The project's own model set (its manifest): an installer may hard-link its files. A
    submission or a model given on the command line is never trusted."""
    max_tensor_elements: int = 2**32
    max_input_elements: int = 2**28
    max_nodes: int = 500_000
    max_model_bytes: int = 2**30
    threads: int = 0
    memory_limit_mb: int = 3072
    time_limit_s: int = 600
    root_fd: int | None = None
    """Set by the sandbox for the worker: the descriptor of ``confine``, opened once by the
    parent and inherited, through which every file of the job is read."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelJob:
        return cls(**data)


def load(path: Path) -> ModelManifest:
    """Parse and validate a manifest file; errors name the file, key, expectation."""
    try:
        data = read_toml(path)
    except RecursionError:
        raise ConfigError(
            str(path), "TOML of ordinary depth", "nesting too deep to parse", source=str(path)
        ) from None
    return parse(data, source=str(path))


def parse(data: dict[str, Any], *, source: str) -> ModelManifest:
    """Validate parsed manifest data (see :func:`load`)."""
    manifest = parse_section(ModelManifest, data, prefix="manifest", source=source)
    for i, entry in enumerate(manifest.models):
        _check_entry(entry, i, manifest.defaults, source)
    _check_choices(
        manifest.defaults.inputs,
        manifest.defaults.reference,
        manifest.defaults.steps,
        "defaults",
        source,
    )
    return manifest


def _check_entry(entry: ModelEntry, index: int, defaults: ManifestDefaults, source: str) -> None:
    _check_choices(
        entry.inputs or "",
        entry.reference or "onnx-reference",
        entry.steps,
        f"models[{index}]",
        source,
    )
    for key, value in entry.checksums.items():
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower()):
            raise ConfigError(
                f"models[{index}].checksums.{key}",
                "a sha256 digest (64 hex digits)",
                repr(value),
                source=source,
                hint="Compute it with `sha256sum FILE` (or `python -m hashlib`).",
            )


def _check_choices(inputs: str, reference: str, steps: list[str], where: str, source: str) -> None:
    if inputs and inputs not in INPUT_GENERATORS:
        raise ConfigError(
            f"{where}.inputs",
            f"one of {', '.join(INPUT_GENERATORS)}",
            repr(inputs),
            source=source,
            hint="Or store test_data_set_N folders next to the model.",
        )
    if reference not in REFERENCES:
        raise ConfigError(
            f"{where}.reference", f"one of {', '.join(REFERENCES)}", repr(reference), source=source
        )
    for i, step in enumerate(steps):
        if step not in STEPS:
            raise ConfigError(
                f"{where}.steps[{i}]", f"one of {', '.join(STEPS)}", repr(step), source=source
            )


def resolve_path(text: str, base: Path, *, allow_packages: bool = True) -> Path:
    """A manifest path: relative to ``base``, or ``pkg:NAME/rest`` inside an installed package."""
    if text.startswith("pkg:"):
        if not allow_packages:
            raise ValueError(
                f"{text!r}: pkg: paths are not allowed here; use a path inside the folder"
            )
        package, _, rest = text[4:].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ValueError(f"{text!r}: package {package!r} is not installed")
        return Path(next(iter(spec.submodule_search_locations))) / rest
    path = Path(text)
    return path if path.is_absolute() else base / path


def discover_test_data(model: Path) -> list[Path]:
    """Model Zoo style ``test_data_set_*`` folders next to the model, in order."""
    return sorted(p for p in model.parent.glob("test_data_set_*") if p.is_dir())


def jobs(
    manifest: ModelManifest,
    base: Path,
    *,
    submission: Path | None = None,
    source: str = "manifest.toml",
    discover: Callable[[Path], list[Path]] | None = None,
) -> list[ModelJob]:
    """One job per model; ``submission`` confines every path to that folder (Model Zoo mode).

    ``discover``: how the ``test_data_set_*`` folders next to a model are listed (a
    submission's: through its open folder); default :func:`discover_test_data`."""
    discover = discover or discover_test_data
    result: list[ModelJob] = []
    d = manifest.defaults
    allow = submission is None
    for i, entry in enumerate(manifest.models):
        try:
            model = _located(entry.path, base, allow)
            expected = [_located(p, base, allow) for p in entry.expected_outputs]
            test_data = [_located(p, base, allow) for p in entry.test_data]
        except ValueError as exc:
            raise ConfigError(
                f"models[{i}].path",
                "a path inside the folder or pkg:NAME/...",
                str(exc),
                source=source,
            ) from None
        inputs = entry.inputs if entry.inputs is not None else d.inputs
        if not expected and not test_data and not inputs:
            test_data = discover(model)
        result.append(
            ModelJob(
                name=entry.name or model.stem,
                model=str(model),
                confine=str(_absolute(submission) if submission else model.parent),
                data_confine=str(_absolute(submission)) if submission else None,
                inputs=inputs,
                expected_outputs=[str(p) for p in expected],
                test_data=[str(p) for p in test_data],
                reference=entry.reference or d.reference,
                rtol=d.rtol if entry.rtol is None else entry.rtol,
                atol=d.atol if entry.atol is None else entry.atol,
                target_opset=entry.target_opset
                if entry.target_opset is not None
                else d.target_opset,
                checksums={str(model.parent / k): v.lower() for k, v in entry.checksums.items()},
                steps=_steps(entry.steps or d.steps, entry.performance is not None),
                performance=asdict(entry.performance) if entry.performance else None,
                trusted=submission is None,
            )
        )
    return result


def _steps(chosen: list[str], has_baseline: bool) -> list[str]:
    steps = [s for s in STEPS if s in chosen] if chosen else list(DEFAULT_STEPS)
    if has_baseline and not chosen and "performance" not in steps:
        steps.append("performance")
    return steps


def _absolute(path: Path) -> Path:
    """Absolute and lexically normalized, without following symlinks (integrity does that)."""
    return Path(os.path.normpath(path.absolute()))


def _located(text: str, base: Path, allow_packages: bool) -> Path:
    """A manifest path made absolute. Inside an installed package (trusted, never in a
    submission) symlinks are resolved: installers may link files in from their cache."""
    path = resolve_path(text, base, allow_packages=allow_packages)
    return Path(os.path.realpath(path)) if text.startswith("pkg:") else _absolute(path)


def single(
    model: Path, *, discover: Callable[[Path], list[Path]] | None = None, **overrides: Any
) -> ModelJob:
    """A job for one model file given on the command line, with the manifest defaults.

    ``discover``: how its ``test_data_set_*`` folders are listed (default by path)."""
    model = _absolute(model)
    job = ModelJob(name=model.stem, model=str(model), confine=str(model.parent), **overrides)
    if not job.expected_outputs and not job.test_data and not job.inputs:
        job.test_data = [str(p) for p in (discover or discover_test_data)(model)]
    return job
