"""A real git project for the docs tests: a bare origin, and docs that differ between tags
v0.1.0 and v0.2.0 (and main). Named uniquely so that no other ``conftest`` shadows it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from helpers import REPO_ROOT

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
version = "{version}"
requires-python = ">=3.10"

[dependency-groups]
docs = ["sphinx>=8", "pydata-sphinx-theme>=0.16"]

[tool.mlrelease.docs]
base-url = "/"
"""

# The conf.py contract of a versioned build: the switcher JSON one level above the version
# folder, the current entry from MLRELEASE_DOCS_VERSION. The release here is a placeholder, so
# a page showing the real version proves it was injected at build time.
CONF = """\
import os

import demo

project = "demo"
release = version = "0.0.0+unset"
extensions = ["sphinx.ext.autodoc"]
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "switcher": {
        "json_url": "../switcher.json",
        "version_match": os.environ.get("MLRELEASE_DOCS_VERSION", "main"),
    },
    "check_switcher": False,
    "navbar_end": ["version-switcher"],
}
"""

INDEX = """\
Demo
====

.. toctree::

   guide

The demo documentation: {feature}.

.. automodule:: demo
"""

GUIDE = """\
Guide
=====

How to use {feature}.
"""


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


@dataclass
class Project:
    """A temporary adopter: its repository, its bare origin and where its site goes."""

    root: Path
    origin: Path

    @property
    def site(self) -> Path:
        return self.root / "build" / "site"


def commit_version(root: Path, version: str, feature: str) -> None:
    files = {
        "pyproject.toml": PYPROJECT.format(version=version),
        "src/demo/__init__.py": f'"""Demo {feature}: the package docstring at {version}."""\n',
        "docs/conf.py": CONF,
        "docs/index.rst": INDEX.format(feature=feature),
        "docs/guide.rst": GUIDE.format(feature=feature),
        ".gitignore": "build/\n__pycache__/\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", f"docs: {feature}")


def make_project(base: Path) -> Project:
    """v0.1.0 documents feature Alpha, v0.2.0 feature Beta, main (untagged) feature Gamma."""
    origin = base / "origin.git"
    root = base / "demo"
    subprocess.run(["git", "init", "--quiet", "--bare", str(origin)], check=True)
    root.mkdir()
    git(root, "init", "--quiet", "-b", "main")
    git(root, "config", "user.name", "Docs Test")
    git(root, "config", "user.email", "docs@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "remote", "add", "origin", str(origin))
    for version, feature in (("0.1.0", "Alpha"), ("0.2.0", "Beta")):
        commit_version(root, version, feature)
        git(root, "tag", "-a", f"v{version}", "-m", f"release {version}")
    commit_version(root, "0.3.0.dev0", "Gamma")
    git(root, "push", "--quiet", "origin", "main", "--tags")
    return Project(root, origin)


def invoke(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run this repository's invoke tasks (`invoke -r REPO_ROOT ...`) with ``cwd`` as the
    project, exactly as a maintainer would in that project."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "invoke", "-r", str(REPO_ROOT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@dataclass
class Frozen:
    """The project after freezing v0.1.0 then v0.2.0, with each run's output."""

    project: Project
    runs: list[subprocess.CompletedProcess[str]]
