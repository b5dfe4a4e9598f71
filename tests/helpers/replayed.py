"""Repositories shaped like the four projects replayed for issue 53, each pushed to a bare
origin: two ONNX converters (:func:`push_tf2onnx`: tensorflow-onnx; :func:`push_skl2onnx`:
sklearn-onnx) and two PyTorch domain libraries (:func:`push_vision`: torchvision;
:func:`push_audio`: torchaudio). Each keeps only the shape that fooled ``init`` or a release
command: the files, workflows, branches and tags, as the real projects have them."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
import tomllib

from helpers.release import Repo
from helpers.repo import mlrelease


def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


class History:
    """A repository written commit by commit (``base/work``), then pushed to ``base/origin.git``."""

    def __init__(self, base: Path) -> None:
        self.base, self.work = base, base / "work"
        self.work.mkdir(parents=True)
        _git(self.work, "init", "-q", "-b", "main")

    def commit(self, files: Mapping[str, str | None], message: str) -> str:
        """Write (a text) or delete (None) each file, then commit them."""
        for name, text in files.items():
            path = self.work / name
            if text is None:
                _git(self.work, "rm", "-q", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            _git(self.work, "add", name)
        _git(self.work, "commit", "-q", "-m", message)
        return _git(self.work, "rev-parse", "HEAD")

    def git(self, *args: str) -> str:
        return _git(self.work, *args)

    def push(self) -> Repo:
        origin = self.base / "origin.git"
        _git(self.base, "init", "-q", "--bare", "-b", "main", str(origin))
        _git(self.work, "remote", "add", "origin", str(origin))
        _git(self.work, "push", "-q", "origin", "--all")
        _git(self.work, "push", "-q", "origin", "--tags")
        _git(self.work, "switch", "-q", "main")
        _git(self.work, "fetch", "-q", "origin")
        return Repo(self.work, origin)


def proposal(repo: Repo) -> tuple[dict[str, Any], str]:
    """The tables ``mlrelease init`` proposes (parsed), and what it says (one line)."""
    proc = mlrelease(repo.path, "init")
    assert proc.returncode == 0, proc.stderr
    return tomllib.loads(proc.stdout)["tool"], " ".join(proc.stderr.split())


def adopt(repo: Repo, drop: str = "") -> None:
    """``init --execute`` (``drop``: text removed from what it wrote), committed and pushed."""
    proc = mlrelease(repo.path, "init", "--execute")
    assert proc.returncode == 0, proc.stderr
    path = repo.path / "pyproject.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(drop, ""), encoding="utf-8")
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("push", "-q", "origin", "main")


def follow_repair(repo: Repo, repair: Mapping[str, Any]) -> None:
    """A refusal's ``--json`` ``repair`` made as a program makes it, from the JSON alone: the
    command run or the keys set (tomlkit), then committed and pushed."""
    if repair["kind"] == "command":
        assert repair["command"][0] == "mlrelease", repair
        proc = mlrelease(repo.path, *repair["command"][1:])
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        path = repo.path / repair["file"]
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
        node: Any = doc
        for part in repair["table"].split("."):
            node = node[part]
        node.update(repair["set"])
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    assert repair["commit"] == ["pyproject.toml"] and repair["then"] == "re-run", repair
    repo.git("commit", "-q", "-am", f"chore: the repair the refusal named ({repair['kind']})")
    repo.git("push", "-q", "origin", "main")


# --- the ONNX converters ---------------------------------------------------------------------

TF2ONNX_SETUP = """\
import os
import subprocess
from setuptools import setup

TOP_DIR = os.path.realpath(os.path.dirname(__file__))
with open(os.path.join(TOP_DIR, "VERSION_NUMBER")) as version_file:
    version = version_file.read().strip()

setup(name="tf2onnx", version=version, packages=["tf2onnx"])
"""

UNIT_TEST_CI = """\
name: Unit Test (CI)
on:
  pull_request:
    branches:
      - main
  push:
    branches:
      - main
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./.github/actions/unit_test
        with:
          tf_version: '2.15.0'
          ort_version: '1.16.3'
          onnx_version: '{onnx}'
"""
"""tensorflow-onnx's unit-test workflow: the ONNX version under test, which happened to equal
the converter's own version (1.16.1)."""

PYPI_ON_V_TAGS = """\
name: Release
on:
  push:
    branches:
      - main
    tags:
      - 'v*'
  pull_request:
    branches:
      - main
  workflow_dispatch:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python -m build
      - uses: actions/upload-artifact@v4
        with:
          name: dist
          path: dist/
  publish:
    name: Publish to PyPI
    needs: build
    runs-on: ubuntu-latest
    if: github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')
    environment: pypi
    permissions:
      id-token: write
    steps:
      - uses: actions/download-artifact@v4
        with:
          name: dist
          path: dist/
      - name: Publish to PyPI
        uses: pypa/gh-action-pypi-publish@release/v1
"""
"""tensorflow-onnx's release workflow: every ``v*`` tag pushed publishes what it builds."""


def push_tf2onnx(base: Path, onnx: str = "1.16.1", publishing: bool = True) -> Repo:
    """tensorflow-onnx at 1.16.1 on main: ``VERSION_NUMBER`` (read by setup.py), four CI
    workflows testing ``onnx_version: '1.16.1'`` (``onnx``), a release workflow publishing to
    PyPI on every ``v*`` tag (without ``publishing``: building only, as it did until its
    publish job landed with 1.17.0rc1); ``v1.16.0`` and ``v1.16.1`` tagged on main."""
    history = History(base)
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64"]\n'
        'build-backend = "setuptools.build_meta"\n',
        "setup.py": TF2ONNX_SETUP,
        "VERSION_NUMBER": "1.16.0\n",
        "tf2onnx/__init__.py": '"""tf2onnx."""\n',
        ".gitignore": "build/\ndist/\n*.egg-info/\n__pycache__/\n",
        ".github/workflows/release.yml": PYPI_ON_V_TAGS
        if publishing
        else PYPI_ON_V_TAGS.split("  publish:")[0],
    }
    history.commit(files, "Initial tf2onnx")
    history.git("tag", "-a", "v1.16.0", "-m", "1.16.0")
    history.commit({"tf2onnx/convert.py": "OPSET = 18\n"}, "Support opset 18")
    history.commit({"VERSION_NUMBER": "1.16.1\n"}, "Prepare updates for release 1.16.1.")
    history.git("tag", "-a", "v1.16.1", "-m", "1.16.1")
    workflows = {
        f".github/workflows/{name}.yml": UNIT_TEST_CI.format(onnx=onnx)
        for name in ("unit_test_ci", "keras_unit_test_ci", "pretrained_model_test_ci")
    }
    history.commit(workflows, "Test against onnx " + onnx)
    return history.push()


SKL2ONNX_PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "skl2onnx"
dynamic = ["version"]

[tool.setuptools.dynamic]
version = {attr = "skl2onnx.__version__"}
"""

PYPI_ON_GITHUB_RELEASE = """\
# This workflow will upload a Python Package using Twine when a release is created
name: Upload Python Package

on:
  release:
    types: [published]

jobs:
  deploy:
    runs-on: ubuntu-latest
    environment: release
    permissions:
      id-token: write
    steps:
    - uses: actions/checkout@v4
    - name: Build package
      run: python -m build
    - name: Publish package
      uses: pypa/gh-action-pypi-publish@release/v1
      with:
        attestations: true
"""
"""sklearn-onnx's release workflow: a published GitHub release uploads to PyPI."""


def push_skl2onnx(base: Path) -> Repo:
    """sklearn-onnx on main (no release branches): ``__version__`` in ``skl2onnx/__init__.py``,
    tags spelled both ways (``1.16.0``, ``1.17.0``, then ``v1.19.1``, the version main still
    carries), and a workflow uploading to PyPI when a GitHub release is published."""
    history = History(base)
    files = {
        "pyproject.toml": SKL2ONNX_PYPROJECT,
        "skl2onnx/__init__.py": '"""skl2onnx."""\n\n__version__ = "1.16.0"\n',
        ".gitignore": "build/\ndist/\n*.egg-info/\n__pycache__/\n",
        ".github/workflows/release.yml": PYPI_ON_GITHUB_RELEASE,
    }
    history.commit(files, "Initial skl2onnx")
    history.git("tag", "1.16.0")
    for version, tag in (("1.17.0", "1.17.0"), ("1.19.1", "v1.19.1")):
        init = f'"""skl2onnx."""\n\n__version__ = "{version}"\n'
        history.commit({"skl2onnx/__init__.py": init}, f"update version to {version}")
        history.git("tag", tag)
    history.commit({"skl2onnx/tree.py": "DEPTH = 3\n"}, "Support a deeper tree (#1190)")
    return history.push()


# --- the PyTorch domain libraries --------------------------------------------------------------

VISION_SETUP = """\
import os
import subprocess
from setuptools import setup

cwd = os.path.dirname(os.path.abspath(__file__))
version = open(os.path.join(cwd, "version.txt")).read().strip()
sha = subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=cwd).decode("ascii").strip()
version += "+" + sha[:7]


def write_version_file():
    with open(os.path.join(cwd, "torchvision", "version.py"), "w") as f:
        f.write(f"__version__ = '{version}'\\n")
        f.write(f"git_version = {repr(sha)}\\n")


write_version_file()
setup(name="torchvision", version=version, packages=["torchvision"])
"""
"""torchvision's setup.py: it writes the git-ignored ``torchvision/version.py``."""

BUILD_LINUX = """\
name: Build Linux Wheels

on:
  pull_request:
  push:
    branches:
      - nightly
      - main
      - release/*
    tags:
      - v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+
  workflow_dispatch:

jobs:
  generate-matrix:
    uses: pytorch/test-infra/.github/workflows/generate_binary_build_matrix.yml@main
    with:
      package-type: wheel
      os: linux
      test-infra-repository: pytorch/test-infra
      test-infra-ref: main
  build:
    needs: generate-matrix
    uses: pytorch/test-infra/.github/workflows/build_wheels_linux.yml@main
    with:
      repository: pytorch/vision
      test-infra-repository: pytorch/test-infra
      test-infra-ref: main
      build-matrix: ${{ needs.generate-matrix.outputs.matrix }}
"""
"""torchvision's wheel workflow on main: reusable workflows of pytorch/test-infra at ``@main``,
the same ``main`` as ``test-infra-ref`` and as a branch that triggers it."""

DOCS = """\
name: Docs
on:
  push:
    branches:
      - main
jobs:
  build:
    uses: pytorch/test-infra/.github/workflows/linux_job.yml@main
"""

LINT = """\
name: Lint
on:
  push:
    branches: [main]
jobs:
  lint:
    uses: pytorch/test-infra/.github/workflows/linux_job.yml@main
    with:
      script: pre-commit run --all-files
"""


def pinned(text: str, series: str) -> str:
    """A workflow as a release branch pins it: pytorch/test-infra at ``release/<series>``
    (the PyTorch series the release pairs with)."""
    return text.replace(".yml@main", f".yml@release/{series}").replace(
        "test-infra-ref: main", f"test-infra-ref: release/{series}"
    )


VISION = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64", "torch"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "setup.py": VISION_SETUP,
    "version.txt": "0.17.0a0\n",
    "torchvision/__init__.py": '"""torchvision."""\n',
    ".gitignore": "build/\ndist/\n*.egg-info/\n__pycache__/\ntorchvision/version.py\n",
    ".github/workflows/build-wheels-linux.yml": BUILD_LINUX,
    ".github/workflows/docs.yml": DOCS,
    ".github/workflows/lint.yml": LINT,
}


def push_vision(base: Path) -> Repo:
    """torchvision: ``release/0.17`` (pairing with PyTorch 2.2) starts with the release-only
    commit pinning pytorch/test-infra at ``release/2.2`` in every workflow; a fix is picked by
    hand (``cherry-pick -x``, no trailer); ``v0.17.0-rc1`` and ``v0.17.0`` sit on commits
    whose ``version.txt`` says ``0.17.0a0``. main then moved to ``0.18.0a0`` and deleted the
    docs workflow the branch had pinned."""
    history = History(base)
    history.commit(VISION, "Initial torchvision")
    history.git("switch", "-q", "-c", "release/0.17")
    pins = {name: pinned(VISION[name], "2.2") for name in VISION if name.startswith(".github/")}
    history.commit(pins, "[RELEASE-ONLY CHANGES] Branch cut 0.17")
    history.git("tag", "-a", "v0.17.0-rc1", "-m", "0.17.0 rc1")
    history.git("switch", "-q", "main")
    history.commit({"version.txt": "0.18.0a0\n"}, "Bump version to 0.18.0a0 (#8201)")
    fix = history.commit({"torchvision/ops.py": "EPS = 1e-6\n"}, "Fix nms on empty boxes (#8210)")
    history.git("switch", "-q", "release/0.17")
    history.git("cherry-pick", "-x", fix)
    history.git("tag", "-a", "v0.17.0-rc2", "-m", "0.17.0 rc2")
    history.git("tag", "-a", "v0.17.0", "-m", "0.17.0")
    history.git("switch", "-q", "main")
    history.commit({".github/workflows/docs.yml": None}, "Move the docs job to CI (#8230)")
    history.commit({"torchvision/io.py": "FORMATS = ()\n"}, "Add a video reader (#8240)")
    return history.push()


def push_audio(base: Path) -> Repo:
    """torchaudio: like :func:`push_vision` in ``release/2.2`` (its own series pairs with
    PyTorch's), except that the branch's first commit fixes a typo in the README and its
    second is the release-only commit."""
    history = History(base)
    files = {**VISION, "version.txt": "2.2.0a0\n", "README.md": "# torchaudio\n\nmain docs\n"}
    files = {name.replace("torchvision", "torchaudio"): text for name, text in files.items()}
    history.commit(files, "Initial torchaudio")
    history.git("switch", "-q", "-c", "release/2.2")
    history.commit({"README.md": "# torchaudio\n\nthe docs\n"}, "Fix a typo in the README")
    pins = {
        name: pinned(files[name], "2.2")
        for name in (".github/workflows/build-wheels-linux.yml", ".github/workflows/lint.yml")
    }
    history.commit(pins, "[RELEASE-ONLY CHANGES] Pin test-infra to release/2.2")
    history.git("tag", "-a", "v2.2.0-rc1", "-m", "2.2.0 rc1")
    history.git("tag", "-a", "v2.2.0", "-m", "2.2.0")
    history.git("switch", "-q", "main")
    history.commit({"version.txt": "2.3.0a0\n"}, "Bump version to 2.3.0a0")
    return history.push()
