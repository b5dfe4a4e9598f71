"""Helpers of the defect catalogue (tests/defects): run one gate the way a maintainer does.

Every incident test runs ``mlrelease verify --only GATE`` (or the command that is the gate, for
the Model Zoo and promotion) on a real temporary project and reads the JSON report, so the
message asserted is the message a maintainer sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from helpers.models import add_model, write_test_data
from helpers.projects import single_gate, write
from helpers.projects.native import wheels_project
from mlrelease.cli import main
from mlrelease.wheels import artifacts


def verify(root: Path, gate: str) -> dict[str, Any]:
    """Run one gate through ``mlrelease verify``; its result from the JSON report."""
    code = main(["--root", str(root), "verify", "--only", gate])
    report = json.loads((root / "build/release-verify/report.json").read_text(encoding="utf-8"))
    (result,) = report["results"]
    assert (code == 0) == (result["status"] in ("pass", "skip")), result
    return dict(result)


def text(result: dict[str, Any]) -> str:
    """The summary and the details, as one string (what the report shows)."""
    return "\n".join([result["summary"], *result["details"]])


PLANTED_BACKENDS = (
    '''
"""onnxruntime with planted wrong kernels, chosen by $PLANTED (op types, comma-separated)."""
import os
'''
    + single_gate.PLANTED_REP
    + """
    def run(self, inputs, **kwargs):
        outputs = list(self.rep.run(inputs))
        wrong = set(os.environ.get("PLANTED", "").split(",")) & self.ops
        return [o + np.ones_like(o) for o in outputs] if wrong else outputs
"""
    + single_gate.PLANTED_CLASS
)
"""A backend module whose kernels for the op types in ``$PLANTED`` are off by one."""


def ops_project(root: Path, select: list[str], version: str = "1.0.0") -> Path:
    """A project whose ``ops_index`` gate runs ``select`` on onnxruntime (``rt``) and on a
    backend with planted wrong kernels (``planted``)."""
    backends = [single_gate.RT, single_gate.PLANTED]
    pyproject = single_gate.ops_index(select, backends, version=version, timeout_s=30)
    return write(root, {"backends/planted.py": PLANTED_BACKENDS, "pyproject.toml": pyproject})


def artifact_names(name: str, version: str, keys: list[str]) -> list[str]:
    """Wheel file names for ``cp312-manylinux_x86_64``-style keys, plus the sdist."""
    tags = {
        "manylinux_x86_64": "manylinux_2_17_x86_64.manylinux2014_x86_64",
        "win_amd64": "win_amd64",
        "macosx_arm64": "macosx_11_0_arm64",
        "macosx_x86_64": "macosx_10_9_x86_64",
    }
    dist = name.replace("-", "_")
    wheels = []
    for key in keys:
        python, _, platform = key.partition("-")
        wheels.append(f"{dist}-{version}-{python}-{python}-{tags[platform]}.whl")
    return [*wheels, f"{dist}-{version}.tar.gz"]


def promote_wheels(
    tmp_path: Path, keys: list[str], platforms: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``wheels promote`` of a native project (CPython 3.11 and 3.12, ``platforms`` required)
    over an RC folder holding the wheels ``keys`` and the sdist: the exit code and the output,
    on one line."""
    root = wheels_project(
        tmp_path / "demo",
        pythons=["3.11", "3.12"],
        build=["cp311-*", "cp312-*"],
        required=platforms,
    )
    folder = tmp_path / "rc-assets"
    folder.mkdir()
    for name in artifact_names("demo-native", "1.1.0", keys):
        (folder / name).write_bytes(name.encode())
    artifacts.write_sums(folder)
    code = main(["--root", str(root), "wheels", "promote", "--artifacts", str(folder)])
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


ZOO_README = """\
# TinyAdd

## Description
Adds two to every element; a stand-in for an image classifier.

## Dataset
Synthetic: ones of shape 2x3 (test_data_set_0).

## Accuracy
Exact: output equals input + 2 (max abs error 0).

## License
Apache-2.0
"""


def zoo_submission(folder: Path, *, readme: str = ZOO_README, outputs: bool = True) -> Path:
    """A Model Zoo submission folder: README, model, one test data set (outputs optional)."""
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(readme, encoding="utf-8")
    onnx.save(add_model(2.0), folder / "model.onnx")
    x = np.ones((2, 3), np.float32)
    write_test_data(folder, [x], [x + 2.0] if outputs else [])
    return folder
