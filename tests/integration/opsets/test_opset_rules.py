"""Operator-versioning rules (ONNX PR 186) end to end: the example custom domain across two
snapshots, the snapshot writer, and a schema module that does not import. The rules alone, on
hand-made snapshots: tests/unit/opsets/test_rules.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import REPO_ROOT

from mlrelease.cli import main

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


def test_broken_schema_module_is_a_clear_error(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(adopter, "no_such_module")
    assert main(["--root", str(adopter), "opset", "snapshot"]) == 2
    err = capsys.readouterr().err
    assert "tool.mlrelease.opset-rules.schema-modules" in err and "no_such_module" in err
