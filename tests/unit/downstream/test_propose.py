"""``mlrelease init`` proposes the known consumers of onnx, as a table that loads and checks."""

from __future__ import annotations

import sys
from pathlib import Path

from mlrelease.downstream import propose
from mlrelease.downstream.config import DownstreamConfig, check
from mlrelease.init.propose import _downstream
from mlrelease.toml_tables import parse_section

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_onnx_consumers_are_proposed_and_valid() -> None:
    notes: list[str] = []
    text = "\n".join(_downstream("ONNX", notes))
    data = tomllib.loads(text)["tool"]["mlrelease"]["downstream"]
    table = parse_section(DownstreamConfig, data, prefix="tool.mlrelease.downstream", source="p")
    check(table, source="p", root=Path("."), package="onnx")
    names = [c.name for c in table.consumers]
    assert {"onnxruntime", "skl2onnx", "onnxscript", "onnxmltools", "pytorch-exporter"} <= set(
        names
    )
    smoke = table.consumers[names.index("onnxruntime")]
    assert smoke.command[:2] == ["{python}", "-c"] and "InferenceSession" in smoke.command[2]
    assert "downstream is left out of gates" in notes[0]


def test_unknown_projects_get_nothing() -> None:
    notes: list[str] = []
    assert _downstream("some-library", notes) == [] and notes == []
    assert propose.consumers("torchvision") == []
