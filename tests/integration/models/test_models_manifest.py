"""The model manifest: the repository's default set, path rules, and clear errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from helpers import REPO_ROOT

from mlrelease.errors import ConfigError
from mlrelease.models import manifest

REPO = REPO_ROOT
ZOO = {
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "squeezenet",
    "vgg19",
    "zfnet512",
}


def test_default_set_is_the_zoo_models_shipped_in_onnx_with_their_outputs() -> None:
    path = REPO / "models" / "manifest.toml"
    jobs = manifest.jobs(manifest.load(path), path.parent)
    assert {job.name for job in jobs} == ZOO
    for job in jobs:
        model = Path(job.model)
        assert model.is_file() and model.parent.name == "light"
        assert [Path(p).name for p in job.expected_outputs] == [f"light_{job.name}_output_0.pb"]
        assert job.inputs == "onnx-backend-dummy" and job.target_opset == 21
        assert job.confine == str(model.parent)
        # The declared checksums are those of the pinned onnx's files.
        for file, digest in job.checksums.items():
            assert hashlib.sha256(Path(file).read_bytes()).hexdigest() == digest, file
    assert next(j for j in jobs if j.name == "densenet121").rtol == 2e-3


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_key_is_named_with_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, '[[models]]\npath = "m.onnx"\nexpected_output = ["o.pb"]\n')
    with pytest.raises(ConfigError) as info:
        manifest.load(path)
    message = str(info.value)
    assert str(path) in message and "models[0].expected_output" in message
    assert "Did you mean 'expected-outputs'?" in message


@pytest.mark.parametrize(
    ("body", "key", "expected"),
    [
        (
            'path = "m.onnx"\nchecksums = { "m.onnx" = "abc" }',
            "models[0].checksums.m.onnx",
            "a sha256 digest",
        ),
        ('path = "m.onnx"\nsteps = ["checker", "fuzz"]', "models[0].steps[1]", "one of integrity"),
        ('path = "m.onnx"\ninputs = "random"', "models[0].inputs", "one of onnx-backend-dummy"),
        (
            'path = "m.onnx"\nperformance = { runs = 3 }',
            "models[0].performance.latency-ms",
            "a value",
        ),
    ],
)
def test_bad_values_are_named(tmp_path: Path, body: str, key: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        manifest.load(_write(tmp_path, f"[[models]]\n{body}\n"))
    assert key in str(info.value) and expected in str(info.value)


def test_submission_paths_stay_inside_the_folder(tmp_path: Path) -> None:
    loaded = manifest.load(_write(tmp_path, '[[models]]\npath = "pkg:onnx/x.onnx"\n'))
    with pytest.raises(ConfigError, match="pkg: paths are not allowed"):
        manifest.jobs(loaded, tmp_path, submission=tmp_path)
    loaded = manifest.load(_write(tmp_path, '[[models]]\npath = "../../outside.onnx"\n'))
    job = manifest.jobs(loaded, tmp_path, submission=tmp_path)[0]
    # Lexically outside: step 0 refuses it (the job only records where it must stay).
    assert not Path(job.model).is_relative_to(tmp_path) and job.confine == str(tmp_path)


def test_test_data_sets_are_discovered_next_to_the_model(tmp_path: Path) -> None:
    (tmp_path / "test_data_set_1").mkdir()
    (tmp_path / "test_data_set_0").mkdir()
    job = manifest.single(tmp_path / "model.onnx")
    assert [Path(p).name for p in job.test_data] == ["test_data_set_0", "test_data_set_1"]
