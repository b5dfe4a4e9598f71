"""Named feedstock shapes for the conda tests: a recipe v1 feedstock (``recipe.yaml``, as
onnx's and torchvision's are) and a conda-build one (``meta.yaml``), each a real git repository
with a bare "origin", packaging the demo project's previous release.

The recipes are written the way conda-forge's feedstocks write them (grayskull's layout, a
patch, noarch python); :func:`make_feedstock` fills in the version, the hash and the run
requirements of the release they package."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers.release import GIT_ENV, Repo

REQUIREMENTS = """\
requirements:
  host:
    - python >=3.9
    - pip
    - hatchling
  run:
    - python >=3.9
{run}
"""
"""The demo's build and run requirements, as both recipe shapes spell them (``{run}``: the run
requirements of the release packaged)."""

RECIPE_V1 = (
    """\
schema_version: 1

context:
  name: demo
  version: "{version}"

package:
  name: ${{{{ name|lower }}}}
  version: ${{{{ version }}}}

source:
  url: https://pypi.org/packages/source/d/demo/demo-${{{{ version }}}}.tar.gz
  sha256: {sha256}
  patches:
    - patches/0001-answer.patch

build:
  number: 2
  noarch: python
  script: ${{{{ PYTHON }}}} -m pip install . -vv --no-deps --no-build-isolation

"""
    + REQUIREMENTS
    + """\
tests:
  - python:
      imports:
        - demo

about:
  license: Apache-2.0
  summary: The demo project
"""
)

META = (
    """\
{{% set name = "demo" %}}
{{% set version = "{version}" %}}

package:
  name: {{{{ name|lower }}}}
  version: {{{{ version }}}}

source:
  url: https://pypi.org/packages/source/d/demo/demo-{{{{ version }}}}.tar.gz
  sha256: {sha256}
  patches:
    - 0001-answer.patch

build:
  number: 2
  noarch: python
  script: {{{{ PYTHON }}}} -m pip install . -vv --no-deps --no-build-isolation

"""
    + REQUIREMENTS
    + """\
test:
  imports:
    - demo

about:
  license: Apache-2.0
  summary: The demo project
"""
)

PATCH = """\
--- a/src/demo/core.py
+++ b/src/demo/core.py
@@ -1,2 +1,2 @@
 def answer() -> int:
-    return 42
+    return 41
"""
"""A feedstock patch made against the demo's 1.4.0 sources."""

SHAPES = {
    "recipe.yaml": (RECIPE_V1, "recipe/patches/0001-answer.patch"),
    "meta.yaml": (META, "recipe/0001-answer.patch"),
}
"""Each shape: its recipe template and where its patch lives (beside a meta.yaml; in
``patches/`` for the v1 feedstocks conda-forge converted)."""


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def make_feedstock(
    base: Path,
    shape: str,
    version: str,
    sha256: str,
    run: list[str],
    extra: dict[str, str] | None = None,
    *,
    patched: bool = True,
) -> Path:
    """A feedstock of ``shape`` (``recipe.yaml`` or ``meta.yaml``) packaging demo ``version``:
    committed on main of a bare ``base/feedstock.git`` and cloned to ``base/feedstock``, which
    is returned. ``extra``: more files (a variants file); ``patched``: with its patch."""
    template, patch = SHAPES[shape]
    work = base / "feedstock-work"
    text = template.format(version=version, sha256=sha256, run="".join(f"    - {r}\n" for r in run))
    if not patched:
        listed = patch.removeprefix("recipe/")
        text = text.replace(f"  patches:\n    - {listed}\n", "")
    files = {
        f"recipe/{shape}": text,
        **({patch: PATCH} if patched else {}),
        "README.md": "# demo-feedstock\n",
        **(extra or {}),
    }
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    _git(base, "init", "-q", "-b", "main", str(work))
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "demo v" + version)
    _git(base, "init", "-q", "--bare", "-b", "main", str(base / "feedstock.git"))
    _git(work, "push", "-q", str(base / "feedstock.git"), "main")
    _git(base, "clone", "-q", str(base / "feedstock.git"), str(base / "feedstock"))
    return base / "feedstock"


def sdist_sha256(repo: Repo, version: str) -> str:
    """The SHA-256 of the sdist bound to ``version``'s first RC, as its manifest names it."""
    ref = repo.git("for-each-ref", "--format=%(refname)", f"refs/mlrelease/bound/v{version}-rc1")
    data = json.loads(repo.git("cat-file", "-p", ref.split()[0]))
    return str(next(f["sha256"] for f in data["files"] if f["name"].endswith(".tar.gz")))
