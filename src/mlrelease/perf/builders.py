"""Model builders (worker side: imports torch and transformers).

Each builder constructs a model from its ``transformers`` config with seeded random weights and
nothing downloaded, wrapped so that ``forward`` takes the named inputs positionally and returns
one tensor, the features (``last_hidden_state``): random classification heads can output all
zeros, which would make a relative parity error meaningless.

The convolutional models get unit batch-norm scales and their batch-norm statistics from one
forward pass over a random batch (momentum ``None``: a plain average): with transformers' random
initialisation EfficientNet-B0's features shrink through its 16 blocks to denormal numbers
(about 1e-30), which is neither a realistic workload (denormal arithmetic is slow) nor a usable
parity reference.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from mlrelease.perf.catalog import InputShape, ModelSpec

SEED = 0

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download anything
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


@dataclass
class Built:
    """A model ready to run: the module, its input names and one sample (batch 1)."""

    module: torch.nn.Module
    sample: dict[str, np.ndarray]
    """Inputs of batch 1, in the order ``forward`` takes them."""

    @property
    def input_names(self) -> list[str]:
        return list(self.sample)


class TextFeatures(torch.nn.Module):
    """A text encoder taking (input_ids, attention_mask), returning last_hidden_state."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.model(
            input_ids=input_ids, attention_mask=attention_mask
        ).last_hidden_state
        return out


class ImageFeatures(torch.nn.Module):
    """An image model taking pixel_values, returning last_hidden_state."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.model(pixel_values=pixel_values).last_hidden_state
        return out


def _images(shape: InputShape) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return {"pixel_values": rng.standard_normal((1, *shape.dims), dtype=np.float32)}


def _calibrate_batchnorm(module: torch.nn.Module) -> None:
    # Per-channel statistics: a 224x224 batch serves every input size, cheaply.
    norms = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_parameters()  # scale 1, shift 0 (transformers draws tiny random scales)
        norm.momentum = None
    module.train()
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        module(torch.randn(2, 3, 224, 224, generator=generator))
    module.eval()


def _no_layers(name: str, layers: int | None) -> None:
    if layers is not None:
        raise ValueError(
            f"{name} has no reduced-depth variant here; remove it from the profile's `layers` table"
        )


def build_bert(shape: InputShape, layers: int | None) -> Built:
    """BERT-base (``BertConfig()``), ``layers`` encoder layers (default 12), no pooler."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(SEED)
    config = BertConfig(num_hidden_layers=layers or 12)
    module = TextFeatures(BertModel(config, add_pooling_layer=False)).eval()
    rng = np.random.default_rng(SEED)
    (length,) = shape.dims
    sample = {
        "input_ids": rng.integers(0, config.vocab_size, size=(1, length), dtype=np.int64),
        "attention_mask": np.ones((1, length), dtype=np.int64),
    }
    return Built(module, sample)


def build_efficientnet(shape: InputShape, layers: int | None) -> Built:
    """EfficientNet-B0: width and depth coefficients 1.0 (the config defaults are B7's)."""
    from transformers import EfficientNetConfig, EfficientNetModel

    _no_layers("efficientnet_b0", layers)
    torch.manual_seed(SEED)
    config = EfficientNetConfig(
        width_coefficient=1.0,
        depth_coefficient=1.0,
        image_size=224,
        dropout_rate=0.2,
        hidden_dim=1280,
    )
    module = ImageFeatures(EfficientNetModel(config))
    _calibrate_batchnorm(module)
    return Built(module, _images(shape))


def build_vit(shape: InputShape, layers: int | None) -> Built:
    """ViT-B/16 at 224x224 (``ViTConfig()``), ``layers`` encoder layers (default 12), no pooler."""
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(SEED)
    config = ViTConfig(num_hidden_layers=layers or 12)
    module = ImageFeatures(ViTModel(config, add_pooling_layer=False)).eval()
    return Built(module, _images(shape))


def build_resnet(shape: InputShape, layers: int | None) -> Built:
    """ResNet-50 v1.5 (``ResNetConfig()``: bottleneck blocks 3-4-6-3, stride in the 3x3 conv)."""
    from transformers import ResNetConfig, ResNetModel

    _no_layers("resnet50", layers)
    torch.manual_seed(SEED)
    module = ImageFeatures(ResNetModel(ResNetConfig()))
    _calibrate_batchnorm(module)
    return Built(module, _images(shape))


def build(spec: ModelSpec, shape_key: str, layers: int | None) -> Built:
    """Build ``spec`` at the shape named ``shape_key`` with its builder function."""
    import importlib

    shape = next(s for s in spec.shapes if s.key == shape_key)
    module_name, _, function = spec.builder.partition(":")
    builder: Callable[[InputShape, int | None], Any] = getattr(
        importlib.import_module(module_name), function
    )
    built = builder(shape, layers)
    if not isinstance(built, Built):
        raise TypeError(
            f"{spec.builder} returned {type(built).__name__}, "
            "expected mlrelease.perf.builders.Built"
        )
    built.module.eval()
    return built
