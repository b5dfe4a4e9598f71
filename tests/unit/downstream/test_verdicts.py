"""The comparison table of :mod:`mlrelease.downstream.verdicts` (crater's, autopkgtest's)."""

from __future__ import annotations

import pytest

from mlrelease.downstream.verdicts import (
    RUN,
    CaseOutcome,
    CaseResult,
    SideRun,
    Verdict,
    compare,
    confirm,
    suspects,
)

P, F, E, S = CaseOutcome.PASSED, CaseOutcome.FAILED, CaseOutcome.ERROR, CaseOutcome.SKIPPED


def side(
    *tests: tuple[str, CaseOutcome], run: CaseOutcome = P, errors: dict[str, str] | None = None
) -> SideRun:
    found = {n: CaseResult(n, o, f"{n} {o.value}") for n, o in tests}
    found[RUN] = CaseResult(RUN, run, "killed" if run is F else "")
    return SideRun(found, errors or {})


@pytest.mark.parametrize(
    ("baseline", "candidate", "verdict"),
    [
        (P, F, Verdict.REGRESSED),
        (P, E, Verdict.REGRESSED),
        (F, P, Verdict.FIXED),
        (E, P, Verdict.FIXED),
        (F, F, Verdict.BROKEN),
        (E, F, Verdict.BROKEN),
        (P, P, Verdict.PASSED),
        (S, F, Verdict.SKIPPED),
        (P, S, Verdict.SKIPPED),
    ],
)
def test_pairs(baseline: CaseOutcome, candidate: CaseOutcome, verdict: Verdict) -> None:
    (found,) = compare(side(("t::a", baseline)), side(("t::a", candidate)))
    assert found.verdict is verdict
    assert (found.baseline, found.candidate) == (baseline, candidate)


def test_new_gone_and_not_run() -> None:
    found = {v.nodeid: v.verdict for v in compare(side(("t::old", P)), side(("t::new", P)))}
    assert found == {"t::new": Verdict.NEW, "t::old": Verdict.GONE}
    killed = compare(side(("t::a", P), ("t::b", P)), side(("t::a", P), run=F))
    assert {v.nodeid: v.verdict for v in killed} == {
        RUN: Verdict.REGRESSED,
        "t::a": Verdict.PASSED,
        "t::b": Verdict.NOT_RUN,
    }


def test_a_module_that_no_longer_imports_regresses_each_of_its_tests() -> None:
    base = side(("tests/test_m.py::test_a", P), ("tests/test_m.py::test_b", P))
    cand = side(errors={"tests/test_m.py": "ImportError: cannot import name 'make_x'"})
    found = {v.nodeid: v for v in compare(base, cand)}
    assert found["tests/test_m.py"].verdict is Verdict.REGRESSED
    assert found["tests/test_m.py::test_a"].verdict is Verdict.REGRESSED
    assert "cannot import name 'make_x'" in found["tests/test_m.py::test_b"].message
    both = compare(side(errors={"tests/test_m.py": "x"}), side(errors={"tests/test_m.py": "x"}))
    assert [v.verdict for v in both] == [Verdict.BROKEN]


def test_confirmed_regression_and_flaky_ones() -> None:
    first = compare(side(("t::real", P), ("t::flaky", P)), side(("t::real", F), ("t::flaky", F)))
    assert suspects(first) == ["t::flaky", "t::real"]
    base_again = side(("t::real", P), ("t::flaky", P))
    cand_again = side(("t::real", F), ("t::flaky", P))
    final = {v.nodeid: v for v in confirm(first, [base_again], [cand_again])}
    assert final["t::real"].verdict is Verdict.REGRESSED
    assert final["t::real"].note == "confirmed by 1 re-run"
    assert final["t::flaky"].verdict is Verdict.SPURIOUS
    assert "re-run on the candidate disagreed" in final["t::flaky"].note


def test_a_fix_that_fails_on_the_baseline_rerun_only_once_is_spurious() -> None:
    first = compare(side(("t::a", F)), side(("t::a", P)))
    final = confirm(first, [side(("t::a", P))], [side(("t::a", P))])
    assert final[0].verdict is Verdict.SPURIOUS
    assert "re-run on the baseline disagreed" in final[0].note


def test_every_rerun_must_agree() -> None:
    first = compare(side(("t::a", P)), side(("t::a", F)))
    agree = [side(("t::a", F)), side(("t::a", F))]
    assert confirm(first, [side(("t::a", P))] * 2, agree)[0].verdict is Verdict.REGRESSED
    flip = [side(("t::a", F)), side(("t::a", P))]
    assert confirm(first, [side(("t::a", P))] * 2, flip)[0].verdict is Verdict.SPURIOUS


def test_round_trip() -> None:
    run = side(("t::a", P), errors={"m.py": "boom"})
    assert SideRun.from_dict(run.to_dict()).to_dict() == run.to_dict()
