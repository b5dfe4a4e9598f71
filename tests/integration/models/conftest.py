"""Fixtures of the model-verification tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mlrelease.models.manifest import ModelJob, single


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    return folder


@pytest.fixture
def job_for() -> Callable[..., ModelJob]:
    """A job for one model file, with the limits the project configures (overridable)."""

    def build(path: Path, **overrides: Any) -> ModelJob:
        job = single(path)
        for key, value in overrides.items():
            setattr(job, key, value)
        return job

    return build
