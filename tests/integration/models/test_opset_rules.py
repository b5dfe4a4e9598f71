"""Operator-versioning rules (ONNX PR 186): the example custom domain across two snapshots."""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO_ROOT

from mlrelease.cli import main
from mlrelease.opsets import rules as opset_rules

EXAMPLE = REPO_ROOT / "examples" / "opset-evolution"


@pytest.fixture
def adopter(tmp_path: Path) -> Path:
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "build"))
    return root


def _use(root: Path, module: str) -> None:
    """Point the example's schema-modules at ``module`` (the release being verified)."""
    pyproject = root / "pyproject.toml"
    text = re.sub(
        r"(?m)^schema-modules = \[.*?\]",
        f'schema-modules = ["{module}"]',
        pyproject.read_text(encoding="utf-8"),
    )
    pyproject.write_text(text, encoding="utf-8")


def _report(root: Path) -> str:
    return (root / "build" / "release-verify" / "report.md").read_text(encoding="utf-8")


def test_signature_change_without_new_since_version_fails_and_passes_once_bumped(
    adopter: Path,
) -> None:
    """Acceptance 6, with the example's release 1.0 snapshot as the previous release."""
    _use(adopter, "acme_vision_1_1_unversioned")
    assert main(["--root", str(adopter), "verify"]) == 1
    report = _report(adopter)
    assert (
        "com.acme.vision.Blend:1: signature changed under the published since_version 1 "
        '(inputs: removed [], added ["Mask: T optional"]; arity: [2, 2, 1, 1] -> [2, 3, 1, 1])'
        in report
    )
    assert "give the new signature since_version 2 and raise the opset version" in report

    _use(adopter, "acme_vision_1_1")  # Blend:2 carries the new signature; opset 2
    assert main(["--root", str(adopter), "verify"]) == 0
    assert "com.acme.vision: opset 1 -> 2, 1 added, 0 removed" in _report(adopter)


def test_snapshot_writer_is_a_dry_run_then_idempotent(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = adopter / "snapshots" / "next.json"
    assert main(["--root", str(adopter), "opset", "snapshot", "--output", str(out)]) == 0
    assert not out.exists()
    assert (
        main(["--root", str(adopter), "opset", "snapshot", "--output", str(out), "--execute"]) == 0
    )
    # The example's committed 1.1 snapshot is exactly what the writer produces for 1.1.
    assert out.read_text() == (adopter / "snapshots" / "acme-vision-1.1.json").read_text()
    capsys.readouterr()
    assert (
        main(["--root", str(adopter), "opset", "snapshot", "--output", str(out), "--execute"]) == 0
    )
    assert "is current; nothing to write" in capsys.readouterr().err


def test_release_one_snapshot_is_reproducible(adopter: Path) -> None:
    out = adopter / "again.json"
    main(
        [
            "--root",
            str(adopter),
            "opset",
            "snapshot",
            "--schema-module",
            "acme_vision_1_0",
            "--output",
            str(out),
            "--execute",
        ]
    )
    assert out.read_text() == (adopter / "snapshots" / "acme-vision-1.0.json").read_text()


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


def test_broken_schema_module_is_a_clear_error(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(adopter, "no_such_module")
    assert main(["--root", str(adopter), "opset", "snapshot"]) == 2
    err = capsys.readouterr().err
    assert "tool.mlrelease.opset-rules.schema-modules" in err and "no_such_module" in err
