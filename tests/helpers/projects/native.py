"""``demo-native``, a native project as its wheels are judged: the ``pyproject.toml`` of a C
extension whose wheels cibuildwheel builds for Linux x86_64, Windows AMD64 and macOS arm64,
``[tool.mlrelease.wheels] kind = "native"`` with its required platforms, and the trove
classifiers that promise its Pythons (the ``wheels`` gate and ``wheels promote`` read these;
a test that builds a real extension uses ``examples/custom-ops``)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from helpers.projects import write


def wheels_project(
    root: Path,
    *,
    pythons: list[str],
    build: list[str],
    skip: list[str] | None = None,
    required: list[str] | None = None,
    extra: str = "",
) -> Path:
    """A native project: classifiers for ``pythons``, ``[tool.cibuildwheel]`` selecting
    ``build`` minus ``skip``, the oldest Python of either as its ``requires-python`` (the
    release promises no older one, which no wheel would serve), and ``required`` platforms
    (extra TOML appended)."""
    classifiers = [f"Programming Language :: Python :: {p}" for p in pythons]
    minors = [int(p.split(".")[1]) for p in pythons]
    minors += [int(m) for m in re.findall(r"cp3(\d+)", " ".join(build))]
    oldest = f"3.{min(minors)}"
    platforms = required or ["manylinux_x86_64", "win_amd64", "macosx_arm64"]
    return write(
        root,
        {
            "pyproject.toml": f"""\
                [project]
                name = "demo-native"
                version = "1.1.0"
                requires-python = ">={oldest}"
                classifiers = {json.dumps(classifiers)}

                [tool.mlrelease]
                gates = ["wheels"]

                [tool.mlrelease.wheels]
                kind = "native"
                required-platforms = {json.dumps(platforms)}

                [tool.cibuildwheel]
                build = {json.dumps(build)}
                skip = {json.dumps(skip or [])}

                [tool.cibuildwheel.linux]
                archs = ["x86_64"]

                [tool.cibuildwheel.windows]
                archs = ["AMD64"]

                [tool.cibuildwheel.macos]
                archs = ["arm64"]
                """
            + textwrap.dedent(extra),
        },
    )
