"""The index of a declared source: rows validated, built, diffed, parsed back (pure)."""

from __future__ import annotations

import json

import pytest

from mlrelease.config import load
from mlrelease.errors import ConfigError, UserError
from mlrelease.ops import plugin, source_index
from mlrelease.ops.config import OpsConfig
from mlrelease.ops.plugin import OperatorRow

SOURCE = "converters.registry:index_rows"


def test_rows_are_validated_one_by_one() -> None:
    raw = [
        ["aten.add", "supported", "fast"],
        ["aten.mul", "supported"],
        ["aten.add", "supported"],
        ["aten.sub"],
        "aten.div",
        ["aten.pow", {"repr": "<object>", "type": "object"}],
        [" ", "supported"],
    ]
    found = plugin.validate(raw, SOURCE)
    assert found.rows == [
        OperatorRow("aten.add", "supported", "fast"),
        OperatorRow("aten.mul", "supported"),
    ]
    assert [p.split(": ", 1)[1] for p in found.problems] == [
        "row 3: operator 'aten.add' is listed twice",
        'row 4 is ["aten.sub"]; expected a tuple (operator, status, notes)',
        'row 5 is "aten.div"; expected a tuple (operator, status, notes)',
        "row 6 holds (str, object); expected strings",
        "row 7: the operator and the status must not be empty",
    ]


def test_the_index_round_trips_and_diffs() -> None:
    old = source_index.build([OperatorRow("a", "supported"), OperatorRow("b", "supported")], SOURCE)
    new = source_index.build(
        [OperatorRow("a", "static shapes"), OperatorRow("c", "supported")], SOURCE
    )
    assert source_index.loads(source_index.dumps(new), "x") == new
    changes = source_index.diff(old, new)
    assert changes.lines() == ["added: c", "removed: b", "a: supported -> static shapes"]
    assert "| a | static shapes |  |" in source_index.page(new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        (json.dumps({"schema": "mlrelease-supported-ops"}), "the conformance index?"),
        (json.dumps({"schema": source_index.SCHEMA}), "no `operators` table"),
    ],
)
def test_a_broken_index_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(UserError, match="docs/ops.json: .*" + message.replace("?", r"\?")):
        source_index.loads(text, "docs/ops.json")


@pytest.mark.parametrize("spec", ["converters.registry", "a b:c", "mod:", ":f", "1mod:f"])
def test_the_source_must_name_a_callable(spec: str) -> None:
    data = {"tool": {"mlrelease": {"ops": {"source": spec}}}}
    config = load(None, {"ops": OpsConfig}, data=data, source="pyproject.toml")
    with pytest.raises(ConfigError, match=r"tool\.mlrelease\.ops\.source"):
        config.table(OpsConfig).validate("pyproject.toml")


def test_only_a_recorded_decision_waives_a_removed_operator() -> None:
    old = source_index.build([OperatorRow("a", "supported"), OperatorRow("b", "supported")], SOURCE)
    new = source_index.build([], SOURCE)
    data = {"tool": {"mlrelease": {"ops": {"dropped": [
        {"operator": "b", "reason": "lowered", "decision": "https://example.org/1"}
    ]}}}}  # fmt: skip
    ops = load(None, {"ops": OpsConfig}, data=data, source="x").table(OpsConfig).validate("x")
    gone = source_index.unwaived(source_index.diff(old, new), ops)
    assert gone == ["a"]
    assert '[[tool.mlrelease.ops.dropped]] operator = "a"' in source_index.removal_message(
        gone, "v1.0.0:docs/ops.json"
    )


def test_a_decision_names_its_link() -> None:
    data = {"tool": {"mlrelease": {"ops": {"dropped": [
        {"operator": "b", "reason": "lowered", "decision": ""}
    ]}}}}  # fmt: skip
    config = load(None, {"ops": OpsConfig}, data=data, source="pyproject.toml")
    with pytest.raises(ConfigError, match=r"tool\.mlrelease\.ops\.dropped\[0\]\.decision"):
        config.table(OpsConfig).validate("pyproject.toml")
