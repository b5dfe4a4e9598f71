"""``mlrelease init`` reads a repository once: its detectors read only the snapshot.

The claim of :mod:`mlrelease.init.snapshot`'s docstring, kept true on the syntax trees: the
detector modules import no edge and no module that reaches disk or processes (``os``,
``pathlib``, ``shutil``, ``subprocess``, ``io``, ``glob``, ``tempfile``) and call no ``open``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mlrelease.init

INIT = Path(mlrelease.init.__file__).parent
DETECTORS = (
    "detect",
    "shape",
    "version_source",
    "carriers",
    "release_edits",
    "publishing",
    "propose",
)
OUTSIDE = {"os", "pathlib", "shutil", "subprocess", "io", "glob", "tempfile"}


def reaches_outside(source: str) -> list[str]:
    """What a module's source imports or calls that reaches disk, processes or an edge."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names = ["open()"] if node.func.id == "open" else []
        else:
            names = []
        found += [
            n
            for n in names
            if n == "open()" or n.split(".")[0] in OUTSIDE or n.startswith("mlrelease.edges")
        ]
    return found


def test_the_detectors_read_only_the_snapshot() -> None:
    found = {
        name: reaches_outside((INIT / f"{name}.py").read_text(encoding="utf-8"))
        for name in DETECTORS
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_a_detector_that_reads_git_or_disk_is_found() -> None:
    source = "import os\nfrom mlrelease.edges import git\ndef f(p):\n    return open(p).read()\n"
    assert reaches_outside(source) == ["os", "mlrelease.edges", "open()"]
