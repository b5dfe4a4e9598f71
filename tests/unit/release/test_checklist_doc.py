"""The checklist page says what the project's version model promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease import registry
from mlrelease.release.checklist.doc import render


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("", "the version files carry the final version `1.4.0`"),
        ('version-source = "tag"\n', "the version files keep their development marker"),
    ],
)
def test_the_rc_guard_follows_the_version_model(tmp_path: Path, table: str, said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.mlrelease]\n{table}", encoding="utf-8")
    assert said in " ".join(render(registry.load_config(tmp_path)).split())
