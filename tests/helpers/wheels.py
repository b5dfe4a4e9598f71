"""Shared by the wheel tests: the repository, the RC and final versions, the built artifacts."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from helpers import REPO_ROOT
from mlrelease import cli
from mlrelease.project import bump
from mlrelease.registry import load_config
from mlrelease.wheels.build import COPY_IGNORE

REPO = REPO_ROOT
RC, FINAL = "0.1.0rc1", "0.1.0"


@dataclass(frozen=True)
class Built:
    repo: Path
    """A copy of the repository; its files carry the RC version."""
    dist: Path
    """mlrelease's dist/: artifacts of the RC, named with the final version."""
    native: Path
    """examples/native-adopter in the copy."""


def build_all(workdir: Path) -> Built:
    """Copy the repository, put it at the RC version and build both projects: mlrelease for
    the RC tag (so with the final version), the native example as it is."""
    repo = workdir / "repo"
    shutil.copytree(REPO, repo, ignore=COPY_IGNORE)
    config = load_config(repo)
    bump.execute(config, bump.plan(config, to=RC))
    native = repo / "examples" / "native-adopter"
    tag = f"v{FINAL}-rc1"
    assert cli.main(["wheels", "build", "--project", str(repo), "--release-tag", tag]) == 0
    assert cli.main(["wheels", "build", "--project", str(native)]) == 0
    return Built(repo, repo / "dist", native)
