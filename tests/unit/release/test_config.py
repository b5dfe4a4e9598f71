"""``[tool.mlrelease.release]`` read together with the version model."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease import registry
from mlrelease.errors import ConfigError


def test_the_tag_model_refuses_release_candidates_made_as_bumps(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mlrelease]\nversion-source = "tag"\n\n[tool.mlrelease.release]\nrc-model = "bump"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        registry.load_config(tmp_path)
    message = str(caught.value)
    assert "tool.mlrelease.release.rc-model" in message and "version-source" in message
    assert "Traceback" not in message
