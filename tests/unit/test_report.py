"""Reports: JSON schema, JUnit, Markdown, shard merging."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from mlrelease import report
from mlrelease.errors import UserError
from mlrelease.gates import GateResult, Status

SHA = "0" * 40


def make(
    results: list[GateResult], gates: list[str] | None = None, **kwargs: object
) -> report.Report:
    return report.Report(
        project="demo",
        version="1.0.0",
        commit=SHA,
        gates=gates or [r.name for r in results],
        results=results,
        **kwargs,  # type: ignore[arg-type]
    )


def result(name: str, status: Status, summary: str = "s", **kwargs: object) -> GateResult:
    return GateResult(status, summary, name=name, duration_s=0.5, **kwargs)  # type: ignore[arg-type]


RESULTS = [
    result("a", Status.PASS),
    result("b", Status.FAIL, "bad | value", details=["file x line 3"]),
    result("c", Status.SKIP, "no CUDA device"),
    result("d", Status.ERROR, "RuntimeError: boom", evidence=["build/log.txt"]),
]


def test_json_validates_against_schema() -> None:
    schema = json.loads(report.SCHEMA_PATH.read_text(encoding="utf-8"))
    data = make(RESULTS).to_dict()
    jsonschema.validate(data, schema)
    assert data["verdict"] == "fail"
    assert data["counts"] == {"pass": 1, "fail": 1, "skip": 1, "error": 1}
    broken = dict(data, verdict="maybe")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_junit_is_read_by_a_junit_parser(tmp_path: Path) -> None:
    paths = report.write(make(RESULTS), tmp_path)
    xml = JUnitXml.fromfile(str(paths["junit"]))
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 1, 1)
    cases = {case.name: case for case in suite}
    assert cases["a"].is_passed
    assert isinstance(cases["b"].result[0], Failure)
    assert cases["b"].result[0].message == "bad | value"
    assert isinstance(cases["c"].result[0], Skipped)
    assert isinstance(cases["d"].result[0], Error)


def test_markdown_escapes_and_lists_details() -> None:
    text = report.to_markdown(make(RESULTS))
    assert "FAIL: the release must not ship" in text
    assert "bad \\| value" in text
    assert "- file x line 3" in text and "- evidence: `build/log.txt`" in text


def test_step_summary_is_appended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    report.write(make(RESULTS[:1]), tmp_path / "out")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n") and "PASS: the release may ship" in text


def test_merge_restores_configured_order(tmp_path: Path) -> None:
    gates = [r.name for r in RESULTS]
    one = make([RESULTS[0], RESULTS[2]], gates=gates, shard=(1, 2))
    two = make([RESULTS[1], RESULTS[3]], gates=gates, shard=(2, 2))
    merged = report.merge([two, one])
    assert [r.name for r in merged.results] == gates
    assert merged.shard is None and merged.verdict == "fail"
    round_trip = report.read(report.write(merged, tmp_path)["json"])
    assert [r.to_dict() for r in round_trip.results] == [r.to_dict() for r in merged.results]


def test_merge_refusals() -> None:
    gates = ["a", "b"]
    a = make([result("a", Status.PASS)], gates=gates)
    with pytest.raises(UserError, match="no shard reported b"):
        report.merge([a])
    with pytest.raises(UserError, match="reported by two shards"):
        report.merge([a, a, make([result("b", Status.PASS)], gates=gates)])
    other = report.Report("demo", "1.0.0", "1" * 40, gates, [result("b", Status.PASS)])
    with pytest.raises(UserError, match="disagree on commit"):
        report.merge([a, other])


def test_read_rejects_other_schema_versions(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"schema_version": 99}), encoding="utf-8")
    with pytest.raises(UserError, match="schema_version 99 is not supported"):
        report.read(path)


def test_report_ends_with_setup_and_gate_timings(tmp_path: Path) -> None:
    setup = report.setup_steps('{"venv": 1.25, "install": 40}')
    data = make(RESULTS[:2], setup=setup)
    text = report.to_markdown(data)
    timings = text[text.index("## Timings") :]
    assert text.rstrip().endswith(timings.rstrip())
    assert [line.split("|")[1].strip() for line in timings.splitlines()[4:]] == [
        "environment set-up: venv",
        "environment set-up: install",
        "gate `a`",
        "gate `b`",
        "total",
    ]
    assert "| 42.2 s |" in timings  # 1.25 + 40 + 0.5 + 0.5
    json_path = report.write(data, tmp_path)["json"]
    schema = json.loads(report.SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(json_path.read_text(encoding="utf-8")), schema)
    assert report.read(json_path).setup == setup


def test_merged_shards_keep_each_shards_setup() -> None:
    gates = ["a", "b"]
    one = make([RESULTS[0]], gates=gates, shard=(1, 2), setup=report.setup_steps('{"venv": 2}'))
    two = make([RESULTS[1]], gates=gates, shard=(2, 2), setup=report.setup_steps('{"venv": 3}'))
    merged = report.merge([one, two])
    assert [(s.name, s.duration_s) for s in merged.setup] == [
        ("shard 1/2: venv", 2.0),
        ("shard 2/2: venv", 3.0),
    ]


@pytest.mark.parametrize("text", ["[1, 2]", '{"venv": "fast"}', '{"venv": -1}', "{oops"])
def test_unreadable_setup_times_are_named(text: str) -> None:
    with pytest.raises(UserError, match=r"\$MLRELEASE_SETUP_TIMES: expected a JSON object"):
        report.setup_steps(text)
