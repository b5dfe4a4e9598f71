"""The built-in model builders: random weights, no downloads, usable features."""

from __future__ import annotations

import pytest
from helpers.projects import single_gate

from mlrelease.gates import Context
from mlrelease.perf.catalog import BUILTIN_MODELS
from mlrelease.registry import load_config

torch = pytest.importorskip("torch", reason="the perf dependency group is not installed")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "layers"), [("bert", 1), ("efficientnet_b0", None), ("vit_b16", 1), ("resnet50", None)]
)
def test_builders_give_well_scaled_features(name: str, layers: int | None) -> None:
    from mlrelease.perf.builders import build

    spec = BUILTIN_MODELS[name]
    built = build(spec, spec.shapes[0].key, layers)
    with torch.inference_mode():
        features = built.module(*(torch.from_numpy(v) for v in built.sample.values()))
    assert torch.isfinite(features).all()
    # Not vanishing: relative parity errors need a reference of sensible scale.
    assert 1e-2 < float(features.std()) < 1e3


def test_cuda_gate_profile_skips_without_a_device(tmp_path: object) -> None:
    from pathlib import Path

    from mlrelease.perf.gate import check_perf

    root = Path(str(tmp_path))
    gpu_gate = single_gate.pyproject(None, {"perf": {"gate-profile": "gpu"}}, name="x")
    (root / "pyproject.toml").write_text(gpu_gate, encoding="utf-8")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    result = check_perf(Context(load_config(root)))
    assert result.status.value == "skip" and "CUDA" in result.summary
