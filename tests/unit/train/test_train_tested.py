"""The verdict of a member's tests against an upstream candidate, read from the downstream
feature's result (pure): compared, only a confirmed regression counts; not compared, every
failure counts; a candidate side that did not run is ``not run``."""

from __future__ import annotations

from mlrelease.downstream.results import COMPARED, ERROR, NOT_INSTALLED, ConsumerResult
from mlrelease.downstream.verdicts import CaseOutcome, CaseVerdict, PairVerdict
from mlrelease.train import tested

PASS, FAIL = CaseOutcome.PASSED, CaseOutcome.FAILED
INSTALLED = tested.Installed(
    "torch-2.5.0-py3-none-any.whl",
    "a" * 64,
    "vision-0.20.0-py3-none-any.whl",
    "b" * 64,
    "torch 2.4.1 (torch-2.4.1-py3-none-any.whl, sha256 ...)",
    "3.12.7",
    folder="test",
)


def result(*verdicts: CaseVerdict, **fields: object) -> ConsumerResult:
    values: dict[str, object] = {"status": COMPARED, **fields, "verdicts": list(verdicts)}
    return ConsumerResult("vision", **values)  # type: ignore[arg-type]


REGRESSED = CaseVerdict(
    "test_ops.py::test_nms", PairVerdict.REGRESSED, PASS, FAIL, "x\nE   AttributeError: nms\n"
)
BROKEN = CaseVerdict("test_ops.py::test_old", PairVerdict.BROKEN, FAIL, FAIL, "always")
PASSED = CaseVerdict("test_ops.py::test_roi", PairVerdict.PASSED, PASS, PASS)


def test_compared_only_a_confirmed_regression_counts() -> None:
    found = tested.verdict(INSTALLED, result(REGRESSED, BROKEN, PASSED))
    assert (found.verdict, found.tests) == ("failed", 3)
    assert found.failing == ("test/test_ops.py::test_nms: AttributeError: nms",)
    spurious = CaseVerdict("test_ops.py::test_nms", PairVerdict.SPURIOUS, PASS, FAIL, "flaky")
    found = tested.verdict(INSTALLED, result(spurious, BROKEN, PASSED))
    assert (found.verdict, found.failing, found.baseline) == ("passed", (), INSTALLED.baseline)


def test_not_compared_every_failure_counts() -> None:
    alone = tested.Installed(**{**vars(INSTALLED), "baseline": "", "note": "the train's first"})
    new = CaseVerdict("test_ops.py::test_old", PairVerdict.NEW, None, FAIL, "always")
    found = tested.verdict(alone, result(new, PASSED))
    assert found.verdict == "failed" and found.failing == ("test/test_ops.py::test_old: always",)
    assert found.note == "the train's first"


def test_a_baseline_whose_tests_did_not_run_compares_nothing() -> None:
    unverified = {"baseline": {"why": "collection error in test_ops.py", "reproduce": "cd x"}}
    found = tested.verdict(INSTALLED, result(BROKEN, PASSED, unverified=unverified))
    assert found.verdict == "failed" and found.baseline == ""
    assert "no regression comparison was possible" in found.note
    assert "collection error in test_ops.py" in found.note


def test_a_candidate_side_that_did_not_run_is_not_run() -> None:
    unverified = {"candidate": {"why": "zero tests collected", "reproduce": "cd t && pytest"}}
    found = tested.verdict(INSTALLED, result(unverified=unverified))
    assert (found.verdict, found.tests) == ("not run", 0)
    assert found.why == "zero tests collected (to reproduce: cd t && pytest)"
    install = {"candidate": "No solution found"}
    why = {
        "candidate": {"why": "could not install: Because pytest was not found.", "reproduce": ""}
    }
    found = tested.verdict(INSTALLED, result(status=NOT_INSTALLED, install=install, unverified=why))
    assert found.why == "the environment could not be made: Because pytest was not found"
    found = tested.verdict(INSTALLED, result(status=ERROR, error="no such ref"))
    assert (found.verdict, found.why) == ("not run", "no such ref")
