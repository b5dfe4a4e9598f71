"""Each test works on its own copy of the adopted repository (tests/integration/conftest.py
builds the wheel, the environments and the adoption once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def project(adopted_repo: Path, tmp_path: Path) -> Path:
    """This test's own copy of the adopted repository (its origin stays shared, unchanged)."""
    root = tmp_path / "project"
    shutil.copytree(adopted_repo, root, symlinks=True)
    return root
