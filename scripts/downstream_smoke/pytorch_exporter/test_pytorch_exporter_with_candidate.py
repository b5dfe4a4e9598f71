# mypy: disallow-subclassing-any=False
"""The PyTorch exporter (``torch.onnx.export(dynamo=True)``: onnxscript and onnx-ir underneath)
exports small models with the onnx under test installed; onnx checks them and onnxruntime
runs them to torch's own outputs (a downstream smoke: the exporter is the ONNX producer with the
most users)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch


class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-1, -2) / 8**0.5, dim=-1)
        return torch.nn.functional.gelu(weights @ v)


def mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def cnn() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
    )


MODELS = {"mlp": (mlp, (2, 4)), "cnn": (cnn, (1, 3, 8, 8)), "attention": (Attention, (2, 5, 8))}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_export_check_and_run(name: str, tmp_path: Path) -> None:
    torch.manual_seed(0)
    make, shape = MODELS[name]
    model = make().eval()
    x = torch.randn(*shape)
    path = tmp_path / f"{name}.onnx"
    torch.onnx.export(model, (x,), dynamo=True).save(str(path))
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
