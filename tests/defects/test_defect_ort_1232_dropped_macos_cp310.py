"""onnxruntime 1.23.2 dropped the macOS CPython 3.10 wheels that 1.23.1 had."""

from __future__ import annotations

from pathlib import Path

from helpers.defects import artifact_names, text, verify
from helpers.projects.native import wheels_project

INCIDENT = {
    "title": "A patch release silently drops a Python version on one platform",
    "year": 2025,
    "project": "onnxruntime 1.23.2",
    "source": (
        "https://github.com/microsoft/onnxruntime/issues/26416 (and #26413: Windows, Python 3.10)"
    ),
    "gate": "wheels",
    "reconstruction": (
        "1.23.1 shipped cp310 wheels on Linux, Windows and macOS. For 1.23.2 the build config "
        "skips cp310 on macOS and 3.10 left the classifiers, so the build plan covers what the "
        "configuration requires; only the previous release's artifact set shows the loss."
    ),
    "message": (
        "cp310-macosx_arm64 was released in the previous release (ci/1.23.1-SHA256SUMS: "
        "cp310-macosx_arm64) and is missing now"
    ),
}

PREVIOUS = [
    f"{p}-{t}"
    for p in ("cp310", "cp311")
    for t in ("manylinux_x86_64", "win_amd64", "macosx_arm64")
]
DROPPED = """
[[tool.mlrelease.wheels.dropped]]
target = "cp310-macosx_arm64"
reason = "the macOS 3.10 runner image was retired"
decision = "https://github.com/example/demo/issues/1"
"""


def _project(tmp_path: Path, extra: str = "") -> Path:
    root = wheels_project(
        tmp_path / "demo",
        pythons=["3.11"],
        build=["cp310-*", "cp311-*"],
        skip=["cp310-macosx*"],
    )
    pyproject = root / "pyproject.toml"
    body = pyproject.read_text(encoding="utf-8").replace(
        'kind = "native"', 'kind = "native"\nprevious-artifacts = "ci/1.23.1-SHA256SUMS"'
    )
    pyproject.write_text(body + extra, encoding="utf-8")
    (root / "ci").mkdir()
    names = artifact_names("demo-native", "1.1.0", PREVIOUS)
    (root / "ci/1.23.1-SHA256SUMS").write_text(
        "".join(f"{'0' * 64}  {n}\n" for n in names), encoding="utf-8"
    )
    return root


def test_caught(tmp_path: Path) -> None:
    result = verify(_project(tmp_path), "wheels")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)
    assert "record the decision to drop it in [[tool.mlrelease.wheels.dropped]]" in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    """The same plan, with the decision to drop macOS 3.10 recorded."""
    result = verify(_project(tmp_path, DROPPED), "wheels")
    assert result["status"] == "pass", result


def test_a_decision_without_its_record_is_refused(tmp_path: Path) -> None:
    result = verify(
        _project(
            tmp_path,
            DROPPED.replace("issues/1", "").replace('"https://github.com/example/demo/"', '""'),
        ),
        "wheels",
    )
    assert result["status"] == "error"
    assert "tool.mlrelease.wheels.dropped[0].decision" in result["summary"]
