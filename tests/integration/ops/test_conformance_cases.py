"""Conformance cases: the onnx node suite and its on-disk cache, adopters' case folders."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from helpers import REPO_ROOT

from mlrelease.ops import case_folders, cases

EXAMPLE = REPO_ROOT / "examples" / "custom-ops"


@pytest.fixture(scope="module")
def node_cases() -> dict[str, cases.Case]:
    """The node suite from the user cache (generated on the first use per onnx version)."""
    return {c.name: c for c in cases.onnx_node_cases()}


def test_node_cases_are_attributed_to_operator_versions(node_cases: dict[str, cases.Case]) -> None:
    assert len(node_cases) > 1500
    abs_case = node_cases["test_abs"]
    assert (abs_case.domain, abs_case.op_type, abs_case.since_version) == ("ai.onnx", "Abs", 13)
    assert abs_case.ir_version == abs_case.min_ir_version == 7
    expanded = node_cases["test_softmax_axis_0_expanded"]
    assert expanded.expanded and (expanded.op_type, expanded.domain) == ("Softmax", "ai.onnx")
    assert expanded.since_version == node_cases["test_softmax_axis_0"].since_version
    assert node_cases["test_bernoulli_seed"].random_ops == ("Bernoulli",)
    assert node_cases["test_bernoulli_expanded"].random_ops == ("RandomUniformLike",)
    opset28 = node_cases["test_bitshift_right_uint8"]
    assert opset28.opsets == {"ai.onnx": 28} and opset28.min_ir_version == 14


@pytest.mark.slow
def test_cache_is_keyed_by_onnx_version_and_safe_to_share(tmp_path: Path) -> None:
    """Two cold processes generate at once: both succeed, one complete file remains; a warm
    load does not regenerate; a damaged file is never trusted."""
    script = (
        "import sys; from pathlib import Path; from mlrelease.ops import cases; "
        "print(len(cases.onnx_node_cases(Path(sys.argv[1]))))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    counts = {p.communicate(timeout=300)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs) and len(counts) == 1
    path = cases.cache_path(tmp_path)
    assert f"onnx-{onnx.__version__}-" in path.name
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left behind

    generated: list[Path] = []
    warm = cases.onnx_node_cases(tmp_path, on_generate=generated.append)
    assert not generated and str(len(warm)) in counts

    path.write_bytes(path.read_bytes()[:1000])  # a truncated file
    assert cases._read_cache(path) is None


def test_case_folder_in_onnx_layout(tmp_path: Path) -> None:
    loaded = {c.name: c for c in case_folders.load_case_folder(EXAMPLE / "cases")}
    assert sorted(loaded) == [
        "test_fast_gelu",
        "test_layer_scale",
        "test_swish",
        "test_swish_alpha",
        "test_swish_opset3",
        "test_swish_then_relu",
    ]
    swish = loaded["test_swish"]
    assert (swish.domain, swish.op_type, swish.since_version) == ("com.example.custom", "Swish", 1)
    assert swish.ir_version == onnx.IR_VERSION and swish.min_ir_version < swish.ir_version
    assert loaded["test_layer_scale"].since_version == 2
    declared = loaded["test_swish_then_relu"]
    assert (declared.op_type, declared.domain) == ("Swish", "com.example.custom")
    inputs, outputs = swish.data_sets[0]
    assert inputs[0].shape == (3, 4) and outputs[0].dtype == inputs[0].dtype


def test_case_folder_errors_say_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="expected a folder of cases"):
        case_folders.load_case_folder(tmp_path / "missing")
    shutil.copytree(EXAMPLE / "cases" / "test_swish_then_relu", tmp_path / "set" / "test_two")
    (tmp_path / "set" / "test_two" / "data.json").unlink()
    with pytest.raises(
        Exception,
        match=r"cannot tell which operator it tests: it has 2 nodes.*"
        r"\"op_type\"",
    ):
        case_folders.load_case_folder(tmp_path / "set")
    (tmp_path / "set" / "test_two" / "data.json").write_text("{oops")
    with pytest.raises(Exception, match=r"data\.json: not valid JSON"):
        case_folders.load_case_folder(tmp_path / "set")
    (tmp_path / "set" / "test_two" / "data.json").write_text(json.dumps({"op_type": "Swish"}))
    (tmp_path / "set" / "test_two" / "model.onnx").unlink()
    with pytest.raises(Exception, match=r"no model\.onnx"):
        case_folders.load_case_folder(tmp_path / "set")


def test_duplicate_case_names_are_refused(node_cases: dict[str, cases.Case]) -> None:
    custom = case_folders.load_case_folder(EXAMPLE / "cases")
    clash = cases.Case(**{**custom[0].to_dict(), "name": "test_abs", "source": "cases/"})
    with pytest.raises(Exception, match="'test_abs' is defined twice"):
        cases.check_unique([node_cases["test_abs"], clash])


def test_select_and_shard(node_cases: dict[str, cases.Case]) -> None:
    chosen = cases.select(node_cases.values(), ["test_abs", "test_relu*"])
    assert {c.name for c in chosen} == {"test_abs", "test_relu", "test_relu_expanded_ver18"}
    shards = [cases.shard(list(node_cases.values()), i, 3) for i in (1, 2, 3)]
    assert sorted(c.name for s in shards for c in s) == sorted(node_cases)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
