"""Fixtures of the defect catalogue."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def probe_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One runtime-probe cache for the catalogue's run, never the user's."""
    folder = tmp_path_factory.mktemp("probe-cache")
    old = os.environ.get("MLRELEASE_CACHE_DIR")
    os.environ["MLRELEASE_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("MLRELEASE_CACHE_DIR", None)
    else:
        os.environ["MLRELEASE_CACHE_DIR"] = old
