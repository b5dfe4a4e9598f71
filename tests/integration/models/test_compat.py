"""Runtime compatibility: real probing of onnxruntime, the cache, and the compat gate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from helpers.models import add_model, write_project, write_test_data
from onnx import helper

from mlrelease.gates import Context, Status
from mlrelease.models import compat, probe_cache, runtimes, sandbox
from mlrelease.models.config import CompatConfig, RuntimeSpec
from mlrelease.models.manifest import single
from mlrelease.models.service import prepare, probe_runtimes
from mlrelease.models.verdicts import StepStatus
from mlrelease.registry import load_config, load_gates


@pytest.fixture(scope="module")
def cpu() -> runtimes.Runtime:
    found = runtimes.resolve([RuntimeSpec()])
    assert isinstance(found[0], runtimes.Runtime)
    return found[0]


@pytest.fixture(scope="module")
def limits(cpu: runtimes.Runtime) -> runtimes.RuntimeLimits:
    return runtimes.probe(cpu, ["com.acme"])


def test_probe_measures_what_onnxruntime_really_loads(
    cpu: runtimes.Runtime, limits: runtimes.RuntimeLimits
) -> None:
    assert limits.ir is not None
    newest_ir = limits.ir[1]
    newest_opset = limits.max_opset("")
    assert newest_opset is not None
    # The boundary is real: the newest version loads, the next one is refused.
    cpu.load(runtimes.probe_model(newest_ir, {"": 7}))
    with pytest.raises(Exception, match=f"IR version: {newest_ir + 1}"):
        cpu.load(runtimes.probe_model(newest_ir + 1, {"": 7}))
    cpu.load(runtimes.probe_model(newest_ir, {"": newest_opset}))
    with pytest.raises(Exception, match=f"Opset {newest_opset + 1}"):
        cpu.load(runtimes.probe_model(newest_ir, {"": newest_opset + 1}))
    if onnxruntime.__version__ == "1.31.1":  # the pinned one: the figures the project documents
        assert (newest_ir, newest_opset) == (13, 26)
        assert limits.max_opset("ai.onnx.ml") == 5
    assert "max supported IR version" in limits.refusals["ir"]
    assert "under development" in limits.refusals[""]
    assert limits.opsets["com.acme"] is None  # unknown domain: not validated, loads any version
    assert not limits.validates("com.acme")


def test_runtime_error_messages_are_cleaned(cpu: runtimes.Runtime) -> None:
    with pytest.raises(Exception) as info:
        cpu.load(runtimes.probe_model(99, {"": 7}))
    cleaned = runtimes.clean_message(info.value)
    assert cleaned.startswith("Unsupported model IR version: 99")
    assert "onnxruntime::" not in cleaned and ".cc:" not in cleaned


def test_probe_cache_is_keyed_by_runtime_version_and_reused(
    cpu: runtimes.Runtime, tmp_path: Path
) -> None:
    first, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert not cached
    path = probe_cache.cache_file(tmp_path, cpu)
    assert path.is_file() and onnxruntime.__version__ in path.name and cpu.target in path.name
    second, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert cached and second == first
    # A domain the cache has not seen is probed (and added); a corrupt entry is re-measured.
    third, cached = probe_cache.cached_probe(cpu, tmp_path, ["com.example"])
    assert not cached and "com.example" in third.opsets
    path.write_text("{not json", encoding="utf-8")
    fourth, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert not cached and fourth.ir == first.ir
    assert json.loads(path.read_text(encoding="utf-8"))["probe_format"] == runtimes.PROBE_FORMAT


def test_unavailable_provider_is_reported_not_crashed() -> None:
    found = runtimes.resolve([RuntimeSpec(providers=["NoSuchExecutionProvider"], required=False)])
    assert isinstance(found[0], runtimes.Unavailable)
    assert "NoSuchExecutionProvider" in found[0].reason and not found[0].required


def _gate(root: Path) -> tuple[Status, str, list[str]]:
    config = load_config(root)
    result = load_gates(config)["compat"].execute(Context(config=config))
    return result.status, result.summary, result.details


def test_compat_gate_names_what_onnx_defaults_produce_and_the_runtime_refuses(
    tmp_path: Path,
) -> None:
    """Acceptance 2: a project that ships onnx's defaults fails, naming IR 14 and opset 28."""
    root = write_project(
        tmp_path / "adopter",
        ["compat"],
        manifest="""
        [[models]]
        path = "defaults.onnx"
        """,
    )
    # What an exporter produces with today's onnx and no explicit versions.
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph)
    onnx.save(model, root / "models" / "defaults.onnx")
    ir, opset = model.ir_version, model.opset_import[0].version
    status, summary, details = _gate(root)
    assert status is Status.FAIL, summary
    text = "\n".join(details)
    if onnxruntime.__version__ == "1.31.1" and onnx.__version__ == "1.23.2":
        assert (ir, opset) == (14, 28)
        assert "stamps IR 14; onnxruntime 1.31.1 (CPUExecutionProvider) loads IR <= 13" in text
        runtime = "onnxruntime 1.31.1 (CPUExecutionProvider)"
        assert f"stamps ai.onnx opset 28; {runtime} loads ai.onnx opset <= 26" in text
    assert f"onnx {onnx.__version__} defaults (onnx.helper.make_model) stamps IR {ir}" in text
    assert f"model defaults stamps IR {ir}" in text
    assert "max supported IR version" in text  # the runtime's own words, from the probe

    # Step 4 of model verification names the same refusal for the model itself.
    job = single(root / "models" / "defaults.onnx")
    job.steps = ["integrity", "compat"]
    prepare(
        [job],
        load_config(root),
        probe_runtimes(load_config(root).table(CompatConfig), root=root, source="pyproject.toml"),
    )
    verdict = sandbox.run(job)
    step = verdict.step("compat")
    assert step is not None and step.outcome is StepStatus.FAIL
    assert f"IR {ir}" in step.summary


def test_compat_gate_passes_for_declared_targets_the_runtime_loads(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "adopter", ["compat"], {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}}
    )
    status, summary, details = _gate(root)
    assert status is Status.PASS, (summary, details)
    assert summary.startswith("tool.mlrelease.compat: IR 10, ai.onnx 21")
    assert any("not pinned" in d for d in details)


def test_compat_gate_fails_when_installed_onnx_is_not_the_pinned_one(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "adopter",
        ["compat"],
        {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}},
        text='[dependency-groups]\nmodels = ["onnx==1.0.1"]\n',
    )
    status, summary, _ = _gate(root)
    assert status is Status.FAIL
    assert (
        f"onnx {onnx.__version__} is installed but dependency-groups.models pins onnx==1.0.1"
        in summary
    )


def test_version_table_of_the_installed_onnx_is_consistent() -> None:
    facts = compat.onnx_facts()
    assert facts.made.ir_version == onnx.IR_VERSION
    assert compat.version_table_problems(facts) == []


def test_version_table_inconsistencies_are_named() -> None:
    facts = compat.onnx_facts()
    release = ".".join(facts.version.split(".")[:2])
    without = [row for row in facts.version_table if not str(row[0]).startswith(release + ".")]
    problems = compat.version_table_problems(dataclasses.replace(facts, version_table=without))
    assert any(f"has no row for onnx {release}" in p for p in problems)
    assert any(f"no release pairing the default IR {facts.ir_version}" in p for p in problems)
    wrong = [*without, (f"{release}.0", facts.ir_version, facts.opset - 1, facts.ml_opset, 1)]
    problems = compat.version_table_problems(dataclasses.replace(facts, version_table=wrong))
    assert any(f"says ai.onnx opset {facts.opset - 1}" in p for p in problems)


def test_judge_custom_domain_is_not_validated_by_the_runtime(
    limits: runtimes.RuntimeLimits,
) -> None:
    produced = compat.Produced("exporter", 10, {"": 21, "com.acme": 3})
    findings = compat.judge(produced, limits)
    assert all(f.ok for f in findings)
    assert any("does not validate com.acme versions" in f.message for f in findings)
    too_new = compat.judge(compat.Produced("exporter", 10, {"ai.onnx.ml": 99}), limits)
    assert any(not f.ok and "ai.onnx.ml opset 99" in f.message for f in too_new)


def test_declared_targets_complete_onnx_defaults() -> None:
    facts = compat.onnx_facts()
    assert compat.declared(None, {}, facts.made) is facts.made
    mixed = compat.declared(None, {"ai.onnx": 21}, facts.made)
    assert mixed.ir_version == facts.ir_version and mixed.opsets == {"": 21}
    assert add_model().ir_version == 10  # mlrelease's own fixtures use its declared targets


PLUGIN = '''
"""A runtime plug-in: the onnx reference evaluator, after the onnx checker accepts the model."""
import onnx
from onnx.reference import ReferenceEvaluator

from mlrelease.models.runtimes import Runtime, Session, register_runtime


class _Session(Session):
    def __init__(self, path):
        self._evaluator = ReferenceEvaluator(onnx.load_model(str(path)))
        self.input_names = list(self._evaluator.input_names)
        self.output_names = list(self._evaluator.output_names)

    def run(self, feeds):
        return list(self._evaluator.run(None, feeds))


class CheckedReference(Runtime):
    name, version, target = "checked-reference", onnx.__version__, ""

    def load(self, model):
        onnx.checker.check_model(model)
        ReferenceEvaluator(onnx.load_model_from_string(model))

    def session(self, path, *, threads=0):
        return _Session(path)


register_runtime("checked-reference", lambda spec: [CheckedReference()])
'''


def test_runtime_plugins_are_probed_judged_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "checked_reference.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(plugins))
    monkeypatch.setenv("PYTHONPATH", str(plugins))  # the sandboxed worker imports it too
    root = write_project(
        tmp_path / "adopter",
        ["compat"],
        {
            "compat": {
                "runtime-plugins": ["checked_reference"],
                "runtimes": [{"name": "onnxruntime"}, {"name": "checked-reference"}],
            }
        },
    )
    status, _, details = _gate(root)
    assert status is Status.FAIL  # onnxruntime refuses onnx's defaults; the plug-in does not
    text = "\n".join(details)
    ir = onnx.IR_VERSION
    assert f"checked-reference {onnx.__version__} (probed now): IR 3-{ir}, ai.onnx any" in text
    assert f"IR {ir} loads on checked-reference {onnx.__version__} (IR 3-{ir})" in text
    assert f"checked-reference {onnx.__version__} does not validate ai.onnx versions" in text

    folder = tmp_path / "model"
    folder.mkdir()
    onnx.save(add_model(2.0), folder / "model.onnx")
    x = np.ones((2, 3), np.float32)
    write_test_data(folder, [x], [x + 2.0])
    job = single(folder / "model.onnx")
    config = load_config(root)
    prepare(
        [job],
        config,
        probe_runtimes(config.table(CompatConfig), root=root, source="pyproject.toml"),
    )
    verdict = sandbox.run(job)
    inference = verdict.step("inference")
    assert inference is not None and inference.outcome is StepStatus.PASS, verdict.to_dict()
    assert f"checked-reference {onnx.__version__} matches the expected outputs" in inference.details
