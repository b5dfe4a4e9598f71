"""The adoption corpus's verdicts and page (``scripts/adoption_corpus_page.py``), on the
committed data: a review counts only while the step still says what was reviewed, every
review in the data files is of a recorded step, and the committed page is the rendering of
the committed results (what ``scripts/adoption_corpus.py --check`` confirms without mirrors)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))

from adoption_corpus_key import Project, Review, load
from adoption_corpus_page import (
    DIFFER,
    OUT,
    RIGHT,
    UNREVIEWED,
    WRONG,
    page,
    rate,
    verdict,
)
from case_study_history import Shape

from mlrelease.errors import ConfigError

DATA = REPO_ROOT / "ci" / "adoption-corpus"
RESULTS = REPO_ROOT / "docs" / "case-studies" / "adoption-corpus.json"
PAGE = REPO_ROOT / "docs" / "case-studies" / "adoption-corpus.md"


def _step(
    match: bool | None, did: str = "refused: error: rc: no", id: str = "rc:v1.0.0-rc1"
) -> dict[str, object]:
    return {"id": id, "match": match, "did": did}


def test_a_review_counts_only_while_the_step_says_what_was_reviewed() -> None:
    right = Review("rc:v1.0.0-rc1", "rc: no", "mlrelease right", "the history shows why")
    wrong = Review("rc:v1.0.0-rc1", "rc: no", "mlrelease wrong", "init's fault", "a cause")
    assert verdict(_step(True), [wrong]) == (RIGHT, None)
    assert verdict(_step(None), [wrong]) == (OUT, None)
    assert verdict(_step(False), [right]) == (DIFFER, right)
    assert verdict(_step(False), [wrong]) == (WRONG, wrong)
    assert verdict(_step(False, did="tagged v1.0.0rc1"), [right]) == (UNREVIEWED, None)
    assert verdict(_step(False, id="rc:v1.0.0-rc2"), [right]) == (UNREVIEWED, None)


def test_the_rate_counts_right_and_right_to_differ_over_the_compared_steps() -> None:
    counts = Counter({RIGHT: 6, DIFFER: 1, WRONG: 2, UNREVIEWED: 1, OUT: 5})
    assert rate(counts) == "7/10 = 70%"
    assert rate(Counter({OUT: 2})) == "-"


def test_a_data_file_with_an_unknown_key_is_refused_naming_it(tmp_path: Path) -> None:
    text = (DATA / "torchtune.toml").read_text(encoding="utf-8")
    bad = tmp_path / "torchtune.toml"
    bad.write_text(text.replace("[shape]\n", "[shape]\nbranches = 'x'\n"), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load(bad)
    assert "torchtune.shape.branches" in str(caught.value), caught.value


def _projects() -> list[Project]:
    return [load(path) for path in sorted(DATA.glob("*.toml"))]


def test_the_corpus_has_five_projects_of_each_family_each_with_its_key() -> None:
    projects = _projects()
    assert Counter(p.family for p in projects) == {"pytorch": 5, "onnx": 5}
    for p in projects:
        key = json.loads((DATA / f"{p.name}.key.json").read_text(encoding="utf-8"))
        assert key["release"] == p.version and key["fork"].startswith(p.shape.start), p.name
        assert isinstance(p.shape, Shape)


def test_every_review_is_of_a_recorded_step() -> None:
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    recorded = [data["projects"], data["before"]["steps"]]
    for p in _projects():
        for review in p.review:
            seen = [s for s in _flat(recorded, p.name) if s["id"] == review.step]
            assert any(review.seen in s["did"] and s["match"] is False for s in seen), (
                f"ci/adoption-corpus/{p.name}.toml: the review of {review.step} matches no "
                f"recorded step (seen {review.seen!r})"
            )


def _flat(recorded: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    now = recorded[0].get(name, {}).get("steps", [])
    return [*now, *recorded[1].get(name, [])]


def test_the_committed_page_renders_from_the_committed_results() -> None:
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    projects = _projects()
    keys = {p.name: json.loads((DATA / f"{p.name}.key.json").read_text("utf-8")) for p in projects}
    committed = PAGE.read_text(encoding="utf-8")
    wall = next(line for line in committed.splitlines() if line.startswith("Wall time"))
    assert page(projects, data, keys, wall) == committed, (
        "docs/case-studies/adoption-corpus.md is stale: "
        "run `python scripts/adoption_corpus.py --execute`"
    )
