"""Model Zoo: a submission without the artifacts the CI proposal requires."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import zoo_submission

from mlrelease.cli import main

INCIDENT = {
    "title": "A Model Zoo submission lacks the required artifacts",
    "year": 2020,
    "project": "ONNX Model Zoo",
    "source": "seeds/onnx-model-zoo-ci-proposal.md (the artifacts a submitter provides)",
    "gate": "models verify (Model Zoo mode)",
    "reconstruction": (
        "The README has a description and a license but no dataset and no accuracy notes."
    ),
    "message": (
        "README.md has no dataset section (a heading naming dataset / data set / training data)"
    ),
}


def test_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = "# TinyAdd\n\n## Description\nAdds two.\n\n## License\nApache-2.0\n"
    folder = zoo_submission(tmp_path / "tiny-add", readme=readme)
    assert main(["models", "verify", str(folder)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("## Model Zoo submission: DECLINE")
    assert INCIDENT["message"] in out
    assert "README.md has no accuracy section" in out


def test_clean_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "verify", str(zoo_submission(tmp_path / "tiny-add"))]) == 0
    assert capsys.readouterr().out.startswith("## Model Zoo submission: ACCEPT")
