"""``[tool.mlrelease.downstream]``: mistakes are errors naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mlrelease.downstream.config import Consumer, DownstreamConfig, check
from mlrelease.errors import ConfigError
from mlrelease.toml_tables import parse_section


def table(*consumers: dict[str, Any], **top: Any) -> DownstreamConfig:
    data = {**top, "consumers": list(consumers)}
    return parse_section(DownstreamConfig, data, prefix="tool.mlrelease.downstream", source="p")


def test_a_good_table(tmp_path: Path) -> None:
    (tmp_path / "smoke").mkdir()
    t = table(
        {"name": "skl2onnx", "requirement": "skl2onnx==1.20.0", "tests": ["tests/test_a.py"]},
        {"name": "ir", "git": "https://example.invalid/ir", "ref": "v1"},
        {"name": "ort", "requirement": "onnxruntime", "tests-dir": "smoke"},
    )
    check(t, source="p", root=tmp_path, package="onnx")
    assert [c.source for c in t.consumers] == ["sdist", "git", "project"]
    assert t.consumers[1].selection == ["tests"] and t.consumers[2].selection == ["."]


@pytest.mark.parametrize(
    ("consumer", "key"),
    [
        ({"name": "a", "requirement": "a=1.0"}, "consumers[0].requirement"),
        ({"name": "a", "requirement": "onnx>=1"}, "consumers[0].requirement"),
        ({"name": "a", "git": "https://x", "ref": ""}, "consumers[0].ref"),
        ({"name": "a"}, "consumers[0].requirement"),
        ({"name": "a", "git": "https://x", "ref": "v", "tests-dir": "t"}, "consumers[0].tests-dir"),
        (
            {"name": "a", "requirement": "a", "command": ["x"], "tests": ["t"]},
            "consumers[0].command",
        ),
        ({"name": "a", "requirement": "a", "requirements": ["b>"]}, "consumers[0].requirements[0]"),
        ({"name": "a b", "requirement": "a"}, "consumers[0].name"),
        ({"name": "a", "requirement": "a", "time-budget-s": 0}, "consumers[0].time-budget-s"),
        ({"name": "a", "requirement": "a", "tests-dir": "absent"}, "consumers[0].tests-dir"),
        ({"name": "a", "requirement": "a", "memory-limit-mb": -1}, "consumers[0].memory-limit-mb"),
    ],
)
def test_mistakes(tmp_path: Path, consumer: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check(table(consumer), source="p", root=tmp_path, package="onnx")
    assert caught.value.key == f"tool.mlrelease.downstream.{key}"


def test_duplicate_names_and_unknown_keys(tmp_path: Path) -> None:
    twice = table({"name": "a", "requirement": "a"}, {"name": "a", "requirement": "b"})
    with pytest.raises(ConfigError, match=r"also consumers\[0\]"):
        check(twice, source="p", root=tmp_path, package="onnx")
    with pytest.raises(ConfigError, match="Did you mean 'requirement'"):
        table({"name": "a", "requirment": "a"})
    assert Consumer(name="x", requirement="x").time_budget_s == 900


def test_per_consumer_settings_and_the_confidence(tmp_path: Path) -> None:
    tf = {"name": "tf", "requirement": "tf2onnx", "memory-limit-mb": 0, "optional": True}
    tf["env"] = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    t = table(tf, confidence=0.99)
    check(t, source="p", root=tmp_path, package="onnx")
    (c,) = t.consumers
    assert (c.memory_limit_mb, c.optional, c.env) == (0, True, {"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert Consumer(name="x", requirement="x").memory_limit_mb is None  # the table's
    for bad in (0.3, 1.0):
        with pytest.raises(ConfigError) as caught:
            check(table(confidence=bad), source="p", root=tmp_path, package="onnx")
        assert caught.value.key == "tool.mlrelease.downstream.confidence"
    with pytest.raises(ConfigError):
        table({"name": "a", "requirement": "a", "env": {"X": 1}})
