"""The compatibility-probe cache is keyed by what changes what a runtime accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease.models import probe_cache, runtimes
from mlrelease.models.config import RuntimeSpec


@pytest.fixture
def cpu() -> runtimes.Runtime:
    found = runtimes.resolve([RuntimeSpec()])[0]
    assert isinstance(found, runtimes.Runtime), found
    return found


def test_probe_cache_key_follows_allow_released_onnx_opset_only(
    cpu: runtimes.Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", raising=False)
    default = probe_cache.cache_file(tmp_path, cpu)
    monkeypatch.setenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", "0")
    relaxed = probe_cache.cache_file(tmp_path, cpu)
    monkeypatch.setenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", "1")
    strict = probe_cache.cache_file(tmp_path, cpu)
    assert len({default, relaxed, strict}) == 3, "one run's probe must not answer for another"
    # The same settings find the same entry: the key is stable, not random.
    assert probe_cache.cache_file(tmp_path, cpu) == strict


def test_probe_under_other_settings_is_measured_not_read_from_the_cache(
    cpu: runtimes.Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", raising=False)
    _, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert not cached
    _, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert cached
    monkeypatch.setenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", "0")
    _, cached = probe_cache.cached_probe(cpu, tmp_path)
    assert not cached
