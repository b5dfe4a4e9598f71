"""Helpers shared by the test lanes: small real projects, git repositories, ONNX models.

Importable from any test folder (``pythonpath = ["tests"]`` in pyproject.toml), so that any
subset of the test folders collects; fixtures stay in the conftest.py files.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The root of this repository."""
