"""Fixtures of the train tests: pypiserver on 127.0.0.1 as the staging and the release index
(the release one behind a proxy that names every upload), and a train of three real
repositories (:mod:`helpers.train_rig`) whose first candidates are bound and staged, built once
per session and restored in the same place before each test (the origins' paths are in the
train file and in the members' bound records)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from helpers.error_index import proxied
from helpers.index import start, stop
from helpers.train_rig import Indexes, Rig, Staged, make_rig, stage_all


@pytest.fixture(scope="session")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexes]:
    base = tmp_path_factory.mktemp("train-indexes")
    saved = {k: os.environ.get(k) for k in ("TWINE_USERNAME", "TWINE_PASSWORD")}
    os.environ.update({"TWINE_USERNAME": "train", "TWINE_PASSWORD": "train"})
    staging_server, staging = start(base / "staging")
    release_server, release = start(base / "release")
    try:
        with proxied(release) as proxy:
            yield Indexes(staging, base / "staging", proxy, base / "release")
    finally:
        stop(staging_server)
        stop(release_server)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def staged_train(tmp_path_factory: pytest.TempPathFactory, indexes: Indexes) -> Staged:
    """The train with every member's first candidate bound and staged (built once)."""
    root = tmp_path_factory.mktemp("train-staged")
    base, template = root / "world", root / "template"
    indexes.empty()
    rig = make_rig(base, indexes.staging, indexes.release.url)
    rcs = stage_all(rig)
    shutil.copytree(base, template / "world", symlinks=True)
    shutil.copytree(indexes.staging_files, template / "staging")
    shutil.copytree(indexes.release_files, template / "release")
    return Staged(base, template, indexes, rcs)


@pytest.fixture
def train(staged_train: Staged) -> Rig:
    """A fresh copy of the staged train (same paths), the indexes as they were then."""
    return staged_train.restore()
