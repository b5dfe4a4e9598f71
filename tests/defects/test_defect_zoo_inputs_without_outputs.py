"""Model Zoo: a test data set with inputs but no expected outputs was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import zoo_submission
from helpers.projects import single_gate

from mlrelease.cli import main

INCIDENT = {
    "title": "A Model Zoo test set has inputs but no expected outputs",
    "year": 2020,
    "project": "ONNX Model Zoo",
    "source": (
        "seeds/onnx-model-zoo-ci-proposal.md (test cases check the functionality of the "
        "submitted model); issue #15"
    ),
    "gate": "models verify (Model Zoo mode)",
    "reconstruction": (
        "The submission's test_data_set_0 holds input_0.pb only. Verification used to fall "
        "back silently to comparing onnxruntime with the onnx reference evaluator, which agree "
        "on a wrongly exported graph."
    ),
    "message": (
        "`model` test data test_data_set_0 has inputs but no expected outputs (output_I.pb)"
    ),
}


def _verify(folder: Path, capsys: pytest.CaptureFixture[str], *root: str) -> tuple[int, str]:
    code = main([*root, "models", "verify", str(folder)])
    return code, " ".join(capsys.readouterr().out.split())


def test_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(zoo_submission(tmp_path / "tiny-add", outputs=False), capsys)
    assert code == 1
    assert out.startswith("## Model Zoo submission: DECLINE")
    assert INCIDENT["message"] in out


def test_clean_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(zoo_submission(tmp_path / "tiny-add"), capsys)
    assert code == 0, out
    assert out.startswith("## Model Zoo submission: ACCEPT")


def test_allowed_by_config_names_the_weaker_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A zoo that accepts such sets says so in its config; the verdict names the weaker check."""
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    tables = {"models": {"allow-missing-expected-outputs": True}}
    pyproject = single_gate.pyproject(None, tables, name="zoo")
    (zoo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    folder = zoo_submission(zoo / "tiny-add", outputs=False)
    code, out = _verify(folder, capsys, "--root", str(zoo))
    assert code == 0, out
    assert out.startswith("## Model Zoo submission: ACCEPT")
    assert (
        "### Weaker checks - `model` (test_data_set_0: no expected outputs): outputs compared "
        "only between onnxruntime and the onnx reference evaluator, not against the "
        "submitter's expected outputs (allowed by "
        "tool.mlrelease.models.allow-missing-expected-outputs)" in out
    )
