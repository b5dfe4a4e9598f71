"""The comparison table of :mod:`mlrelease.downstream.verdicts` (crater's, autopkgtest's)."""

from __future__ import annotations

import pytest

from mlrelease.downstream.verdicts import (
    RUN,
    CaseOutcome,
    PairVerdict,
    SideResult,
    SideRun,
    compare,
    confirm,
    counts,
    levels,
    rounds,
    suspects,
)

P, F, E, S = CaseOutcome.PASSED, CaseOutcome.FAILED, CaseOutcome.ERROR, CaseOutcome.SKIPPED


def side(
    *tests: tuple[str, CaseOutcome], run: CaseOutcome = P, errors: dict[str, str] | None = None
) -> SideRun:
    found = {n: SideResult(n, o, f"{n} {o.value}") for n, o in tests}
    found[RUN] = SideResult(RUN, run, "killed" if run is F else "")
    return SideRun(found, errors or {})


@pytest.mark.parametrize(
    ("baseline", "candidate", "verdict"),
    [
        (P, F, PairVerdict.REGRESSED),
        (P, E, PairVerdict.REGRESSED),
        (F, P, PairVerdict.FIXED),
        (E, P, PairVerdict.FIXED),
        (F, F, PairVerdict.BROKEN),
        (E, F, PairVerdict.BROKEN),
        (P, P, PairVerdict.PASSED),
        (S, F, PairVerdict.SKIPPED),
        (P, S, PairVerdict.SKIPPED),
    ],
)
def test_pairs(baseline: CaseOutcome, candidate: CaseOutcome, verdict: PairVerdict) -> None:
    (found,) = compare(side(("t::a", baseline)), side(("t::a", candidate)))
    assert found.verdict is verdict
    assert (found.baseline, found.candidate) == (baseline, candidate)


def test_new_gone_and_not_run() -> None:
    found = {v.nodeid: v.verdict for v in compare(side(("t::old", P)), side(("t::new", P)))}
    assert found == {"t::new": PairVerdict.NEW, "t::old": PairVerdict.GONE}
    killed = compare(side(("t::a", P), ("t::b", P)), side(("t::a", P), run=F))
    assert {v.nodeid: v.verdict for v in killed} == {
        RUN: PairVerdict.REGRESSED,
        "t::a": PairVerdict.PASSED,
        "t::b": PairVerdict.NOT_RUN,
    }


def test_a_module_that_no_longer_imports_regresses_each_of_its_tests() -> None:
    base = side(("tests/test_m.py::test_a", P), ("tests/test_m.py::test_b", P))
    cand = side(errors={"tests/test_m.py": "ImportError: cannot import name 'make_x'"})
    found = {v.nodeid: v for v in compare(base, cand)}
    assert found["tests/test_m.py"].verdict is PairVerdict.REGRESSED
    assert found["tests/test_m.py::test_a"].verdict is PairVerdict.REGRESSED
    assert "cannot import name 'make_x'" in found["tests/test_m.py::test_b"].message
    both = compare(side(errors={"tests/test_m.py": "x"}), side(errors={"tests/test_m.py": "x"}))
    assert [v.verdict for v in both] == [PairVerdict.BROKEN]


def test_a_run_that_failed_before_any_test_classifies_the_other_sides_tests() -> None:
    """The candidate's conftest does not import: each test the baseline ran is judged against
    that failure (the issue's tf2onnx run: 5 regressed, 1 broken both, 1 skipped)."""
    base = side(("t::a", P), ("t::b", F), ("t::c", S))
    cand = SideRun({RUN: SideResult(RUN, F, "pytest ended with a usage error\nImportError")})
    found = {v.nodeid: v for v in compare(base, cand)}
    assert found["t::a"].verdict is PairVerdict.REGRESSED
    assert (
        found["t::a"].message == "the run failed before any test: pytest ended with a usage error"
    )
    assert (found["t::b"].verdict, found["t::c"].verdict) == (
        PairVerdict.BROKEN,
        PairVerdict.SKIPPED,
    )
    assert found[RUN].verdict is PairVerdict.REGRESSED


def test_confirmed_regression_and_flaky_ones() -> None:
    first = compare(side(("t::real", P), ("t::flaky", P)), side(("t::real", F), ("t::flaky", F)))
    assert suspects(first) == ["t::flaky", "t::real"]
    base_again = side(("t::real", P), ("t::flaky", P))
    cand_again = side(("t::real", F), ("t::flaky", P))
    final = {v.nodeid: v for v in confirm(first, [base_again], [cand_again])}
    assert final["t::real"].verdict is PairVerdict.REGRESSED
    assert final["t::real"].note.startswith("confirmed by 1 re-run of both sides")
    assert final["t::flaky"].verdict is PairVerdict.SPURIOUS
    assert final["t::flaky"].note == (
        "flaky: the candidate failed 1 of 2 runs, the baseline passed 2 of 2"
    )


def test_a_fix_that_fails_on_the_baseline_rerun_only_once_is_spurious() -> None:
    first = compare(side(("t::a", F)), side(("t::a", P)))
    final = confirm(first, [side(("t::a", P))], [side(("t::a", P))])
    assert final[0].verdict is PairVerdict.SPURIOUS
    assert final[0].note == "flaky: the candidate passed 2 of 2 runs, the baseline failed 1 of 2"


def test_every_rerun_must_agree() -> None:
    first = compare(side(("t::a", P)), side(("t::a", F)))
    agree = [side(("t::a", F)), side(("t::a", F))]
    assert confirm(first, [side(("t::a", P))] * 2, agree)[0].verdict is PairVerdict.REGRESSED
    flip = [side(("t::a", F)), side(("t::a", P))]
    assert confirm(first, [side(("t::a", P))] * 2, flip)[0].verdict is PairVerdict.SPURIOUS


def test_a_difference_needs_as_many_agreeing_rounds_as_the_confidence_asks() -> None:
    assert [rounds(c) for c in (0.75, 0.9, 0.99, 0.999)] == [1, 2, 4, 5]
    assert rounds(0.999, at_least=7) == 7
    first = compare(side(("t::a", P)), side(("t::a", F)))
    short = confirm(first, [side(("t::a", P))] * 4, [side(("t::a", F))] * 4, needed=5)
    assert short[0].verdict is PairVerdict.SPURIOUS  # too few rounds is never a verdict
    enough = confirm(first, [side(("t::a", P))] * 5, [side(("t::a", F))] * 5, needed=5)
    assert enough[0].verdict is PairVerdict.REGRESSED


def test_tests_are_counted_apart_from_modules_and_the_run() -> None:
    base = side(("tests/test_m.py::test_a", P), ("tests/test_m.py::test_b", P))
    cand = side(errors={"tests/test_m.py": "ImportError"}, run=F)
    found = compare(base, cand)
    assert counts(found)[PairVerdict.REGRESSED] == 2
    assert sorted(v.nodeid for v in levels(found)) == [RUN, "tests/test_m.py"]


def test_round_trip() -> None:
    run = side(("t::a", P), errors={"m.py": "boom"})
    assert SideRun.from_dict(run.to_dict()).to_dict() == run.to_dict()
