"""Builders of the test models (run in perf worker subprocesses only)."""

from __future__ import annotations

import numpy as np
import torch

from mlrelease.perf.builders import Built
from mlrelease.perf.catalog import InputShape


@torch.library.custom_op("mlrelease_tests::scramble", mutates_args=())
def scramble(x: torch.Tensor) -> torch.Tensor:
    return x.flip(-1) * 2


@scramble.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


class WithCustomOp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scramble(self.linear(x))


def _sample() -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(0).standard_normal((1, 16), dtype=np.float32)}


def build_tiny(shape: InputShape, layers: int | None) -> Built:
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    return Built(module, _sample())


def build_unexportable(shape: InputShape, layers: int | None) -> Built:
    torch.manual_seed(0)
    return Built(WithCustomOp(), _sample())


def build_wide(shape: InputShape, layers: int | None) -> Built:
    """An MLP of about a millisecond per batch-1 run on one thread: long enough that a sleep's
    own CPU cost (a few microseconds) is a small part of an iteration."""
    torch.manual_seed(0)
    width = 1024
    module = torch.nn.Sequential(
        torch.nn.Linear(16, width),
        *(m for _ in range(layers or 4) for m in (torch.nn.ReLU(), torch.nn.Linear(width, width))),
        torch.nn.ReLU(),
        torch.nn.Linear(width, 8),
    )
    return Built(module, _sample())


class BatchMixing(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return y + y.sum(0, keepdim=True)


def build_batch_mixing(shape: InputShape, layers: int | None) -> Built:
    torch.manual_seed(0)
    return Built(BatchMixing(), _sample())
