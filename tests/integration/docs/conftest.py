"""Fixtures of the docs tests: a site frozen once per test session from a real project."""

from __future__ import annotations

import pytest
from helpers.docs_project import Frozen, invoke, make_project


@pytest.fixture(scope="session")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Frozen:
    project = make_project(tmp_path_factory.mktemp("docs-freeze"))
    runs = [
        invoke(project.root, "docs.freeze", "--version", version, "--execute")
        for version in ("0.1.0", "0.2.0")
    ]
    return Frozen(project, runs)
