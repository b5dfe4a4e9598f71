"""Fixtures of the model-verification tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mlrelease.models.manifest import ModelJob, single


@pytest.fixture(autouse=True, scope="session")
def probe_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One compatibility-probe cache for the session, never the user's."""
    folder = tmp_path_factory.mktemp("probe-cache")
    old = os.environ.get("MLRELEASE_CACHE_DIR")
    os.environ["MLRELEASE_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("MLRELEASE_CACHE_DIR", None)
    else:
        os.environ["MLRELEASE_CACHE_DIR"] = old


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
