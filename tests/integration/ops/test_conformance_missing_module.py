"""A conformance case that needs a module this environment lacks is an environment gap.

onnx's reference evaluator implements ImageDecoder with Pillow. The index is measured where
Pillow is installed (this development environment); then the ops_index gate runs from the wheel
installed with onnx and onnxruntime but no Pillow: the ImageDecoder cases are not measured
there, the gate names them and the install line, and the index keeps its committed verdicts:
never "a regression to explain".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy
import onnx
import onnxruntime
import pytest
from helpers.installed import Venv, run
from helpers.ops import ops_project, private_cache
from helpers.projects import single_gate

from mlrelease.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture
def measured(tmp_path: Path) -> Path:
    """A project whose index was measured with Pillow: ImageDecoder passes on the reference."""
    backends = [single_gate.REFERENCE]
    cache = private_cache(tmp_path / "cache")
    root = ops_project(tmp_path / "project", ["test_image_decoder*"], backends, cache)
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    return root


def test_a_case_that_needs_pillow_is_an_environment_gap_without_it(
    make_venv: Callable[..., Venv], measured: Path
) -> None:
    index = measured / "docs/indices/supported_ops.json"
    committed = index.read_text(encoding="utf-8")
    assert '"test_image_decoder_decode_jpeg_rgb": {"reference": "pass"}' in committed
    # The same onnx, onnxruntime and numpy as here (the cached node cases fit), no Pillow.
    venv = make_venv(
        "no-pillow",
        "",
        f"onnx=={onnx.__version__}",
        f"onnxruntime=={onnxruntime.__version__}",
        f"numpy=={numpy.__version__}",
    )
    assert run([venv.python, "-c", "import PIL"]).returncode != 0, "Pillow is installed there"
    proc = venv.mlrelease(measured, "verify", "--only", "ops_index")
    output = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 0, output[-3000:]
    assert "regression" not in output and "got worse" not in output
    assert "not measured here" in output and "test_image_decoder_decode_jpeg_rgb" in output
    assert "needs the Python module `PIL` from the distribution pillow" in output
    assert f'`uv pip install --python {venv.python} "mlrelease[ops]"`' in output
    regenerated = venv.mlrelease(measured, "ops", "index", "--execute")
    assert regenerated.returncode == 0, regenerated.stdout + regenerated.stderr
    assert index.read_text(encoding="utf-8") == committed
