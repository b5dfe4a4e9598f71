"""Pure parts of the conformance engine: comparison, index, diff, page, agreement (policy
files and configuration: ``test_compare_policy.py``)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from mlrelease.errors import UserError
from mlrelease.ops import agreement, diff, index, policy, render
from mlrelease.ops.cases import CaseSummary
from mlrelease.ops.compare import compare
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict, dominant

# --- compare ------------------------------------------------------------------------------


def test_equal_outputs_pass_with_no_error() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    result = compare([x], [x.copy()], rtol=1e-3, atol=1e-7)
    assert result.ok and result.max_abs_error == 0 and result.tolerance_ratio == 0


def test_mismatch_names_the_output_and_measures_the_worst_errors() -> None:
    want = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    have = np.array([1.0, 2.1, 4.0], dtype=np.float32)
    result = compare([want, want], [want, have], rtol=1e-3, atol=1e-7)
    assert not result.ok
    assert result.message.startswith("output 1: 1 of 3 values beyond rtol=0.001")
    assert result.max_abs_error == pytest.approx(0.1, rel=1e-5)
    assert result.max_rel_error == pytest.approx(0.05, rel=1e-4)
    assert result.tolerance_ratio > 1


@pytest.mark.parametrize("seed", range(5))
def test_verdict_matches_numpy_assert_allclose(seed: int) -> None:
    """The rule is onnx's (np.testing.assert_allclose); only the reporting differs."""
    rng = np.random.default_rng(seed)
    want = rng.standard_normal(200).astype(np.float32)
    for scale in (1e-5, 5e-4, 1e-3, 2e-3, 1e-1):
        have = (want * (1 + scale * rng.standard_normal(200))).astype(np.float32)
        try:
            np.testing.assert_allclose(have, want, rtol=1e-3, atol=1e-7)
            expected = True
        except AssertionError:
            expected = False
        result = compare([want], [have], rtol=1e-3, atol=1e-7)
        assert result.ok is expected
        assert (result.tolerance_ratio <= 1) is expected


def test_nan_equals_nan_but_not_a_number() -> None:
    want = np.array([np.nan, 1.0], dtype=np.float32)
    assert compare([want], [want.copy()], 1e-3, 1e-7).ok
    result = compare([want], [np.array([0.0, 1.0], dtype=np.float32)], 1e-3, 1e-7)
    assert not result.ok and result.max_abs_error == float("inf")


@pytest.mark.parametrize(
    ("have", "message"),
    [
        ([np.zeros((2, 2), np.float32)], "output 0: shape (2, 2), expected (4,)"),
        ([np.zeros(4, np.float64)], "output 0: dtype float64, expected float32"),
        ([], "0 outputs, expected 1"),
        ([None], "output 0: got NoneType, expected a tensor"),
    ],
)
def test_structure_mismatches_are_wrong_results(have: list[object], message: str) -> None:
    result = compare([np.zeros(4, np.float32)], have, 1e-3, 1e-7)
    assert not result.ok and result.message == message


def test_strings_sequences_and_optionals() -> None:
    words = np.array(["a", "b"], dtype=object)
    assert compare([words], [np.array(["a", "b"], dtype=object)], 1e-3, 1e-7).ok
    assert "values differ" in compare([words], [np.array(["a", "c"], dtype=object)], 0, 0).message
    seq = [np.ones(2, np.float32), np.zeros(3, np.float32)]
    assert compare([seq], [[s.copy() for s in seq]], 1e-3, 1e-7).ok
    assert compare([seq], [seq[:1]], 1e-3, 1e-7).message == "output 0: sequence of 1, expected 2"
    assert compare([None], [None], 1e-3, 1e-7).ok


def test_bfloat16_is_compared_at_two_ulps() -> None:
    want = np.array([1.0, 2.0], dtype=ml_dtypes.bfloat16)
    have = np.array([1.0078125, 2.0], dtype=ml_dtypes.bfloat16)  # one bfloat16 ULP above 1
    assert compare([want], [have], rtol=1e-3, atol=1e-7).ok


def test_structure_only_comparison_for_random_ops() -> None:
    want = np.array([0, 1, 1], dtype=np.float32)
    assert compare([want], [np.array([1, 0, 0], np.float32)], 1e-3, 1e-7, values=False).ok
    assert not compare([want], [np.array([1, 0], np.float32)], 1e-3, 1e-7, values=False).ok


# --- verdicts and the index ---------------------------------------------------------------


def test_dominant_reason_is_most_frequent_then_most_severe() -> None:
    assert dominant([ConformanceVerdict.PASS, ConformanceVerdict.PASS]) is None
    assert dominant(
        [
            ConformanceVerdict.NOT_IMPLEMENTED,
            ConformanceVerdict.NOT_IMPLEMENTED,
            ConformanceVerdict.CRASH,
        ]
    ) is (ConformanceVerdict.NOT_IMPLEMENTED)
    assert (
        dominant(
            [ConformanceVerdict.NOT_IMPLEMENTED, ConformanceVerdict.CRASH, ConformanceVerdict.PASS]
        )
        is ConformanceVerdict.CRASH
    )


DEFINED = [
    index.OpVersion("ai.onnx", "Abs", 6),
    index.OpVersion("ai.onnx", "Abs", 13),
    index.OpVersion("ai.onnx", "Relu", 14),
    index.OpVersion("ai.onnx.ml", "Binarizer", 1),
    index.OpVersion("ai.onnx", "Scatter", 11, deprecated=True),
]
CASES = [
    CaseSummary("test_abs", "ai.onnx", "Abs", 13, False),
    CaseSummary("test_relu", "ai.onnx", "Relu", 14, False),
    CaseSummary("test_relu_2", "ai.onnx", "Relu", 14, False),
    CaseSummary("test_relu_expanded", "ai.onnx", "Relu", 14, True),
    CaseSummary("test_swish", "com.example", "Swish", 1, False),
]
HEADERS = [{"name": "rt"}, {"name": "ref"}]


def _verdicts(**overrides: ConformanceVerdict) -> dict[tuple[str, str], ConformanceVerdict]:
    out = {(c.name, b["name"]): ConformanceVerdict.PASS for c in CASES for b in HEADERS}
    for key, verdict in overrides.items():
        case, backend = key.rsplit("__", 1)
        out[(case, backend)] = verdict
    return out


def _build(
    verdicts: dict[tuple[str, str], ConformanceVerdict],
    known: frozenset[str] = frozenset(),
    cases: list[CaseSummary] = CASES,
) -> dict[str, Any]:
    return index.build(
        onnx_version="1.23.2",
        case_sets=["demo"],
        defined=DEFINED,
        cases=cases,
        backends=HEADERS,
        verdicts=verdicts,
        known=lambda c, b: f"{c}:{b}" in known,
    )


def _version(built: dict[str, Any], op: str, since: int) -> dict[str, Any]:
    found = next(o for o in built["ops"] if o["op_type"] == op)
    return next(v for v in found["versions"] if v["since_version"] == since)


def test_index_statuses_totals_and_known_failures() -> None:
    built = _build(
        _verdicts(
            test_relu__rt=ConformanceVerdict.WRONG_RESULT,
            test_relu_expanded__ref=ConformanceVerdict.ERROR,
        ),
        known=frozenset({"test_relu:rt"}),
    )
    assert _version(built, "Abs", 6)["backends"]["rt"] == {"status": "no_test"}
    assert _version(built, "Abs", 13)["backends"]["rt"] == {
        "status": "pass",
        "passed": 1,
        "total": 1,
    }
    relu = _version(built, "Relu", 14)
    assert relu["backends"]["rt"] == {
        "status": "fail",
        "reason": "wrong_result",
        "passed": 1,
        "total": 2,
        "known": 1,
    }
    # An expanded case is listed, counted, but does not decide the status.
    assert relu["backends"]["ref"]["status"] == "pass"
    assert relu["expanded_cases"] == {"test_relu_expanded": {"rt": "pass", "ref": "error"}}
    assert built["totals"]["rt"]["op_versions"] == {"pass": 2, "fail": 1, "no_test": 3}
    assert built["totals"]["ref"]["cases"]["error"] == 1
    assert [(o["domain"], o["op_type"]) for o in built["ops"]] == [
        ("ai.onnx", "Abs"),
        ("ai.onnx", "Relu"),
        ("ai.onnx", "Scatter"),
        ("ai.onnx.ml", "Binarizer"),
        ("com.example", "Swish"),
    ]
    assert next(o for o in built["ops"] if o["op_type"] == "Scatter")["deprecated"] is True


def test_index_text_is_deterministic_whatever_the_input_order() -> None:
    first = index.dumps(_build(_verdicts()))
    shuffled = list(CASES)
    random.Random(1).shuffle(shuffled)
    assert index.dumps(_build(_verdicts(), cases=shuffled)) == first
    assert json.loads(first) == _build(_verdicts())
    assert '"test_abs": {"rt": "pass", "ref": "pass"}' in first  # one line per case


def test_first_index_difference_names_the_op_and_the_case() -> None:
    fresh = _build(_verdicts())
    assert index.first_index_difference(fresh, json.loads(index.dumps(fresh))) is None
    edited = json.loads(index.dumps(fresh))
    _version(edited, "Relu", 14)["cases"]["test_relu_2"]["rt"] = "crash"
    _version(edited, "Relu", 14)["backends"]["rt"] = {
        "status": "fail",
        "reason": "crash",
        "passed": 1,
        "total": 2,
        "known": 0,
    }
    assert index.first_index_difference(fresh, edited) == (
        "ai.onnx Relu-14: rt: committed fail (crash), 1/2 cases pass, fresh run pass, "
        "2/2 cases pass (case test_relu_2: committed crash, fresh run pass)"
    )
    edited = json.loads(index.dumps(fresh))
    edited["onnx"] = "1.22.0"
    assert (
        index.first_index_difference(fresh, edited)
        == 'onnx: fresh run "1.23.2", committed "1.22.0"'
    )
    edited = json.loads(index.dumps(fresh))
    edited["ops"] = [o for o in edited["ops"] if o["op_type"] != "Relu"]
    assert (
        index.first_index_difference(fresh, edited)
        == "ai.onnx Relu: missing from the committed index"
    )


def test_loads_rejects_broken_or_foreign_files() -> None:
    with pytest.raises(UserError, match=r"x.json: not valid JSON \(line 1"):
        index.loads("{", "x.json")
    with pytest.raises(UserError, match="expected a supported-ops index"):
        index.loads("{}", "x.json")


def test_diff_reports_added_removed_newly_failing_and_regressions() -> None:
    old = _build(_verdicts(test_abs__rt=ConformanceVerdict.NOT_IMPLEMENTED))
    new_cases = [c for c in CASES if c.op_type != "Swish"] + [
        CaseSummary("test_gelu", "ai.onnx", "Gelu", 20, False)
    ]
    verdicts = {(c.name, b["name"]): ConformanceVerdict.PASS for c in new_cases for b in HEADERS}
    verdicts[("test_relu", "rt")] = ConformanceVerdict.WRONG_RESULT
    verdicts[("test_relu_2", "ref")] = ConformanceVerdict.CRASH
    new = _build(verdicts, cases=new_cases)
    changes = diff.diff(old, new, known=lambda c, b: (c, b) == ("test_relu_2", "ref"))
    assert changes.added == ["ai.onnx Gelu-20"]
    assert changes.removed == ["com.example Swish-1"]
    assert changes.newly_failing == [
        "ai.onnx Relu-14 on rt (wrong_result)",
        "ai.onnx Relu-14 on ref (crash)",
    ]
    assert changes.newly_passing == ["ai.onnx Abs-13 on rt"]
    assert changes.regressions == ["test_relu on rt: wrong result"]
    assert changes.known_regressions == ["test_relu_2 on ref: crash"]


def test_page_is_valid_myst_structure_with_totals_and_benchmark() -> None:
    built = _build(
        _verdicts(test_relu__rt=ConformanceVerdict.WRONG_RESULT), known=frozenset({"test_relu:rt"})
    )
    bench = {
        "measured": "2026-01-01",
        "machine": "2 CPU cores",
        "repeats": 3,
        "commands": {"ours": "a", "peer": "b"},
        "median_s": {"ours": 2.0, "peer": 20.0},
        "timings_s": {"ours": [2.0], "peer": [20.0]},
        "speedup": 10.0,
        "agreement": {
            "cases": 5,
            "agree": 4,
            "disagree": 1,
            "confusion": {"pass": {"pass": 4, "failure": 1}},
            "explained": [{"key": "k", "title": "T", "why": "W.", "cases": ["test_x"]}],
        },
    }
    page = render.render(built, source="docs/indices/supported_ops.json", benchmark=bench)
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert [h for h in headings if h.startswith("# ")] == ["# Supported operators"]
    levels = [len(h.split(" ")[0]) for h in headings]
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), headings
    assert "| Relu | 14 | ❌ wrong result 1/2 (known) | ✅ 2/2 |" in page
    assert "| Scatter (deprecated) | 11 | — | — |" in page
    assert "**10.0x** faster" in page and "- **T** (1): W. Cases: `test_x`." in page
    assert render.render(built, source="docs/indices/supported_ops.json", benchmark=bench) == page


# --- agreement with the peer -------------------------------------------------------------


JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="t.OnnxBackendNodeModelTest" name="test_abs_cpu" time="0.01"/>
<testcase classname="t.OnnxBackendNodeModelTest" name="test_abs_cuda" time="0.0">
  <skipped type="pytest.skip" message="Backend doesn't support device CUDA"/></testcase>
<testcase classname="t.OnnxBackendNodeModelTest" name="test_clip_cpu" time="0.01">
  <failure message="RuntimeError: Unable to handle object of type &lt;class 'numpy.float32'&gt;"
  >x</failure></testcase>
<testcase classname="t.OnnxBackendNodeModelTest" name="test_odd_cpu" time="0.01">
  <failure message="AssertionError: Not equal">x</failure></testcase>
<testcase classname="t.OnnxBackendNodeModelTest" name="test_gone_cpu" time="0.01">
  <error message="boom">x</error></testcase>
</testsuite></testsuites>"""


def test_agreement_explains_disagreements_and_flags_the_rest() -> None:
    peer = agreement.read_junit(JUNIT)
    assert peer["test_abs"] == agreement.PeerOutcome("pass")
    assert peer["test_gone"].outcome == "error" and "test_abs_cuda" not in peer
    ours = {
        name: CaseResult(name, "onnxruntime-cpu", ConformanceVerdict.PASS)
        for name in ("test_abs", "test_clip", "test_odd")
    }
    ours["test_gone"] = CaseResult("test_gone", "onnxruntime-cpu", ConformanceVerdict.ERROR)
    result = agreement.compare(ours, peer, {}, policy.Policy())
    assert (result["cases"], result["agree"], result["disagree"]) == (4, 2, 2)
    assert [(g["key"], g["cases"]) for g in result["explained"]] == [
        ("numpy-scalar-inputs", ["test_clip"]),
        ("unexplained", ["test_odd"]),
    ]
    assert result["unexplained"][0]["peer_message"] == "AssertionError: Not equal"
    assert result["confusion"] == {"pass": {"failure": 2, "pass": 1}, "error": {"error": 1}}
