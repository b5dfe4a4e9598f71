"""``[tool.mlrelease.release] main-branch`` names a branch (an adversary given the docs set it to
"" and every command went on, saying "origin's " and a blank)."""

from __future__ import annotations

import pytest

from mlrelease.errors import ConfigError
from mlrelease.registry import load_config


def _data(main: str) -> dict[str, object]:
    return {
        "project": {"name": "demo", "version": "1.4.0.dev0"},
        "tool": {"mlrelease": {"release": {"main-branch": main}}},
    }


@pytest.mark.parametrize("main", ["", " ", "a..b", "-x", "dev branch", "x.lock", "main/"])
def test_a_main_branch_that_names_no_branch_is_refused(main: str) -> None:
    with pytest.raises(ConfigError, match="main-branch"):
        load_config(data=_data(main), source="pyproject.toml")


@pytest.mark.parametrize("main", ["main", "master", "develop", "trunk/next"])
def test_a_branch_name_is_taken(main: str) -> None:
    assert load_config(data=_data(main), source="pyproject.toml") is not None
