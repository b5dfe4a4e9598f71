"""The operator-versioning rules (ONNX PR 186) on hand-made snapshots of one custom domain:
inventory changes and the opset version, since_version bounds, attribute defaults, a published
domain that disappears."""

from __future__ import annotations

import copy
from typing import Any

from mlrelease.opsets import rules as opset_rules


def _op(op: str, since: int, inputs: list[str] | None = None) -> dict[str, Any]:
    return {
        "op": op,
        "since": since,
        "inputs": inputs or ["X: T"],
        "outputs": ["Y: T"],
        "attributes": [],
        "types": {"T": ["tensor(float)"]},
        "arity": [1, 1, 1, 1],
    }


def _snap(version: int, *ops: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": 1,
        "onnx_version": "x",
        "domains": {
            "com.acme": {"opset_version": version, "min_version": 1, "operators": list(ops)}
        },
    }


def test_inventory_change_needs_a_higher_opset_version() -> None:
    before = _snap(1, _op("A", 1))
    problems, _ = opset_rules.check(before, _snap(1, _op("A", 1), _op("B", 1)))
    assert any("inventory changed (+B:1) but the opset version stayed at 1" in p for p in problems)
    assert any(
        "B:1: added with since_version 1, but opset 1 was already published" in p for p in problems
    )
    problems, _ = opset_rules.check(before, _snap(1))
    assert any("inventory changed (-A:1)" in p for p in problems)
    problems, facts = opset_rules.check(before, _snap(2, _op("A", 1), _op("B", 2)))
    assert problems == [] and "com.acme: opset 1 -> 2, 1 added, 0 removed" in facts[0]


def test_since_version_never_exceeds_the_opset_version_and_versions_never_go_down() -> None:
    problems, _ = opset_rules.check(_snap(2, _op("A", 1)), _snap(1, _op("A", 1), _op("C", 3)))
    assert any(
        "com.acme.C:3: since_version 3 exceeds the domain's opset version 1" in p for p in problems
    )
    assert any("opset version went down from 2 to 1" in p for p in problems)


def test_attribute_default_change_is_a_signature_change() -> None:
    old = _op("A", 1)
    new = copy.deepcopy(old)
    old["attributes"], new["attributes"] = ["alpha: FLOAT = 0.5"], ["alpha: FLOAT = 0.25"]
    problems, _ = opset_rules.check(_snap(1, old), _snap(1, new))
    assert problems and "A:1: signature changed" in problems[0]
    assert (
        'attributes: removed ["alpha: FLOAT = 0.5"], added ["alpha: FLOAT = 0.25"]' in problems[0]
    )


def test_a_published_domain_cannot_disappear() -> None:
    problems, _ = opset_rules.check(_snap(1, _op("A", 1)), {"domains": {}}, ["com.acme"])
    assert problems and "no longer registered" in problems[0]
