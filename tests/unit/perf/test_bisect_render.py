"""The answer of a bisect as ``--json`` prints it (the schema every answer keeps), as the page
and the terminal show it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers.bisect_sim import World, history, slowed_from

import mlrelease
from mlrelease.perf.bisect import plan, render
from mlrelease.perf.bisect.state import Side
from mlrelease.perf.config import BisectConfig

SCHEMA = json.loads(
    (Path(mlrelease.__file__).parent / "schemas" / "perf-bisect.schema.json").read_text()
)


def _document(world: World, **options: Any) -> dict[str, Any]:
    answer = world.run(**options)
    design = plan.design_for(world.history, 0.95, 24, 3)
    data = render.document(answer, world.history, "bench", design, BisectConfig())
    jsonschema.validate(data, SCHEMA)
    return data


def _dependency(side: Side) -> float:
    return 1.10 if dict(side.pins).get("slowlib", "1.0") >= "1.2" else 1.0


CASES = {
    "culprit": lambda: World(h := history(8), slowed_from(h, 3)),
    "range": lambda: World(h := history(8), slowed_from(h, 5), broken={h.commits[3], h.commits[4]}),
    "refused": lambda: World(h := history(8), slowed_from(h, 3, by=1.03), spread=0.08),
    "dependency": lambda: World(
        history(8, {0: {"slowlib": "1.0"}, 4: {"slowlib": "1.3"}}, {"slowlib": ("1.1", "1.2")}),
        _dependency,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_answer_keeps_the_json_shape(case: str) -> None:
    world = CASES[case]()
    data = _document(world)
    assert data["verdict"] in ("culprit", "range", "unknown")
    assert data["steps"] and data["steps"][0]["axis"] == "endpoints"
    if data["verdict"] == "culprit":
        assert data["culprit"] in world.history.commits  # the full sha
    else:
        assert data["culprit"] is None


def test_the_culprit_on_the_terminal_and_the_page() -> None:
    world = CASES["culprit"]()
    data = _document(world)
    culprit, parent = world.history.commits[2], world.history.commits[1]
    assert data["reproduce"] == (
        f"mlrelease perf bisect --good {parent} --bad {culprit} --profile bench "
        "--row work/v256/b1/pytorch"
    )
    shown = "\n".join(render.lines(data))
    assert f"CULPRIT: commit {culprit}" in shown and f"culprit: {culprit}" in shown
    assert "step 1 [endpoints]" in shown and "DIFFERENT x1.1" in shown
    page = render.page(data)
    assert "| 1 | endpoints |" in page and f"$ {data['reproduce']}" in page


def test_a_range_names_each_skipped_commit_and_its_error() -> None:
    data = _document(CASES["range"]())
    assert data["range"]["skipped"] and all(
        s["error"] == "setup.py exits" for s in data["range"]["skipped"]
    )
    assert "skipped" in "\n".join(render.lines(data))


def test_the_telling_line_of_a_pip_failure() -> None:
    pip = (
        "error: subprocess-exited-with-error\n\n  \u00d7 Preparing metadata did not run "
        "successfully.\n  │ exit code: 1\n  ╰─> [1 lines of output]\n      this commit does "
        "not build\n      [end of output]\n"
    )
    assert render.headline(pip) == "this commit does not build"
    assert render.headline("the sdist does not build\nmore") == "the sdist does not build"
