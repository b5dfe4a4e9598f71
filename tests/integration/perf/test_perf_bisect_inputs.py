"""``mlrelease perf bisect`` refuses bad input before it builds or times anything: each error
names the option or key, what was expected and what was found, never a traceback (a real git
repository; nothing is built, no worker starts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import bisect_history as histories
from helpers.repo import mlrelease

PROFILE = """\
[tool.mlrelease.perf.profiles.bench]
models = ["bisectee.models:WORK"]
frameworks = ["pytorch"]
threads = 1
clock = "cpu"
"""


@pytest.fixture
def made(tmp_path: Path) -> histories.Generated:
    return histories.make(tmp_path / "h", histories.Planted(3, culprit=2), profiles=PROFILE)


def _refused(made: histories.Generated, *args: str) -> str:
    done = mlrelease(made.root, "perf", "bisect", "--profile", "bench", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not (made.root / ".git/mlrelease/bisect").exists() or not any(
        (made.root / ".git/mlrelease/bisect").glob("*/*")
    )
    return " ".join(done.stderr.split())


def test_an_unknown_revision_is_named(made: histories.Generated) -> None:
    said = _refused(made, "--good", "v9.9", "--bad", made.bad)
    assert "perf bisect --good v9.9: no such commit" in said


def test_the_good_side_must_come_first(made: histories.Generated) -> None:
    said = _refused(made, "--good", made.bad, "--bad", made.good)
    assert "is not an ancestor of --bad" in said


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--confidence", "1.5"], "tool.mlrelease.perf.bisect.confidence (or --confidence)"),
        (["--max-pairs", "2"], "tool.mlrelease.perf.bisect.max-pairs (or --max-pairs)"),
        (
            ["--confidence", "0.999", "--max-pairs", "6"],
            "at least 14: the fewest pairs whose bounds exist",
        ),
        (["--row", "work"], "perf bisect --row work: a row is MODEL/SHAPE/bBATCH/FRAMEWORK"),
        (["--row", "bert/seq128/b1/pytorch"], "no model `bert` in profile `bench`"),
        (["--row", "work/v9/b1/pytorch"], "no shape `v9` in its model (its shapes: v"),
        (
            ["--row", "work/v256/b1/onnxruntime_cpu"],
            "framework `onnxruntime_cpu` is not run by the profile (it runs pytorch)",
        ),
    ],
    ids=["confidence", "max-pairs", "design", "row-shape", "row-model", "row-size", "row-fw"],
)
def test_a_design_or_row_that_cannot_work(
    made: histories.Generated, options: list[str], said: str
) -> None:
    assert said in _refused(made, "--good", made.good, "--bad", made.bad, *options)
