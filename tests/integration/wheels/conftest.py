"""Artifacts built once per test session: mlrelease as a release candidate built with its final
version, and the native adopter example, each in a copy of the repository."""

from __future__ import annotations

import pytest
from helpers.wheels import Built, build_all


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_all(tmp_path_factory.mktemp("wheels"))
