"""The models and input shapes of the perf matrix, and the plan of combinations (pure data).

Built-in models follow Torch-TensorRT's release checklist (seed step 5): BERT-base with two
sequence inputs of length 128, EfficientNet-B0, ViT-B/16 and ResNet-50 at 3x224x224, the image
models also at 3x1920x1080 (P2). Weights are random (seeded) and nothing is downloaded: the
builders in :mod:`mlrelease.perf.builders` construct each model from its ``transformers`` config.

A project adds its own model with a :class:`ModelSpec` in an importable module and lists it in a
profile as ``"package.module:ATTRIBUTE"``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlrelease.errors import ConfigError


@dataclass(frozen=True)
class InputShape:
    """One input shape of a model, per sample (the batch axis comes first and is added later)."""

    key: str
    """A short name used in row keys and file names: ``3x224x224``, ``seq128``."""
    dims: tuple[int, ...]
    priority: int = 1
    """The seed's priority: P1 shapes always run, P2 shapes when the profile asks."""


@dataclass(frozen=True)
class ModelSpec:
    """A model of the perf matrix."""

    name: str
    title: str
    builder: str
    """``module:function``; ``function(shape, layers)`` returns a
    :class:`mlrelease.perf.builders.Built` (it runs only in worker subprocesses)."""
    shapes: tuple[InputShape, ...]
    not_applicable: Mapping[str, str] = field(default_factory=dict)
    """Shape key -> why the model cannot take that shape (rows become ``not_applicable``)."""
    depth_name: str = "layers"
    """What ``layers`` reduces, for the report (``encoder layers``)."""


IMAGE_224 = InputShape("3x224x224", (3, 224, 224))
IMAGE_FHD = InputShape("3x1920x1080", (3, 1920, 1080), priority=2)
SEQ_128 = InputShape("seq128", (128,))

BUILTIN_MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "bert",
            "BERT-base",
            "mlrelease.perf.builders:build_bert",
            (SEQ_128,),
            depth_name="encoder layers",
        ),
        ModelSpec(
            "efficientnet_b0",
            "EfficientNet-B0",
            "mlrelease.perf.builders:build_efficientnet",
            (IMAGE_224, IMAGE_FHD),
        ),
        ModelSpec(
            "vit_b16",
            "ViT-B/16",
            "mlrelease.perf.builders:build_vit",
            (IMAGE_224, IMAGE_FHD),
            not_applicable={
                IMAGE_FHD.key: "ViT-B/16 has position embeddings for 14x14 patches of a 224x224 "
                "image, and 1080 is not a multiple of the 16-pixel patch",
            },
            depth_name="encoder layers",
        ),
        ModelSpec(
            "resnet50", "ResNet-50", "mlrelease.perf.builders:build_resnet", (IMAGE_224, IMAGE_FHD)
        ),
    )
}


def resolve_model(name: str, *, key: str = "models", source: str = "pyproject.toml") -> ModelSpec:
    """A built-in model by name, or the :class:`ModelSpec` at ``module:attribute``."""
    if name in BUILTIN_MODELS:
        return BUILTIN_MODELS[name]
    if ":" not in name:
        raise ConfigError(
            key,
            f"a built-in model ({', '.join(BUILTIN_MODELS)}) or module:attribute",
            repr(name),
            source=source,
        )
    module_name, _, attribute = name.partition(":")
    try:
        spec = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(
            key,
            "an importable module:attribute",
            f"{name!r} ({exc})",
            source=source,
            hint="Is the module on PYTHONPATH?",
        ) from None
    if not isinstance(spec, ModelSpec):
        raise ConfigError(
            key, "a mlrelease.perf.catalog.ModelSpec", type(spec).__name__, source=source
        )
    return spec


@dataclass(frozen=True)
class Combination:
    """One cell of the matrix: a model at one shape and batch size under one framework."""

    model: str
    shape: str
    batch: int
    framework: str

    @property
    def key(self) -> str:
        return f"{self.model}/{self.shape}/b{self.batch}/{self.framework}"


@dataclass(frozen=True)
class Planned:
    """A combination, and the verdict known before running it (``None``: it must run)."""

    combination: Combination
    spec_ref: str
    """What a worker passes to :func:`resolve_model` (the profile's entry)."""
    status: str | None = None
    reason: str = ""


def plan(
    models: Sequence[tuple[str, ModelSpec]],
    *,
    p2_shapes: bool,
    batch_sizes: Sequence[int],
    frameworks: Sequence[str],
    unavailable: Mapping[str, str],
) -> list[Planned]:
    """Every combination in matrix order, with ``not_applicable`` / ``unavailable`` decided.

    ``models`` pairs each profile entry with its spec; ``unavailable`` maps a framework to the
    reason it cannot run here (from the probe).
    """
    rows: list[Planned] = []
    for ref, spec in models:
        for shape in spec.shapes:
            if shape.priority > 1 and not p2_shapes:
                continue
            for batch in batch_sizes:
                for framework in frameworks:
                    combo = Combination(spec.name, shape.key, batch, framework)
                    if shape.key in spec.not_applicable:
                        rows.append(
                            Planned(combo, ref, "not_applicable", spec.not_applicable[shape.key])
                        )
                    elif framework in unavailable:
                        rows.append(Planned(combo, ref, "unavailable", unavailable[framework]))
                    else:
                        rows.append(Planned(combo, ref))
    return rows
