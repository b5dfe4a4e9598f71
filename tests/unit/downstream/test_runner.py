"""Reading the plugin's lines, the command line and the allow-listed environment of a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlrelease.downstream import runner
from mlrelease.downstream.verdicts import RUN, CaseOutcome, SideResult, SideRun


def lines(*records: dict[str, object]) -> list[str]:
    return [json.dumps(r) for r in records]


def test_phases_subtests_xfail_and_collection() -> None:
    found = runner.parse(
        [
            *lines(
                {"nodeid": "t::a", "when": "setup", "outcome": "passed"},
                {"nodeid": "t::a", "when": "call", "outcome": "passed"},
                {"nodeid": "t::a", "when": "teardown", "outcome": "passed"},
                {"nodeid": "t::b", "when": "call", "outcome": "failed", "message": "E boom"},
                {"nodeid": "t::b", "when": "teardown", "outcome": "passed"},
                {"nodeid": "t::c", "when": "setup", "outcome": "failed", "message": "E fixture"},
                {"nodeid": "t::c", "when": "teardown", "outcome": "passed"},
                {"nodeid": "t::d", "when": "call", "outcome": "skipped", "xfail": True},
                {"nodeid": "t::d", "when": "teardown", "outcome": "passed"},
                {"nodeid": "t::e", "when": "call", "outcome": "passed"},
                {"nodeid": "t::e", "when": "call", "outcome": "failed", "message": "E sub"},
                {"nodeid": "t::e", "when": "teardown", "outcome": "passed"},
                {"start": "t::killed"},
                {"nodeid": "t::killed", "when": "setup", "outcome": "passed"},
                {"collect": "tests/test_x.py", "outcome": "failed", "message": "E ImportError"},
                {"collect": "tests/test_y.py", "outcome": "skipped"},
            ),
            '{"nodeid": "t::f", "wh',  # the writer was killed mid-line
        ]
    )
    tests, errors = found.tests, found.errors
    got = {n: t.outcome for n, t in tests.items()}
    assert got == {
        "t::a": CaseOutcome.PASSED,
        "t::b": CaseOutcome.FAILED,
        "t::c": CaseOutcome.ERROR,
        "t::d": CaseOutcome.SKIPPED,
        "t::e": CaseOutcome.FAILED,
        "tests/test_y.py": CaseOutcome.SKIPPED,
    }
    assert tests["t::e"].message == "E sub"
    assert errors == {"tests/test_x.py": "E ImportError"}
    assert found.running == "t::killed"  # started, never finished: where a killed run died


def test_a_side_whose_tests_did_not_run_says_why(tmp_path: Path) -> None:
    def side(run: CaseOutcome, message: str = "", **tests: CaseOutcome) -> SideRun:
        found = {n: SideResult(n, o) for n, o in tests.items()}
        return SideRun({**found, RUN: SideResult(RUN, run, message)})

    assert runner.problem(side(CaseOutcome.PASSED, **{"t::a": CaseOutcome.PASSED}), False) == ""
    usage = side(CaseOutcome.FAILED, "pytest ended with a usage error\nImportError")
    assert runner.problem(usage, False) == "pytest ended with a usage error"
    assert runner.problem(side(CaseOutcome.PASSED), False) == "zero tests collected"
    broken = SideRun({"t::a": SideResult("t::a", CaseOutcome.PASSED)}, {"t/m.py": "E boom"})
    assert runner.problem(broken, False) == "collection error in t/m.py: E boom"
    spec = runner.RunSpec(
        python=tmp_path / "py",
        source=tmp_path / "src",
        pytest_args=("-k", "x y"),
        extra_env={"A": "1 2"},
    )
    line = runner.reproduce(spec)
    assert line == f"cd {tmp_path / 'src'} && A='1 2' {tmp_path / 'py'} -m pytest -k 'x y' tests"


def test_argv_pytest_rerun_and_smoke(tmp_path: Path) -> None:
    spec = runner.RunSpec(python=tmp_path / "python", source=tmp_path, selection=("tests",),
                          pytest_args=("-k", "not slow"))  # fmt: skip
    argv = runner.argv(spec, None)
    assert argv[0] == str(tmp_path / "python")
    assert argv[argv.index("-m") : argv.index("-m") + 4] == ["-m", "pytest", "-p", runner.PLUGIN]
    assert argv[-3:] == ["-k", "not slow", "tests"]
    assert runner.argv(spec, ["t::a"])[-1] == "t::a"
    smoke = runner.RunSpec(python=tmp_path / "py", source=tmp_path, command=("{python}", "s.py"))
    found = runner.argv(smoke, ["ignored"])
    assert found[0] == str(tmp_path / "py") and found[-1] == "s.py" and "ignored" not in found
    tool = runner.RunSpec(
        python=tmp_path / "py", source=tmp_path, command=("sh", "-c", "{python} -V")
    )
    assert runner.argv(tool, None) == ["sh", "-c", f"{tmp_path / 'py'} -V"]


def test_the_tests_never_see_the_jobs_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "secret")
    monkeypatch.setenv("PATH", "/usr/bin")
    spec = runner.RunSpec(python=tmp_path / "env" / "bin" / "python", source=tmp_path, threads=1)
    env = runner.environment(spec, tmp_path, tmp_path / "r.jsonl")
    assert "secret" not in env.values()
    assert env["HOME"] == str(tmp_path / "home")
    assert env["PATH"].startswith(str(tmp_path / "env" / "bin"))
    assert env["OMP_NUM_THREADS"] == "1"
    assert env[runner.REPORT_ENV] == str(tmp_path / "r.jsonl")
