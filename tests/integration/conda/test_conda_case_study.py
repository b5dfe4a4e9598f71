"""The conda-forge replay's page (docs/case-studies/onnx-conda.md) is current, meets its goal,
and explains every difference: ``scripts/case_study_conda.py --check`` over the recorded data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"


@pytest.fixture
def case_study():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(SCRIPTS))
    try:
        import case_study_conda

        yield case_study_conda
    finally:
        sys.path.remove(str(SCRIPTS))


def test_the_page_is_current_and_every_difference_is_explained(case_study) -> None:  # type: ignore[no-untyped-def]
    assert case_study.main(["--check"]) == 0


def test_an_unexplained_difference_fails_the_check(
    case_study, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    explained = dict(case_study.EXPLAINED)
    del explained[("1.21.0", "run", "numpy")]
    monkeypatch.setattr(case_study, "EXPLAINED", explained)
    assert case_study.main(["--check"]) == 1
    assert "1.21.0 run numpy: unexplained difference" in capsys.readouterr().err


def test_the_score_meets_the_goal(case_study) -> None:  # type: ignore[no-untyped-def]
    import json

    data = json.loads(case_study.DATA.read_text(encoding="utf-8"))
    fields = [f for r in data["releases"] for f in case_study.replay(r)["fields"]]
    equal = sum(1 for f in fields if f[2] == f[3])
    assert equal / len(fields) >= case_study.GOAL, (equal, len(fields))
    assert [r["version"] for r in data["releases"]] == [
        "1.18.0",
        "1.19.0",
        "1.19.1",
        "1.20.0",
        "1.21.0",
        "1.22.0",
    ]
