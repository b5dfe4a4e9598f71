"""The node suite of onnx releases whose ``collect_testcases`` requires an operator filter.

onnx 1.21 and 1.22 declare ``collect_testcases(op_type)``; 1.23 made the filter optional. The
onnx case study (docs/case-studies/onnx.md) found ``mlrelease ops run`` stopping there with a
traceback. This installs the real onnx 1.22.0 next to the project and generates its suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "src"

PROBE = """
import onnx
from mlrelease.ops import cases
generated = cases._generate_node_cases()
print(onnx.__version__, len(generated), sorted({c.op_type for c in generated})[:3])
"""


def test_the_node_suite_of_onnx_1_22_generates(tmp_path: Path) -> None:
    target = tmp_path / "onnx-1.22.0"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps"]
    installed = subprocess.run(
        [*pip, "--target", str(target), "onnx==1.22.0"],
        capture_output=True,
        text=True,
        check=False,
    )
    if installed.returncode != 0:
        pytest.skip(f"onnx 1.22.0 could not be installed from the index: {installed.stderr}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(SRC)])}
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    version, count, _ = probe.stdout.split(" ", 2)
    assert version == "1.22.0"
    assert int(count) > 1500, probe.stdout
