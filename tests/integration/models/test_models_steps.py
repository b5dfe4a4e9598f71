"""The verification steps on small real models, each run in the real sandboxed worker."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers import REPO_ROOT
from helpers.models import add_model, make_model, tensor_info, write_project, write_test_data
from onnx import TensorProto, helper, numpy_helper

from mlrelease.gates import Context, Status
from mlrelease.models import sandbox, service
from mlrelease.models.config import CompatConfig
from mlrelease.models.manifest import ModelJob, single
from mlrelease.models.verdicts import StepStatus
from mlrelease.registry import load_config, load_gates


def _run(job: ModelJob, root: Path) -> sandbox.ModelVerdict:
    """Verify with the probed limits of the configured runtimes, as the gate does."""
    config = load_config(REPO_ROOT)
    service.prepare(
        [job],
        config,
        service.probe_runtimes(config.table(CompatConfig), root=root, source="pyproject.toml"),
    )
    return sandbox.run(job)


def test_planted_shape_error_is_missed_by_the_checker_and_caught_by_strict_inference(
    model_dir: Path,
) -> None:
    """Acceptance 3: Reshape's target shape comes from Shape(x) = [2, 3], the graph declares
    its output [3, 2]. Only data propagation sees the conflict."""
    model = make_model(
        [
            helper.make_node("Shape", ["x"], ["s"], name="shape"),
            helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape"),
        ],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [3, 2])],
    )
    path = model_dir / "planted.onnx"
    onnx.save(model, path)
    onnx.checker.check_model(model)  # accepted without the full check ...
    onnx.checker.check_model(str(path), full_check=True)  # ... and even with it

    job = single(path)
    job.steps = ["integrity", "checker", "shape_inference", "opset_imports"]
    verdict = _run(job, model_dir)
    assert verdict.step("checker").outcome is StepStatus.PASS  # type: ignore[union-attr]
    step = verdict.step("shape_inference")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert "node name: reshape" in step.summary
    assert "Inferred shape and existing shape differ in dimension 0: (2) vs (3)" in step.summary


def _softmax_v11_model(ir: int = 7) -> onnx.ModelProto:
    """Softmax-11 on [1, 4, 1, 1]: the input is coerced to 2-D [1, 4] (axis=1 default)."""
    return make_model(
        [helper.make_node("Softmax", ["x"], ["y"])],
        [tensor_info("x", [1, 4, 1, 1])],
        [tensor_info("y", [1, 4, 1, 1])],
        ir_version=ir,
        opsets={"": 11},
    )


def test_reference_evaluator_disagreement_is_reported_as_a_suspected_reference_bug(
    model_dir: Path,
) -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32).reshape(1, 4, 1, 1)
    e = np.exp(x.reshape(1, 4) - x.max())
    expected = (e / e.sum()).reshape(1, 4, 1, 1).astype(np.float32)  # Softmax-11 by its spec
    onnx.save(_softmax_v11_model(), model_dir / "model.onnx")
    write_test_data(model_dir, [x], [expected])
    job = single(model_dir / "model.onnx")
    job.target_opset = 21
    verdict = _run(job, model_dir)
    assert verdict.ok, verdict.to_dict()
    step = verdict.step("inference")
    assert step is not None and step.outcome is StepStatus.WARN
    assert step.summary.startswith("suspected onnx reference evaluator bug")
    assert "matches the expected outputs" in " ".join(step.details)
    # The converter's Softmax 12 -> 13 adapter keeps the semantics: outputs unchanged.
    conv = verdict.step("version_conversion")
    assert conv is not None and conv.outcome is not StepStatus.FAIL, conv
    assert "opset 11 -> 21" in conv.summary


def test_wrong_stored_outputs_fail_and_point_at_the_outputs(model_dir: Path) -> None:
    onnx.save(add_model(2.0), model_dir / "model.onnx")
    x = np.ones((2, 3), np.float32)
    write_test_data(model_dir, [x], [x + 3.0])
    verdict = _run(single(model_dir / "model.onnx"), model_dir)
    step = verdict.step("inference")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert "6 of 6 values differ" in step.summary
    assert any("suspect the expected outputs" in d for d in step.details)


def test_without_stored_outputs_the_reference_evaluator_is_the_oracle(model_dir: Path) -> None:
    onnx.save(add_model(2.0), model_dir / "model.onnx")
    write_test_data(model_dir, [np.ones((2, 3), np.float32)], [])
    verdict = _run(single(model_dir / "model.onnx"), model_dir)
    assert verdict.ok, verdict.to_dict()
    step = verdict.step("inference")
    assert step is not None and step.outcome is StepStatus.PASS
    assert "matches the onnx reference evaluator" in " ".join(step.details)


def test_external_data_model_passes_every_step_including_the_converter_round_trip(
    model_dir: Path,
) -> None:
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    model = make_model(
        [helper.make_node("Mul", ["x", "w"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
        ir_version=7,
        opsets={"": 13},
    )
    onnx.save(
        model,
        model_dir / "model.onnx",
        save_as_external_data=True,
        location="weights.bin",
        size_threshold=0,
    )
    x = np.full((2, 3), 2.0, np.float32)
    write_test_data(model_dir, [x], [x * np.arange(6, dtype=np.float32).reshape(2, 3)])
    job = single(model_dir / "model.onnx")
    job.target_opset = 21
    verdict = _run(job, model_dir)
    assert verdict.ok, verdict.to_dict()
    assert "1 external data file(s)" in verdict.step("integrity").summary  # type: ignore[union-attr]
    conv = verdict.step("version_conversion")
    assert conv is not None and "outputs unchanged" in " ".join([conv.summary, *conv.details])
    assert (model_dir / "weights.bin").stat().st_size == 24  # the model folder is untouched


def test_opset_nine_model_converts_and_the_kept_ir_is_reported(model_dir: Path) -> None:
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [tensor_info("x", [2])],
        [tensor_info("y", [2])],
        ir_version=4,
        opsets={"": 9},
    )
    onnx.save(model, model_dir / "model.onnx")
    x = np.array([-1.0, 2.0], np.float32)
    write_test_data(model_dir, [x], [np.maximum(x, 0)])
    job = single(model_dir / "model.onnx")
    job.target_opset = 21
    verdict = _run(job, model_dir)
    conv = verdict.step("version_conversion")
    assert conv is not None and conv.outcome is StepStatus.WARN
    assert "IR 4 is older than IR 10" in conv.summary
    assert "does not raise ir_version" in conv.summary


def test_performance_baseline_is_checked(model_dir: Path) -> None:
    onnx.save(add_model(), model_dir / "model.onnx")
    write_test_data(model_dir, [np.ones((2, 3), np.float32)], [np.full((2, 3), 3.0, np.float32)])
    job = single(model_dir / "model.onnx")
    job.steps = ["integrity", "inference", "performance"]
    job.performance = {"latency_ms": 1e-6, "runs": 5, "warmup": 1}
    verdict = _run(job, model_dir)
    step = verdict.step("performance")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert "exceeds the declared baseline" in step.summary and "median latency" in step.summary


@pytest.mark.slow
def test_models_gate_on_one_real_zoo_model(tmp_path: Path) -> None:
    """The repository's manifest entry for SqueezeNet (a real Model Zoo graph, IR 3/opset 9),
    through the models gate: it passes, and the reference evaluator's Softmax-1 bug shows."""
    manifest = (REPO_ROOT / "models" / "manifest.toml").read_text()
    head, _, rest = manifest.partition("[[models]]")
    squeezenet = next(block for block in rest.split("[[models]]") if '"squeezenet"' in block)
    root = write_project(
        tmp_path / "adopter",
        ["models"],
        {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}},
        manifest=head + "[[models]]" + textwrap.dedent(squeezenet),
    )
    config = load_config(root)
    result = load_gates(config)["models"].execute(Context(config=config))
    assert result.status is Status.PASS, (result.summary, result.details)
    assert result.summary.startswith("1/1 models pass every step (1 with warnings)")
    text = "\n".join(result.details)
    assert "| `squeezenet` | pass | pass | pass | warn | pass | warn | warn | **ok** |" in text
    assert "suspected onnx reference evaluator bug" in text
    assert (root / "build" / "release-verify" / "evidence" / "models" / "verdicts.md").is_file()


def test_wrong_type_in_initializer_data_is_caught_before_running(model_dir: Path) -> None:
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3])
    w.float_data.extend([1.0, 2.0])
    model = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
    )
    onnx.save(model, model_dir / "model.onnx")
    verdict = sandbox.run(single(model_dir / "model.onnx"))
    step = verdict.step("integrity")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert "float_data holds 2 values but shape [2, 3] needs 6" in step.summary


def test_test_data_of_the_wrong_shape_is_named(model_dir: Path) -> None:
    onnx.save(add_model(), model_dir / "model.onnx")
    write_test_data(model_dir, [np.ones(6, np.float32)], [np.ones(6, np.float32)])
    verdict = sandbox.run(single(model_dir / "model.onnx"))
    step = verdict.step("inference")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert step.summary == (
        "test_data_set_0/input_0.pb holds shape [6], but graph input 'x' declares [2, 3]"
    )
