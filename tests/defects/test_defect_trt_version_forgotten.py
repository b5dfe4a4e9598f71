"""Torch-TensorRT: the version is bumped by hand in several files; one is forgotten."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from helpers.defects import text, verify

INCIDENT = {
    "title": "A version string is forgotten in one of the files that carry it",
    "year": 2021,
    "project": "Torch-TensorRT",
    "source": (
        "seeds/torch-tensorrt-release-process.md (step 4: bump the version in py/setup.py, "
        "cpp/include/macros.h and docsrc/conf.py by hand)"
    ),
    "gate": "versions",
    "reconstruction": "pyproject.toml says 1.4.0.dev0; the package's __init__.py still says 1.3.0.",
    "message": "`src/demo/__init__.py` line 3: found `1.3.0`, expected `1.4.0.dev0`",
}


def test_caught(make_repo: Callable[..., Path]) -> None:
    root = make_repo()
    module = root / "src" / "demo" / "__init__.py"
    module.write_text(module.read_text().replace("1.4.0.dev0", "1.3.0"))
    result = verify(root, "versions")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)


def test_clean_twin(make_repo: Callable[..., Path]) -> None:
    result = verify(make_repo(), "versions")
    assert result["status"] == "pass", result
