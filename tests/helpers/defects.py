"""Helpers of the defect catalogue (tests/defects): run one gate the way a maintainer does.

Every incident test runs ``mlrelease verify --only GATE`` (or the command that is the gate, for
the Model Zoo and promotion) on a real temporary project and reads the JSON report, so the
message asserted is the message a maintainer sees.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from mlrelease.cli import main


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


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text, dedented) under ``root``."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


PLANTED_BACKENDS = '''
"""onnxruntime with planted wrong kernels, chosen by $PLANTED (op types, comma-separated)."""
import os

import numpy as np
import onnxruntime.backend as ort
from onnx.backend.base import Backend, BackendRep


class Rep(BackendRep):
    def __init__(self, rep, ops):
        self.rep, self.ops = rep, ops

    def run(self, inputs, **kwargs):
        outputs = list(self.rep.run(inputs))
        wrong = set(os.environ.get("PLANTED", "").split(",")) & self.ops
        return [o + np.ones_like(o) for o in outputs] if wrong else outputs


class Planted(Backend):
    @classmethod
    def supports_device(cls, device):
        return device == "CPU"

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return Rep(ort.prepare(model, device), {n.op_type for n in model.graph.node})
'''
"""A backend module whose kernels for the op types in ``$PLANTED`` are off by one."""


def ops_project(root: Path, select: list[str], version: str = "1.0.0") -> Path:
    """A project whose ``ops_index`` gate runs ``select`` on onnxruntime (``rt``) and on a
    backend with planted wrong kernels (``planted``)."""
    return write(
        root,
        {
            "backends/planted.py": PLANTED_BACKENDS,
            "pyproject.toml": f"""\
                [project]
                name = "demo"
                version = "{version}"

                [tool.mlrelease]
                gates = ["ops_index"]

                [tool.mlrelease.ops]
                select = {json.dumps(select)}
                previous-index = "auto"
                timeout-s = 30

                [[tool.mlrelease.ops.backends]]
                name = "rt"
                kind = "onnxruntime"

                [[tool.mlrelease.ops.backends]]
                name = "planted"
                kind = "backend"
                module = "planted:Planted"
                python-path = ["backends"]
                """,
        },
    )
