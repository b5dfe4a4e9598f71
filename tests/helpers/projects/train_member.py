"""A member of a release train: a pure src-layout project (hatchling, ``src/NAME``) whose
``[tool.mlrelease.release]`` names the train's staging (``rc-index``) and release indexes and,
for a member pinning its upstream, a release-only edit pinning its README to the upstream's
release branch; its tests call the upstream's API (``train bind`` runs them against the
upstream candidate)."""

from __future__ import annotations

from helpers.projects import pure

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "{name}"
version = "{dev}"
requires-python = ">=3.9"
dependencies = [{requires}]

[tool.hatch.build.targets.wheel]
packages = ["src/{module}"]

[tool.mlrelease]
gates = ["git_state", "changelog"]

[tool.mlrelease.wheels]
kind = "pure"

[tool.mlrelease.release]
index = "{release}"
rc-index = "{staging}"
edits = [{edits}]

"""

EDIT = '{ file = "README.md", search = "@release/main", replace = "@release/{upstream_series}" }'

MEMBER_TESTS = """\
\"\"\"{name}'s own tests: its code, and the {upstream} API it uses.\"\"\"

import {upstream}.core

from {module} import core


def test_its_answer() -> None:
    assert isinstance(core.answer(), int)


def test_the_upstream_api_it_uses() -> None:
    assert isinstance({upstream}.core.answer(), int)
"""
"""A member's tests (``train bind`` runs them against the upstream candidate)."""


def files(
    name: str, dev: str, requires: str, staging: str, release: str, *, upstream: str
) -> dict[str, str]:
    """The files of project ``name`` at its first commit, version ``dev``: a member (it
    ``requires`` its ``upstream``) with its tests and its README pinned to upstream's release
    branch on the cut; the upstream itself (``requires`` empty) without either. Staged on
    ``staging`` (the RC index), released on ``release``."""
    module = name.replace("-", "_")
    text = PYPROJECT.format(
        name=name,
        dev=dev,
        module=module,
        requires=f'"{requires}"' if requires else "",
        release=release,
        staging=staging,
        edits=EDIT if requires else "",
    )
    text += "\n" + pure.bumpversion(dev, module)
    readme = f"# {name}\n\nBuilt against https://example.com/{upstream}@release/main\n"
    tests = MEMBER_TESTS.format(name=name, upstream=upstream, module=module) if requires else ""
    return {
        **({"tests/test_core.py": tests} if tests else {}),
        "pyproject.toml": text,
        "README.md": readme,
        "CHANGELOG.md": "# Changelog\n\n<!-- insertion marker -->\n## Unreleased\n\n",
        f"src/{module}/__init__.py": f'"""{name}."""\n\n__version__ = "{dev}"\n',
        f"src/{module}/core.py": "def answer() -> int:\n    return 42\n",
        ".gitignore": "build/\ndist/\n__pycache__/\n",
    }
