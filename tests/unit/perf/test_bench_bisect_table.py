"""``scripts/bench_perf_bisect.py``'s judgement and table of an answer (the table quoted in
docs/perf/bisect.md): a range of a dependency's versions is printed and judged as versions, a
range of commits as commit positions. The answers are the real planner's, from the simulated
world of the planner's own tests (``helpers.bisect_sim``)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from helpers import REPO_ROOT
from helpers.bisect_sim import World, history, slowed_from

from mlrelease.perf.bisect import plan, render
from mlrelease.perf.bisect.state import BisectHistory, Side
from mlrelease.perf.config import BisectConfig


def _script(name: str = "bench_perf_bisect_judge") -> ModuleType:
    """A module of the benchmark, as ``python scripts/bench_perf_bisect.py`` imports it (its
    folder first on the path)."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))


def _slowlib(slow: dict[str, float]) -> Callable[[Side], float]:
    return lambda side: slow.get(dict(side.pins).get("slowlib", "1.0"), 1.0)


def _dependency_history() -> BisectHistory:
    """The lock moves slowlib from 1.0 to 1.3 at commit 4 of 8; 1.1 and 1.2 are between."""
    return history(8, {0: {"slowlib": "1.0"}, 4: {"slowlib": "1.3"}}, {"slowlib": ("1.1", "1.2")})


def _entry(world: World, axis: str, truth: int, version: str = "") -> dict[str, Any]:
    script = _script()
    answer = world.run()
    design = plan.design_for(world.history, 0.95, 24, 3)
    data = render.document(answer, world.history, "bench", design, BisectConfig())
    made = script.histories.Generated(
        Path("unused"), world.history.good, world.history.bad, list(world.history.commits)
    )
    planted = script.histories.Planted(len(world.history.commits))
    scenario = script.Scenario("case", planted, axis, truth, version=version)
    entry: dict[str, Any] = script.judge(scenario, made, data, 1.0)
    return entry


def test_a_range_of_versions_is_printed_as_versions_and_holds_the_planted_one() -> None:
    # 1.2 runs halfway between the sides, so its step stays UNKNOWN: the answer is a range.
    world = World(_dependency_history(), _slowlib({"1.2": 1.10**0.5, "1.3": 1.10}))
    entry = _entry(world, "dependency", 4, version="1.2")
    assert entry["verdict"] == "range"
    assert entry["versions"] == {"name": "slowlib", "after": "1.1", "through": "1.3"}
    assert entry["range_holds"] and not entry["wrong"]
    row = _script().table([entry])[2]
    assert "| range slowlib (1.1, 1.3] holds 1.2 |" in row
    assert "None" not in row


def test_a_range_of_versions_without_the_planted_one_does_not_hold_it() -> None:
    world = World(_dependency_history(), _slowlib({"1.2": 1.10**0.5, "1.3": 1.10}))
    entry = _entry(world, "dependency", 4, version="1.1")
    assert not entry["range_holds"]
    assert "| range slowlib (1.1, 1.3] |" in _script().table([entry])[2]


def test_a_dependency_culprit_names_its_version_and_the_commit_that_brought_it() -> None:
    world = World(_dependency_history(), _slowlib({"1.2": 1.10, "1.3": 1.10}))
    entry = _entry(world, "dependency", 4, version="1.2")
    assert entry["exact"]
    assert "| culprit 4 (slowlib 1.2) | yes |" in _script().table([entry])[2]


def test_a_range_of_commits_is_printed_as_commit_positions() -> None:
    h = history(8)
    world = World(h, slowed_from(h, 5), broken={h.commits[3], h.commits[4]})  # 4, 5
    entry = _entry(world, "commit", 5)
    assert entry["verdict"] == "range" and entry["versions"] is None
    assert entry["range"] == [3, 6] and entry["range_holds"]
    assert "| range (3, 6] holds it |" in _script().table([entry])[2]


def test_an_unknown_scenario_is_refused_with_the_names() -> None:
    try:
        _script("bench_perf_bisect").main(["--no-noise", "--scenarios", "c05-1,c99-1"])
    except SystemExit as refused:
        message = str(refused.code)
    else:
        raise AssertionError("an unknown scenario was accepted")
    assert "no scenario c99-1" in message and "c05-1, c05-2" in message


def test_the_steps_table_names_what_each_environment_step_installed() -> None:
    world = World(_dependency_history(), _slowlib({"1.2": 1.10**0.5, "1.3": 1.10}))
    entry = _entry(world, "dependency", 4, version="1.2")
    header, _, row = _script().steps_table([entry])
    assert header.startswith("| scenario | endpoints | step 1 |")
    cells = row.split(" | ")
    assert cells[1].startswith("x1.1")  # the endpoints: their interval only
    assert cells[2].startswith("environment DIFFERENT x")
    assert any(c.startswith("slowlib 1.2 UNKNOWN x") for c in cells)
    assert cells[-1].rstrip(" |").endswith(f"({entry['trail'][-1][5]})")  # the pairs


def test_a_bisect_that_found_no_regression_says_so_in_the_steps_table() -> None:
    h = history(8)
    world = World(h, slowed_from(h, 5, by=1.03), verdict="inconclusive")
    entry = _entry(world, "commit", 5)
    assert entry["verdict"] == "unknown" and entry["trail"] == []
    row = _script().steps_table([entry])[2]
    assert row.startswith("| case | not regressed: nothing bisected |")


def test_the_summary_medians_an_even_count_of_bisects_between_the_middle_two() -> None:
    entry = {"exact": True, "wrong": False, "builds": 5, "budget": 6, "axis_right": True}
    entries = [{**entry, "scenario": f"c10-{i}", "seconds": s} for i, s in ((4, 428), (5, 474))]
    figures = _script().summary(entries)
    assert figures["median_seconds"] == 451.0
    assert figures["max_seconds"] == 474
