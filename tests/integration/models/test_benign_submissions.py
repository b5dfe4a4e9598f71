"""No false alarms: a benign submission of every supported shape is accepted.

The safe-file layer, the generic external-data walk and the escaping must refuse what is
hostile and nothing else: external data in a sub-folder, several models, subgraphs, functions,
a LICENSE file instead of a section, a README whose title names the model.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers import hostile
from helpers.models import OPSET, make_model, tensor_info
from onnx import TensorProto, helper, numpy_helper

from mlrelease.cli import main

X = hostile.X


def _plain(folder: Path) -> None:
    """No model.toml: the model and test data are discovered; the licence is a file."""
    (folder / "model.toml").unlink()
    (folder / "LICENSE").write_text("Apache-2.0\n")
    text = (folder / "README.md").read_text().replace("## License\nApache-2.0\n", "")
    (folder / "README.md").write_text(text)


def _external_data_in_a_subfolder(folder: Path) -> None:
    (folder / "weights").mkdir()
    model = hostile.add_model()
    onnx.save_model(
        model,
        str(folder / "model.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="weights/k.bin",
        size_threshold=0,
    )
    assert (folder / "weights" / "k.bin").stat().st_size == 24  # the weights really are outside


def _two_models(folder: Path) -> None:
    onnx.save(hostile.add_model(), folder / "second.onnx")
    (folder / "model.toml").write_text(
        textwrap.dedent("""\
            [[models]]
            name = "first"
            path = "model.onnx"
            [[models]]
            name = "second"
            path = "second.onnx"
            test-data = ["test_data_set_0"]
            """)
    )


def _subgraphs_and_functions(folder: Path) -> None:
    """y = If(true, x + 2 via a local function, x) then a 1-trip Loop that passes y through."""
    imports = [helper.make_opsetid("", OPSET)]
    two = helper.make_node(
        "Constant", [], ["two"], value=numpy_helper.from_array(np.full((2, 3), 2, np.float32))
    )
    add2 = helper.make_function(
        "local",
        "AddTwo",
        ["a"],
        ["b"],
        [two, helper.make_node("Add", ["a", "two"], ["b"])],
        imports,
    )
    then = helper.make_graph(
        [helper.make_node("AddTwo", ["x"], ["t"], domain="local")],
        "then",
        [],
        [tensor_info("t", [2, 3])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [tensor_info("e", [2, 3])]
    )
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            helper.make_node("Identity", ["v_in"], ["v_out"]),
        ],
        "body",
        [
            tensor_info("i", [], TensorProto.INT64),
            tensor_info("c_in", [], TensorProto.BOOL),
            tensor_info("v_in", [2, 3]),
        ],
        [tensor_info("c_out", [], TensorProto.BOOL), tensor_info("v_out", [2, 3])],
    )
    model = make_model(
        [
            helper.make_node("If", ["cond"], ["z"], then_branch=then, else_branch=other),
            helper.make_node("Loop", ["trip", "cond", "z"], ["y"], body=body),
        ],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[
            numpy_helper.from_array(np.array(True), "cond"),
            numpy_helper.from_array(np.array(1, np.int64), "trip"),
        ],
        opsets={"": OPSET, "local": 1},
        functions=[add2],
    )
    onnx.save(model, folder / "model.onnx")


SHAPES: dict[str, Callable[[Path], None]] = {
    "model.toml with a script and a performance baseline": lambda folder: None,
    "plain folder with a LICENSE file": _plain,
    "external data in a sub-folder": _external_data_in_a_subfolder,
    "two models": _two_models,
    "subgraphs and a model-local function": _subgraphs_and_functions,
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_benign_submission_is_accepted(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = hostile.benign(tmp_path / "tiny-add")
    (folder / "model.toml").write_text(
        (folder / "model.toml").read_text() + "performance = { latency-ms = 1000.0, runs = 3 }\n"
    )
    SHAPES[shape](folder)
    code = main(["models", "verify", str(folder)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("## Model Zoo submission: ACCEPT"), out
    assert "| fail |" not in out and "**FAIL**" not in out
