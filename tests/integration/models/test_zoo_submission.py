"""Model Zoo submission mode: `nox -s verify_models -- path/to/submission/`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers.defects import ZOO_README, zoo_submission
from helpers.models import add_model, make_model, tensor_info, write_test_data
from onnx import helper

from mlrelease.cli import main
from mlrelease.models import readme, zoo


def submission(folder: Path, *, readme: str = ZOO_README, manifest: str | None = None) -> Path:
    zoo_submission(folder, readme=readme)
    (folder / "preprocess.py").write_text("def preprocess(image):\n    return image / 255.0\n")
    (folder / "model.toml").write_text(
        textwrap.dedent(
            manifest
            or """\
        [[models]]
        path = "model.onnx"
        preprocess = "preprocess.py"
        target-opset = 21
        performance = { latency-ms = 1000.0, runs = 5 }
        """
        ),
        encoding="utf-8",
    )
    return folder


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["models", "verify", str(path)])
    return code, capsys.readouterr().out


def test_complete_submission_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _verify(submission(tmp_path / "tiny-add"), capsys)
    assert code == 0, out
    assert out.startswith("## Model Zoo submission: ACCEPT")
    assert "`tiny-add/` checked with mlrelease" in out and "onnxruntime 1.31.1" in out
    assert "| `model` | pass | pass | pass | pass | pass | pass | pass | pass | **ok** |" in out
    assert "pre-processing `preprocess.py`" in out and "README dataset ('dataset')" in out


def test_incomplete_submission_is_declined_with_every_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = "# TinyAdd\n\n## Description\nAdds two.\n\n## License\n\n"
    folder = submission(tmp_path / "tiny-add", readme=readme)
    (folder / "preprocess.py").write_text("def preprocess(image:\n")
    for file in (folder / "test_data_set_0").iterdir():
        file.unlink()
    (folder / "test_data_set_0").rmdir()
    planted = make_model(
        [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Reshape", ["x", "s"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [3, 2])],
    )
    onnx.save(planted, folder / "model.onnx")
    code, out = _verify(folder, capsys)
    assert code == 1
    assert out.startswith("## Model Zoo submission: DECLINE")
    reasons = out.split("### Reasons to decline", 1)[1].split("###", 1)[0]
    for expected in (
        "README.md has no dataset section",
        "README.md has no accuracy section",
        "README.md section 'license' is empty",
        "pre-processing script preprocess.py is not valid Python",
        "`model` has no test data set",
        "`model` step 2 shapes: strict shape/type inference (data_prop)",
    ):
        assert expected in reasons, (expected, reasons)


def test_hostile_submission_manifest_is_declined_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.onnx"
    onnx.save(add_model(), outside)
    folder = submission(
        tmp_path / "sneaky",
        manifest="""\
        [[models]]
        path = "../outside.onnx"
        expected-outputs = ["../outside.onnx"]
        """,
    )
    code, out = _verify(folder, capsys)
    assert code == 1 and "DECLINE" in out
    assert "outside.onnx is outside the folder" in out


def test_readme_sections_are_found_by_heading_words() -> None:
    sections = readme.readme_sections(
        "intro\n# Model overview\ntext\n### Training data ###\nImageNet\n"
    )
    assert sections == {"model overview": "text", "training data": "ImageNet"}


def test_submission_without_manifest_discovers_model_and_test_data(tmp_path: Path) -> None:
    folder = submission(tmp_path / "plain")
    (folder / "model.toml").unlink()
    (folder / "LICENSE").write_text("Apache-2.0")
    found = zoo.inspect(folder)
    assert found.reasons == []
    assert [job.name for job in found.jobs] == ["model"]
    assert [Path(p).name for p in found.jobs[0].test_data] == ["test_data_set_0"]


def test_test_data_outside_the_submission_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_test_data(elsewhere, [np.ones((2, 3), np.float32)], [np.full((2, 3), 3.0, np.float32)])
    folder = submission(
        tmp_path / "sneaky",
        manifest="""\
        [[models]]
        path = "model.onnx"
        test-data = ["../elsewhere/test_data_set_0"]
        """,
    )
    code, out = _verify(folder, capsys)
    assert code == 1 and "DECLINE" in out
    assert "test data folder" in out and "is outside the submission folder" in out
