"""Acceptance 4: malformed and hostile models each get a clear failing verdict.

Every case runs in the real sandboxed worker. The verifier (this process) never dies, every
planned step gets a verdict, and nothing outside the model's folder is read: where a case
points outside, the target is a named pipe (POSIX), so any attempt to open it would block
the worker until its time limit, and the verdict would say "time limit" instead of naming
the escape.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers.models import OPSET, add_model, endless_loop_model, make_model, tensor_info
from onnx import TensorProto, helper, numpy_helper

from mlrelease.models import sandbox
from mlrelease.models.manifest import ModelJob, single
from mlrelease.models.verdicts import DEFAULT_STEPS, StepStatus

POSIX = hasattr(os, "mkfifo")


def outside_target(folder: Path) -> Path:
    """A file next to (not inside) the model folder; a named pipe where the OS has them."""
    target = folder.parent / "outside.bin"
    if POSIX:
        os.mkfifo(target)
    else:
        target.write_bytes(b"\0" * 24)
    return target


def saved(folder: Path, model: onnx.ModelProto) -> Path:
    """``model`` saved as ``model.onnx`` in ``folder``; its path."""
    path = folder / "model.onnx"
    onnx.save(model, path)
    return path


def plus_w(w: TensorProto) -> onnx.ModelProto:
    """y = x + w, x of shape [2, 3], ``w`` an initializer."""
    return make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
    )


def external_model(folder: Path, location: str, *, length: int = 24, offset: int = 0) -> Path:
    """y = x + w, w (2x3 float) stored as external data at ``location``."""
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3])
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    return saved(folder, plus_w(w))


def case_traversal(folder: Path) -> Path:
    outside_target(folder)
    return external_model(folder, "../outside.bin")


def case_absolute(folder: Path) -> Path:
    return external_model(folder, str(outside_target(folder).resolve()))


def case_symlink_external(folder: Path) -> Path:
    (folder / "weights.bin").symlink_to(outside_target(folder))
    return external_model(folder, "weights.bin")


def case_symlink_model(folder: Path) -> Path:
    real = folder.parent / "elsewhere.onnx"
    onnx.save(add_model(), real)
    (folder / "model.onnx").symlink_to(real)
    return folder / "model.onnx"


def case_hardlink_external(folder: Path) -> Path:
    secret = folder.parent / "secret.bin"
    secret.write_bytes(b"\1" * 24)  # same size as the weights: only the link count gives it away
    os.link(secret, folder / "weights.bin")
    return external_model(folder, "weights.bin")


def case_external_past_end(folder: Path) -> Path:
    (folder / "weights.bin").write_bytes(b"\0" * 8)
    return external_model(folder, "weights.bin")


def case_truncated(folder: Path) -> Path:
    big = numpy_helper.from_array(np.arange(4096, dtype=np.float32).reshape(64, 64), "w")
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [tensor_info("x", [1, 64])],
        [tensor_info("y", [1, 64])],
        initializers=[big],
    )
    data = model.SerializeToString()
    path = folder / "model.onnx"
    path.write_bytes(data[: len(data) // 2])
    return path


def case_garbage(folder: Path) -> Path:
    path = folder / "model.onnx"
    path.write_bytes(bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8)))
    return path


def case_empty(folder: Path) -> Path:
    path = folder / "model.onnx"
    path.write_bytes(b"")
    return path


def case_raw_data_length(folder: Path) -> Path:
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], raw_data=b"\0" * 7)
    return saved(folder, plus_w(w))


def case_huge_initializer(folder: Path) -> Path:
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**20, 2**20])
    model = make_model(
        [helper.make_node("Identity", ["w"], ["y"])],
        [],
        [tensor_info("y", [2**20, 2**20])],
        initializers=[w],
    )
    return saved(folder, model)


def case_huge_input(folder: Path) -> Path:
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [tensor_info("x", [2**20, 2**20])],
        [tensor_info("y", [2**20, 2**20])],
    )
    return saved(folder, model)


def case_recursive_functions(folder: Path) -> Path:
    imports = [helper.make_opsetid("", OPSET), helper.make_opsetid("local", 1)]
    f = helper.make_function(
        "local", "F", ["x"], ["y"], [helper.make_node("G", ["x"], ["y"], domain="local")], imports
    )
    g = helper.make_function(
        "local", "G", ["x"], ["y"], [helper.make_node("F", ["x"], ["y"], domain="local")], imports
    )
    model = make_model(
        [helper.make_node("F", ["x"], ["y"], domain="local")],
        [tensor_info("x", [1])],
        [tensor_info("y", [1])],
        opsets={"": OPSET, "local": 1},
        functions=[f, g],
    )
    return saved(folder, model)


def case_mixed_opsets(folder: Path) -> Path:
    model = add_model()
    model.opset_import.append(helper.make_opsetid("", 13))
    return saved(folder, model)


def case_domain_not_imported(folder: Path) -> Path:
    model = make_model(
        [helper.make_node("FastConv", ["x"], ["y"], domain="com.acme")],
        [tensor_info("x", [1])],
        [tensor_info("y", [1])],
    )
    return saved(folder, model)


def case_feature_needs_newer_ir(folder: Path) -> Path:
    w = numpy_helper.from_array(np.zeros((2, 3), np.float32), "w")
    model = make_model(
        [
            helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT8E4M3FN),
            helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT),
        ],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
        ir_version=8,
    )
    model.graph.value_info.append(tensor_info("c", [2, 3], TensorProto.FLOAT8E4M3FN))
    return saved(folder, model)


def case_checksum_mismatch(folder: Path) -> Path:
    path = folder / "model.onnx"
    onnx.save(add_model(), path)
    return path


def case_fifo_model(folder: Path) -> Path:
    path = folder / "model.onnx"
    os.mkfifo(path)
    return path


def case_hang(folder: Path) -> Path:
    """A Loop that never ends: trip count 2^62, condition always true."""
    return saved(folder, endless_loop_model([1]))


def case_memory_bomb(folder: Path) -> Path:
    """ConstantOfShape asked for 32768 x 32768 x 4 floats (16 GiB) at run time."""
    shape = numpy_helper.from_array(np.array([2**15, 2**15, 4], np.int64), "shape")
    model = make_model(
        [
            helper.make_node(
                "ConstantOfShape",
                ["shape"],
                ["big"],
                value=numpy_helper.from_array(np.array([1.0], np.float32)),
            ),
            helper.make_node("ReduceSum", ["big"], ["y"], keepdims=0),
        ],
        [tensor_info("x", [1])],
        [tensor_info("y", [])],
        initializers=[shape],
    )
    model.graph.node.insert(0, helper.make_node("Identity", ["x"], ["unused"]))
    return saved(folder, model)


@dataclass(frozen=True)
class Case:
    build: Callable[[Path], Path]
    step: str
    says: str
    posix_only: bool = False
    inputs: str = ""
    time_limit_s: int = 30
    memory_limit_mb: int = 4096


CASES = {
    "path traversal via external data": Case(case_traversal, "integrity", "path traversal"),
    "absolute external data path": Case(case_absolute, "integrity", "is an absolute path"),
    "external data symlinked outside": Case(case_symlink_external, "integrity", "is a symlink to"),
    "model file symlinked outside": Case(case_symlink_model, "integrity", "outside the folder"),
    "external data hard-linked from outside": Case(
        case_hardlink_external, "integrity", "has 2 hard links", posix_only=True
    ),
    "external data past end of file": Case(
        case_external_past_end, "integrity", "runs past the end"
    ),
    "truncated protobuf": Case(case_truncated, "integrity", "truncated or corrupt"),
    "random bytes": Case(case_garbage, "integrity", "not a valid ONNX protobuf"),
    "empty file": Case(case_empty, "integrity", "the model file is empty"),
    "raw_data length mismatch": Case(case_raw_data_length, "integrity", "raw_data holds 7 bytes"),
    "2^40-element initializer": Case(case_huge_initializer, "integrity", "(2^40.0); more than"),
    "2^40-element graph input": Case(
        case_huge_input, "inference", "generating it is refused", inputs="onnx-backend-dummy"
    ),
    "recursive model functions": Case(
        case_recursive_functions, "integrity", "recursively: local::F -> local::G -> local::F"
    ),
    "one domain imported at two versions": Case(
        case_mixed_opsets, "opset_imports", "imported twice"
    ),
    "node domain not imported": Case(
        case_domain_not_imported,
        "opset_imports",
        "uses domain com.acme, which the model does not import",
    ),
    "IR too old for a type it uses": Case(
        case_feature_needs_newer_ir, "opset_imports", "type FLOAT8E4M3FN"
    ),
    "checksum mismatch": Case(case_checksum_mismatch, "integrity", "checksum mismatch"),
    "model file is a named pipe": Case(
        case_fifo_model, "integrity", "not a regular file", posix_only=True
    ),
    "endless loop": Case(case_hang, "inference", "time limit of 5 s exceeded", time_limit_s=5),
    "16 GiB allocation at run time": Case(case_memory_bomb, "inference", "", memory_limit_mb=1536),
}


def _job(path: Path, case: Case, name: str) -> ModelJob:
    job = single(path)
    job.name = name
    job.time_limit_s = case.time_limit_s
    job.memory_limit_mb = case.memory_limit_mb
    job.inputs = case.inputs
    job.reference = "onnx-reference"
    if case.build is case_checksum_mismatch:
        job.checksums = {str(path): hashlib.sha256(b"not this model").hexdigest()}
    if case.build in (case_hang, case_memory_bomb):
        job.inputs = "onnx-backend-dummy"
    return job


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_model_gets_a_clear_failing_verdict(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    if (
        case.posix_only or "outside" in case.build.__name__ or "symlink" in case.build.__name__
    ) and not POSIX:
        pytest.skip("needs named pipes and symlinks (POSIX)")
    if case.memory_limit_mb < 4096 and sys.platform != "linux":
        pytest.skip("the address-space limit is enforced on Linux only")
    folder = tmp_path / "model"
    folder.mkdir()
    job = _job(case.build(folder), case, name)
    verdict = sandbox.run(job)

    assert not verdict.ok, f"{name}: expected a failing verdict, got {verdict.to_dict()}"
    planned = ["integrity", *[s for s in DEFAULT_STEPS if s != "integrity"]]
    assert [s.step for s in verdict.steps] == planned, "every planned step has a verdict"
    failed = verdict.step(case.step)
    assert failed is not None and failed.outcome is StepStatus.FAIL, verdict.to_dict()
    text = failed.summary + " " + " ".join(failed.details)
    assert case.says in text, text
    if case.build is not case_hang:
        assert "time limit" not in text, f"{name}: the worker blocked or hung: {text}"
    if failed.step == "integrity":  # nothing runs on a file that is not safe
        assert all(s.outcome is StepStatus.SKIP for s in verdict.steps[1:])


def test_memory_bomb_is_stopped_by_the_memory_limit(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("the address-space limit is enforced on Linux only")
    folder = tmp_path / "model"
    folder.mkdir()
    case = CASES["16 GiB allocation at run time"]
    verdict = sandbox.run(_job(case.build(folder), case, "bomb"))
    inference = verdict.step("inference")
    assert inference is not None and inference.outcome is StepStatus.FAIL
    text = inference.summary + " ".join(inference.details)
    assert any(word in text for word in ("allocate", "bad_alloc", "memory")), text
    assert verdict.peak_rss_mb is not None and verdict.peak_rss_mb < 1536
