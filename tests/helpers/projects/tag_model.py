"""The PyTorch family's tag model (PyTorch, Torch-TensorRT, torchao): ``version.txt`` keeps a
development marker (``2.13.0a0``), release branches ``release/X.Y`` hold the RCs as tags
(``v2.13.0-rc1``), and the build takes the version from the tag. These are the projects'
files before adoption (``mlrelease init`` writes their ``[tool.mlrelease]``);
``helpers.torch_family`` commits them into the family's history and pushes it to an origin."""

from __future__ import annotations

FILES = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64"]\n'
    'build-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "demo"\ndynamic = ["version"]\n\n'
    '[tool.setuptools.dynamic]\nversion = {file = "version.txt"}\n',
    "version.txt": "2.13.0a0\n",
    "src/demo/__init__.py": '"""demo."""\n',
    "src/demo/core.py": "def answer() -> int:\n    return 42\n",
    "CHANGELOG.md": "# Changelog\n\n<!-- insertion marker -->\n## Unreleased\n\n",
    ".gitignore": "build/\ndist/\n__pycache__/\n*.egg-info/\n",
}

TENSORRT_SETUP = """\
from setuptools import Extension, setup

with open("version.txt") as handle:
    __version__ = handle.read().strip()

setup(
    name="torch_tensorrt",
    version=__version__,
    ext_modules=[Extension("torch_tensorrt._C", ["core/compiler.cpp"])],
)
"""

TENSORRT_WORKFLOW = """\
name: Build and test Linux wheels
on: [pull_request, push]
jobs:
  build:
    uses: pytorch/test-infra/.github/workflows/build_wheels_linux.yml@main
    with:
      repository: pytorch/tensorrt
      package-name: torch_tensorrt
      pre-script: packaging/pre_build_script.sh
"""

TENSORRT = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "setup.py": TENSORRT_SETUP,
    "version.txt": "2.13.0a0\n",
    "core/compiler.cpp": "int answer() { return 42; }\n",
    "src/torch_tensorrt/__init__.py": '"""torch_tensorrt."""\n',
    "CHANGELOG.md": FILES["CHANGELOG.md"],
    ".gitignore": FILES[".gitignore"],
    ".github/workflows/build-tensorrt-linux.yml": TENSORRT_WORKFLOW,
    ".github/workflows/build-tensorrt-windows.yml": TENSORRT_WORKFLOW.replace("linux", "windows"),
    "packaging/pre_build_script.sh": "#!/bin/bash\npython setup.py bdist_wheel\n",
}
"""Torch-TensorRT's shape (pytorch/TensorRT): the name only in ``setup.py`` (no ``[project]``
table), a native build, and wheels built by pytorch/test-infra's reusable workflows and a
build script, never by cibuildwheel."""


STOPPED_CHANGELOG = (
    "# Changelog\n\n\n# 0.2.0 (2021-02-25)\n\n\n### Features\n\n* **//core:** a feature\n"
)
"""Torch-TensorRT's CHANGELOG.md: conventional-changelog sections that stopped at an old
release (its release notes are on GitHub releases since)."""


AO_SETUP = """\
from setuptools import setup

with open("version.txt") as handle:  # nightlies append .dev<date> themselves
    version = handle.read().strip()

setup(name="demo", version=version, packages=["demo"])
"""
"""torchao's and executorch's setup.py: the build reads version.txt."""

AO = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "setup.py": AO_SETUP,
    "version.txt": "0.18.0\n",
    "demo/__init__.py": '"""demo."""\n',
    ".gitignore": FILES[".gitignore"],
}
