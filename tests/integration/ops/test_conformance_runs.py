"""Real conformance runs: worker processes, real onnxruntime and onnx reference runs.

Backends with planted defects (a wrong kernel, a kernel that aborts the process, one that
hangs, a runtime with an old IR limit) are written as Python modules into the temporary
project and loaded by import path, exactly as an adopter's backend is.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO_ROOT
from helpers.projects import Value, single_gate

from mlrelease.cli import main
from mlrelease.ops import policy, service
from mlrelease.ops.verdicts import ConformanceVerdict
from mlrelease.registry import load_config

REPO = REPO_ROOT

PLANTED = (
    '''
"""Backends with planted defects (onnxruntime underneath)."""
import os
import time
'''
    + single_gate.PLANTED_REP
    + """
    def run(self, inputs, **kwargs):
        planted = os.environ.get("PLANTED", "").split(",")
        if "Neg" in self.ops and "abort-neg" in planted:
            os.abort()  # a kernel that takes the process down
        if "Abs" in self.ops and "hang-abs" in planted:
            time.sleep(60)  # a kernel that never returns
        outputs = list(self.rep.run(inputs))
        if "Relu" in self.ops and "wrong-relu" in planted:  # a wrong kernel: off by one
            outputs = [o + np.ones_like(o) for o in outputs]
        return outputs
"""
    + single_gate.PLANTED_CLASS
    + '''

class OldRuntime(Backend):
    """Loads IR 7 at most, like an old runtime."""

    @classmethod
    def supports_device(cls, device):
        return device == "CPU"

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.ir_version > 7:
            raise RuntimeError(f"Unsupported model IR version: {model.ir_version}, "
                               "max supported IR version: 7")
        return ort.prepare(model, device)
'''
)


def project(
    root: Path,
    backends: Sequence[Mapping[str, Value]],
    select: list[str],
    extra: Mapping[str, Value] | None = None,
    timeout_s: int = 30,
) -> Path:
    """A project whose [tool.mlrelease.ops] runs ``select`` on ``backends``."""
    (root / "backends").mkdir(parents=True, exist_ok=True)
    (root / "backends" / "planted.py").write_text(PLANTED, encoding="utf-8")
    pyproject = single_gate.ops_index(select, backends, timeout_s=timeout_s, extra=extra)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return root


PLANTED_BACKEND = single_gate.PLANTED
ORT = single_gate.RT
REFERENCE = single_gate.REFERENCE


def run(root: Path, jobs: int = 2) -> service.ConformanceRun:
    config = load_config(root)
    ops = service.ops_config(config)
    rules = policy.load(root, ops.tolerances, ops.known_failures)
    return service.run(config, ops, service.load_cases(config, ops), policy=rules, jobs=jobs)


def verdicts(outcome: service.ConformanceRun, backend: str) -> dict[str, ConformanceVerdict]:
    return {r.case: r.verdict for r in outcome.results if r.backend == backend}


def test_wrong_kernel_and_crashing_kernel_hit_exactly_their_op(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PLANTED", "wrong-relu,abort-neg")
    root = project(
        tmp_path,
        [PLANTED_BACKEND, REFERENCE],
        [
            "test_relu*",
            "test_leakyrelu*",
            "test_prelu_example",
            "test_neg*",
            "test_sign",
            "test_sigmoid",
        ],
    )
    outcome = run(root)
    planted = verdicts(outcome, "planted")
    config = load_config(root)
    by_op = {c.name: c for c in service.load_cases(config, service.ops_config(config))}
    relu = {n for n, c in by_op.items() if c.op_type == "Relu" and not c.expanded}
    neg = {n for n, c in by_op.items() if c.op_type == "Neg" and not c.expanded}
    assert relu == {"test_relu"} and neg == {"test_neg", "test_neg_example"}
    assert {n for n, v in planted.items() if v is ConformanceVerdict.WRONG_RESULT} == relu
    assert {n for n, v in planted.items() if v is ConformanceVerdict.CRASH} == neg
    assert all(v is ConformanceVerdict.PASS for n, v in planted.items() if n not in relu | neg)
    assert all(v is ConformanceVerdict.PASS for v in verdicts(outcome, "reference").values())
    crash = next(r for r in outcome.results if r.case == "test_neg" and r.backend == "planted")
    if sys.platform != "win32":
        assert "the worker process died (signal SIGABRT)" in crash.message
    wrong = next(r for r in outcome.results if r.case == "test_relu" and r.backend == "planted")
    assert wrong.max_abs_error == pytest.approx(1.0) and "output 0:" in wrong.message

    index = service.build_index(outcome, policy.Policy(), None)
    status = {
        (op["op_type"], v["since_version"]): v["backends"]["planted"]
        for op in index["ops"]
        for v in op["versions"]
    }
    assert status[("Relu", 14)]["status"] == "fail"
    assert status[("Relu", 14)]["reason"] == "wrong_result"
    assert status[("Neg", 13)] == {
        "status": "fail",
        "reason": "crash",
        "passed": 0,
        "total": 2,
        "known": 0,
    }
    assert status[("LeakyRelu", 16)]["status"] == "pass"


def test_a_hanging_kernel_times_out_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTED", "hang-abs")
    root = project(
        tmp_path, [PLANTED_BACKEND], ["test_abs", "test_sign", "test_sigmoid"], timeout_s=2
    )
    outcome = run(root, jobs=1)
    assert verdicts(outcome, "planted") == {
        "test_abs": ConformanceVerdict.TIMEOUT,
        "test_sign": ConformanceVerdict.PASS,
        "test_sigmoid": ConformanceVerdict.PASS,
    }
    timeout = next(r for r in outcome.results if r.case == "test_abs")
    assert "ran past the 2 s limit" in timeout.message and 2 <= timeout.duration_s < 20


def test_ir_limit_is_measured_apart_from_op_support(tmp_path: Path) -> None:
    """Models stamped newer than their opsets need are re-stamped; an opset whose minimum IR
    the runtime refuses is unsupported; the IR limit is reported on its own."""
    backends = [{**PLANTED_BACKEND, "name": "old", "module": "planted:OldRuntime"}]
    root = project(
        tmp_path,
        backends,
        ["test_abs", "test_gelu_default_1", "test_example_*"],
        extra={"case-sets": ["cases"]},
    )
    shutil.copytree(
        REPO / "examples" / "custom-ops" / "cases" / "test_swish",
        root / "cases" / "test_example_swish",
    )
    outcome = run(root)
    results = {r.case: r for r in outcome.results}
    # test_abs: opset 13, IR 7: loads as it is.
    assert (
        results["test_abs"].verdict is ConformanceVerdict.PASS
        and results["test_abs"].restamped_from is None
    )
    # test_gelu_default_1: opset 20 needs IR 9 > 7: the opset is unsupported here.
    gelu = results["test_gelu_default_1"]
    assert gelu.verdict is ConformanceVerdict.OPSET_UNSUPPORTED and gelu.ir_refused == 9
    assert "need IR 9 or newer" in gelu.message
    # test_swish (custom domain) is stamped IR 14 but its opsets allow IR 8: re-stamped, it
    # loads, and onnxruntime has no kernel for the custom op.
    swish = results["test_example_swish"]
    assert (swish.restamped_from, swish.ir_version, swish.verdict) == (
        14,
        8,
        ConformanceVerdict.OPSET_UNSUPPORTED,
    )
    ir = service.build_index(outcome, policy.Policy(), None)["backends"][0]["ir"]
    assert ir == {"highest_loaded": 7, "refused": [8, 9], "cases_refused": 2, "cases_restamped": 0}


def test_unavailable_backend_is_skipped_and_keeps_its_committed_column(tmp_path: Path) -> None:
    root = project(tmp_path, [ORT, REFERENCE], ["test_abs", "test_relu"])
    assert main(["--root", str(root), "ops", "index", "--execute", "--jobs", "1"]) == 0
    committed = json.loads((root / "docs/indices/supported_ops.json").read_text())
    cuda = {**ORT, "provider": "CUDAExecutionProvider"}
    project(tmp_path, [cuda, REFERENCE], ["test_abs", "test_relu"])  # rt now asks for CUDA
    outcome = run(root)
    assert outcome.measured == ["reference"]
    assert "CUDAExecutionProvider is not in this onnxruntime build" in outcome.skipped["rt"]
    assert main(["--root", str(root), "ops", "index", "--check", "--jobs", "1"]) == 0
    assert main(["--root", str(root), "ops", "index", "--execute", "--backend", "reference"]) == 0
    assert json.loads((root / "docs/indices/supported_ops.json").read_text()) == committed


def test_index_check_fails_after_a_hand_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, [ORT, REFERENCE], ["test_abs", "test_relu"])
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    assert main(["--root", str(root), "ops", "index", "--check"]) == 0
    path = root / "docs/indices/supported_ops.json"
    text = path.read_text()
    path.write_text(text.replace('"test_relu": {"rt": "pass"', '"test_relu": {"rt": "crash"'))
    capsys.readouterr()
    assert main(["--root", str(root), "ops", "index", "--check"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "docs/indices/supported_ops.json is stale: ai.onnx Relu-14: cases.test_relu.rt" in err
    path.write_text(text)
    page = root / "docs/indices/supported_ops.md"
    page.write_text(page.read_text().replace("| Relu | 14 | ✅ 1/1", "| Relu | 14 | ✅ 2/2"))
    assert main(["--root", str(root), "ops", "index", "--check"]) == 1
    assert "docs/indices/supported_ops.md is stale (line" in " ".join(
        capsys.readouterr().err.split()
    )


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _verify(root: Path) -> dict[str, Any]:
    main(["--root", str(root), "verify", "--only", "ops_index"])
    report = json.loads((root / "build/release-verify/report.json").read_text())
    result: dict[str, Any] = report["results"][0]
    return result


@pytest.mark.slow
def test_release_verify_fails_on_regressions_stale_index_and_expired_entries(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = project(tmp_path, [PLANTED_BACKEND], ["test_relu", "test_abs"])
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = _verify(root)
    assert result["status"] == "pass", result
    assert "No previous release index" in " ".join(result["details"])
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "release")
    _git(root, "tag", "v1.0.0")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.0.0"', 'version = "1.1.0"'))
    # The backend's Relu kernel goes wrong: the index is stale, and Relu regressed.
    monkeypatch.setenv("PLANTED", "wrong-relu")
    result = _verify(root)
    assert result["status"] == "fail"
    assert result["summary"] == (
        "1 operator version(s) got worse than the committed docs/indices/supported_ops.json, a "
        "regression to explain (regenerating would hide it): ai.onnx Relu-14: planted: "
        "committed pass, 1/1 cases pass, fresh run fail (wrong_result), 0/1 cases pass (cases: "
        "test_relu pass -> wrong_result). Fix the backend, or list each failing case in "
        "ci/known_failures.toml with a reason and an expiry"
    )
    assert "run `mlrelease ops index`" not in json.dumps(result)
    details = " ".join(result["details"])
    assert (
        "1 case(s) passed in v1.0.0:docs/indices/supported_ops.json and fail now without a "
        "known-failure entry: test_relu on planted: wrong result"
    ) in details
    assert main(["--root", str(root), "ops", "index", "--execute", "--diff", "v1.0.0"]) == 1
    # Listed as a known failure and regenerated: the gate passes and says so.
    known = root / "ci/known_failures.toml"
    known.parent.mkdir()
    known.write_text(
        '[[failure]]\npattern = "test_relu"\nbackend = "planted"\n'
        'reason = "planted kernel"\nexpires = 2999-01-01\n'
    )
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = _verify(root)
    assert result["status"] == "pass", result
    assert (
        "regressions listed as known failures (1): test_relu on planted: wrong result"
        in " ".join(result["details"])
    )
    # The entry expires: the gate fails naming it.
    known.write_text(known.read_text().replace("2999-01-01", "2020-01-01"))
    result = _verify(root)
    assert result["status"] == "fail"
    assert result["summary"] == (
        "ci/known_failures.toml:2: known failure 'test_relu' on backend 'planted' expired on "
        "2020-01-01: fix the failure or renew the entry (planted kernel)"
    )


def test_custom_domain_example_index_is_current(tmp_path: Path) -> None:
    """The examples/custom-ops adopter: its own case set and backend, its committed index."""
    example = shutil.copytree(
        REPO / "examples" / "custom-ops",
        tmp_path / "custom-ops",
        ignore=shutil.ignore_patterns("build", "__pycache__"),
    )
    assert main(["--root", str(example), "ops", "index", "--check"]) == 0
    index = json.loads((example / "docs/supported_ops.json").read_text())
    status = {
        (op["op_type"], v["since_version"]): v["backends"]
        for op in index["ops"]
        for v in op["versions"]
    }
    assert {op["domain"] for op in index["ops"]} == {"com.example.custom"}
    assert status[("Swish", 1)]["custom-ops"] == {"status": "pass", "passed": 3, "total": 3}
    assert status[("LayerScale", 2)]["custom-ops"]["status"] == "pass"
    assert status[("Swish", 3)]["custom-ops"]["reason"] == "opset_unsupported"
    assert status[("FastGelu", 1)]["onnxruntime-cpu"]["reason"] == "not_implemented"
    ort = next(b for b in index["backends"] if b["name"] == "onnxruntime-cpu")
    assert ort["ir"]["refused"] == [14] and ort["ir"]["cases_restamped"] == 6


@pytest.mark.slow
@pytest.mark.skipif(
    sys.platform != "linux",
    reason="the committed index is measured on Linux; other platforms' onnxruntime builds differ",
)
def test_committed_index_matches_a_full_run() -> None:
    """Acceptance: the repository's own index is current (the whole node suite, both backends)."""
    assert main(["--root", str(REPO), "ops", "index", "--check"]) == 0


def test_shards_merge_into_the_same_index(tmp_path: Path) -> None:
    """CI matrices: `ops run --shard i/n` per job, `ops index --from-results` merges them."""
    root = project(tmp_path, [ORT, REFERENCE], ["test_abs", "test_relu", "test_neg*", "test_sign"])
    assert main(["--root", str(root), "ops", "index", "--execute", "--jobs", "1"]) == 0
    whole = (root / "docs/indices/supported_ops.json").read_text()
    shards = [str(root / f"shard-{i}.json") for i in (1, 2)]
    for i, path in enumerate(shards, 1):
        assert main(["--root", str(root), "ops", "run", "--shard", f"{i}/2", "-o", path]) == 0
    results = [json.loads(Path(p).read_text())["results"] for p in shards]
    assert {r["case"] for r in results[0]}.isdisjoint({r["case"] for r in results[1]})
    assert main(["--root", str(root), "ops", "index", "--check", "--from-results", *shards]) == 0
    assert (root / "docs/indices/supported_ops.json").read_text() == whole
