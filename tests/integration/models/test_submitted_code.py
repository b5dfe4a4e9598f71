"""Issue 32, class 1: a module a submission ships is data, never code.

A submission that ships ``mlrelease/__init__.py``, ``tomllib.py`` and a ``build/`` package (names
mlrelease, the standard library and a release tool import) is verified without running any of
them, whether ``mlrelease models verify`` is started inside the submission (``verify .``) or
outside it. Each planted module writes a marker file outside the submission when imported.
Before the fix, ``python -m mlrelease.models.zoo`` started in the submission imported its
``mlrelease/`` package. The benign twin is the same submission without the planted modules.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import hostile, plant_modules

from mlrelease.cli import main

PLANTED = ("mlrelease/__init__.py", "tomllib.py", "build/__init__.py", "json.py")


@pytest.mark.parametrize("planted", [True, False], ids=["hostile", "benign"])
@pytest.mark.parametrize("where", ["inside", "outside"])
def test_modules_a_submission_ships_never_run(
    planted: bool,
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = hostile.benign(tmp_path / "sub")
    markers = tmp_path / "markers"
    markers.mkdir()
    if planted:
        plant_modules(folder, markers, PLANTED)
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    if where == "inside":
        monkeypatch.chdir(folder)
        code = main(["models", "verify", "."])
    else:
        monkeypatch.chdir(tmp_path)
        code = main(["models", "verify", str(folder)])
    out = capsys.readouterr().out
    assert sorted(os.listdir(markers)) == [], "a module the submission ships was imported"
    assert code == 0 and out.startswith("## Model Zoo submission: ACCEPT"), out
