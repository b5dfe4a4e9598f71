"""The ``downstream`` gate in ``mlrelease verify`` (Markdown, JUnit, step summary; the
known-failures list) and the commands: ``run --shard``, ``matrix``, ``report merge``."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import downstream as planted
from helpers.downstream import World

from mlrelease.cli import main
from mlrelease.downstream.results import RunResults

REGRESSED = "tests/test_behaviour.py::test_model_adds"


def _known(root: Path, entries: list[tuple[str, str, str]]) -> None:
    lines = []
    for consumer, test, expires in entries:
        lines += [
            "[[failure]]", f'consumer = "{consumer}"', f'test = "{test}"',
            'owner = "@release-manager"', 'reason = "planted in the test"', f"expires = {expires}",
            "",
        ]  # fmt: skip
    (root / "ci").mkdir(exist_ok=True)
    (root / "ci" / "downstream_known_failures.toml").write_text("\n".join(lines), encoding="utf-8")


def test_gate_fails_on_the_regression_and_reports_it_everywhere(
    world: World, paired: RunResults, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = planted.project(world, "gate-fails")
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["--root", str(root), "verify"]) == 1
    report = root / "build" / "release-verify"
    md = (report / "report.md").read_text(encoding="utf-8")
    assert "FAIL: the release must not ship" in md
    assert f"`{REGRESSED}`" in md and "@consumer-dev" in md
    assert "the model computed [0.0, 0.0]" in md
    assert "\n- |" not in md and "\n- ```" not in md  # items, not a broken table or fence
    assert "pinned" in md and "mlrdsx-onnxlib<1.1" in md
    assert md in summary.read_text(encoding="utf-8")
    case = ET.parse(report / "junit.xml").getroot().find(".//testcase[@name='downstream']")
    assert case is not None and case.find("failure") is not None
    assert REGRESSED in (case.find("failure").text or "")  # type: ignore[union-attr]
    evidence = report / "evidence" / "downstream"
    per_test = ET.parse(evidence / "junit.xml").getroot()
    failed = [
        str(c.get("name")) for c in per_test.iter("testcase") if c.find("failure") is not None
    ]
    assert sorted(failed) == ["<install>", REGRESSED]


def test_known_failures_with_owner_and_expiry(world: World, paired: RunResults) -> None:
    root = planted.project(world, "gate-known")
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    _known(root, [("consumer", "tests/test_behaviour.py::*", tomorrow), ("pinned", "*", tomorrow)])
    assert main(["--root", str(root), "verify"]) == 0
    md = (root / "build" / "release-verify" / "report.md").read_text(encoding="utf-8")
    assert (
        "1 regressed test (1 known), 1 install regression (1 known)" in md
        and "@release-manager: planted in the test" in md
    )
    yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
    _known(root, [("consumer", "tests/test_behaviour.py::*", yesterday), ("pinned", "*", tomorrow)])
    assert main(["--root", str(root), "verify"]) == 1
    md = (root / "build" / "release-verify" / "report.md").read_text(encoding="utf-8")
    assert f"its known-failure entry expired on {yesterday}" in md


def test_shards_matrix_and_merge(
    world: World, paired: RunResults, capsys: pytest.CaptureFixture[str]
) -> None:
    root = planted.project(world, "sharded")
    assert main(["--root", str(root), "downstream", "matrix"]) == 0
    matrix = json.loads(capsys.readouterr().out)
    assert [m["shard"] for m in matrix["include"]] == ["1/2", "2/2"]
    assert sorted(m["consumers"] for m in matrix["include"]) == ["consumer", "pinned"]
    out = root / "shards"
    for shard in ("1/2", "2/2"):
        code = main(
            ["--root", str(root), "downstream", "run", "--shard", shard, "--output", str(out)]
        )
        assert code == 1  # each shard holds one of the two regressions
    files = sorted(str(p) for p in out.glob("results-*-of-2.json"))
    assert len(files) == 2
    assert main(["--root", str(root), "downstream", "report", "merge", *files]) == 1
    merged = json.loads((root / "build" / "downstream" / "results.json").read_text())
    assert [r["name"] for r in merged["results"]] == ["consumer", "pinned"]
    # The gate answers from the merged results: the same candidate files and baseline.
    assert main(["--root", str(root), "verify"]) == 1
    md = (root / "build" / "release-verify" / "report.md").read_text(encoding="utf-8")
    assert "from build/downstream/results.json" in md
    assert main(["--root", str(root), "downstream", "report", "merge", files[0]]) == 2


def test_config_mistakes_are_errors_at_load(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    root = planted.project(world, "bad-config")
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.replace('name = "pinned"', 'name = "consumer"'))
    for command in (["downstream", "list"], ["gates", "list"], ["verify"]):
        assert main(["--root", str(root), *command]) == 2
        err = capsys.readouterr().err
        assert "tool.mlrelease.downstream.consumers[1].name" in err and "also consumers[0]" in err


def test_no_candidate_yet_is_a_skip_that_says_what_to_do(world: World) -> None:
    root = planted.project(world, "no-candidate")
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.replace(str(world.candidate), "dist"))
    assert main(["--root", str(root), "verify"]) == 0
    md = (root / "build" / "release-verify" / "report.md").read_text(encoding="utf-8")
    assert "no candidate yet: dist does not exist (build the RC with `mlrelease wheels build`" in md
    assert main(["--root", str(root), "verify", "--strict"]) == 1
