"""The version a build stamps into the artifacts, from the release tag."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease import config
from mlrelease.errors import PreconditionError
from mlrelease.wheels.project import build_version, from_config

PYPROJECT = """\
[project]
name = "demo"
dynamic = ["version"]

[tool.mlrelease]
version-source = "{source}"

[tool.bumpversion]
current_version = "{version}"
"""


def project(tmp_path: Path, source: str, version: str):  # type: ignore[no-untyped-def]
    text = PYPROJECT.format(source=source, version=version)
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    return from_config(config.load(tmp_path, {}))


@pytest.mark.parametrize(("tag", "built"), [("v2.13.0", "2.13.0"), ("v2.13.0-rc3", "2.13.0")])
def test_under_the_tag_model_the_tag_gives_the_version(
    tmp_path: Path, tag: str, built: str
) -> None:
    assert build_version(project(tmp_path, "tag", "2.13.0a0"), tag) == built


def test_under_the_tag_model_a_tag_of_another_series_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PreconditionError, match=r"the tag v2\.14\.0 says 2\.14\.0"):
        build_version(project(tmp_path, "tag", "2.13.0a0"), "v2.14.0")


def test_under_the_files_model_the_files_must_carry_the_tags_version(tmp_path: Path) -> None:
    with pytest.raises(PreconditionError, match=r"the files carry 2\.13\.0a0"):
        build_version(project(tmp_path, "files", "2.13.0a0"), "v2.13.0")
