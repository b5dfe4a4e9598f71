"""Merging shards, judging regressions against the known-failures list, rendering."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

import pytest

from mlrelease.downstream import known, render, results
from mlrelease.downstream.results import ConsumerResult, RunResults
from mlrelease.downstream.verdicts import CaseOutcome, CaseVerdict, PairVerdict
from mlrelease.errors import UserError

TODAY = dt.date(2026, 11, 24)


def regressed(nodeid: str, message: str = "E boom") -> CaseVerdict:
    return CaseVerdict(
        nodeid, PairVerdict.REGRESSED, CaseOutcome.PASSED, CaseOutcome.FAILED, message
    )


def run(*consumers: ConsumerResult, shard: tuple[int, int] | None = None) -> RunResults:
    return RunResults("onnx", "onnx 1.23.0", ["a.whl 00"], "onnx 1.22.0", "3.11.7",
                      ["a", "b"], list(consumers), shard)  # fmt: skip


def test_merge_joins_shards_and_refuses_what_is_not_one_run() -> None:
    a, b = ConsumerResult("a"), ConsumerResult("b")
    merged = results.merge([run(b, shard=(2, 2)), run(a, shard=(1, 2))])
    assert [r.name for r in merged.results] == ["a", "b"] and merged.shard is None
    with pytest.raises(UserError, match="no shard has b"):
        results.merge([run(a)])
    with pytest.raises(UserError, match="is in two shards"):
        results.merge([run(a), run(a, b)])
    other = run(b)
    other.baseline = "onnx 1.21.0"
    with pytest.raises(UserError, match="disagree on baseline"):
        results.merge([run(a), other])


def test_judge_blocks_unknown_regressions_and_install_regressions() -> None:
    a = ConsumerResult("a", verdicts=[regressed("t::x"), regressed("t::y")])
    b = ConsumerResult("b", status=results.NOT_INSTALLED, install={"candidate": "Because ..."})
    c = ConsumerResult(
        "c", status=results.NOT_INSTALLED, install={"baseline": "x", "candidate": "x"}
    )
    entry = known.KnownTestFailure("a", "t::y", "@rm", "upstream bug", dt.date(2026, 12, 1))
    judgement = results.judge(run(a, b, c), [entry], TODAY)
    assert [(f.consumer.name, f.nodeid) for f in judgement.blocking] == [
        ("a", "t::x"),
        ("b", "<install>"),
    ]
    assert [f.nodeid for f in judgement.accepted] == ["t::y"]
    assert not judgement.ok


def test_render_is_safe_for_third_party_text() -> None:
    assert render.code("a `b` c") == "``a `b` c``"
    assert render.code("`x`") == "`` `x` ``"
    assert render.block("x\n```\ny")[0] == "````"
    nasty = regressed("t::a|b", "E ```\nE </failure><x>")
    r = ConsumerResult("a", verdicts=[nasty], owner="@o")
    judgement = results.judge(run(r), [], TODAY)
    page = render.page(run(r), judgement)
    assert "t::a\\|b" in page or "`t::a|b`" in page
    root = ET.fromstring(render.junit(run(r), judgement))
    (failure,) = root.iter("failure")
    assert "</failure><x>" in (failure.text or "")
    lines = render.gate_details(run(r), judgement)
    assert all("\n" not in line for line in lines)
    assert any("regressed: **a** `t::a|b` (@o)" in line for line in lines)
    assert render.summary(run(r), judgement).startswith("1 consumer, 1 regressed test, 0 spurious")


def test_a_declared_flaky_test_is_never_a_verdict_until_its_entry_expires() -> None:
    entry = known.KnownTestFailure(
        "a", "t::x", "@dev", "seeds from the clock", dt.date(2026, 12, 1), known.FLAKY
    )
    live = run(ConsumerResult("a", verdicts=[regressed("t::x")]))
    judgement = results.judge(live, [entry], TODAY)
    assert judgement.ok and not judgement.blocking
    (v,) = live.results[0].verdicts
    assert v.verdict is PairVerdict.SPURIOUS and v.note.startswith("declared flaky: @dev")
    late = run(ConsumerResult("a", verdicts=[regressed("t::x")]))
    judgement = results.judge(late, [entry], dt.date(2026, 12, 2))
    assert [f.nodeid for f in judgement.blocking] == ["t::x"]
    assert "declared flaky test a `t::x` expired on 2026-12-01 (@dev)" in judgement.notes


def test_not_verified_fails_unless_optional_and_says_side_why_and_how() -> None:
    why = {"candidate": {"why": "crashed with SIGSEGV", "reproduce": "cd x && py -m pytest"}}
    a = ConsumerResult("a", unverified=dict(why))
    b = ConsumerResult("b", unverified=dict(why), optional=True)
    c = ConsumerResult("c", status=results.NOT_INSTALLED, install={"candidate": "Because"})
    judgement = results.judge(run(a, b, c), [], TODAY)
    assert [r.name for r in judgement.unverified] == ["a"]
    assert "optional consumer b not verified (candidate)" in judgement.notes
    assert not judgement.ok
    assert render.headline(judgement).endswith("not verified: a (candidate)")
    lines = render.gate_details(run(a, b, c), judgement)
    assert (
        "not verified: **a** candidate: `crashed with SIGSEGV`; reproduce: `cd x && py -m pytest`"
        in lines
    )
    root = ET.fromstring(render.junit(run(a, b, c), judgement))
    failed = [str(t.get("name")) for t in root.iter("testcase") if t.find("failure") is not None]
    assert failed == ["<not verified: candidate>", "<install>"]
    errored = ConsumerResult("d", status=results.ERROR, error="no sdist")
    assert results.judge(run(errored), [], TODAY).unverified == [errored]
