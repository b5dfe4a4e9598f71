"""Pins of other packages that point at a nightly or development build (``torchvision==
0.26.0.dev20261101``, ``torch>=2.14.0.dev``): on a release branch they would make the release
depend on a nightly, as a pick brought into Torch-TensorRT's 2.13 (#4391). Read with
``packaging`` from pyproject.toml's declarations; pure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version


def _declared(pyproject: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, requirement text) of every dependency pyproject.toml declares."""
    project = pyproject.get("project", {})
    for text in project.get("dependencies", []) or []:
        yield "[project] dependencies", text
    for extra, items in (project.get("optional-dependencies", {}) or {}).items():
        for text in items or []:
            yield f"[project.optional-dependencies] {extra}", text
    for text in pyproject.get("build-system", {}).get("requires", []) or []:
        yield "[build-system] requires", text
    for group, items in (pyproject.get("dependency-groups", {}) or {}).items():
        for text in items or []:
            if isinstance(text, str):
                yield f"[dependency-groups] {group}", text


def dev_pins(pyproject: Mapping[str, Any]) -> list[str]:
    """``pyproject.toml [section]: requirement`` for each pin whose version is a development
    build (a ``.devN`` release: PyTorch's nightlies)."""
    found = []
    for where, text in _declared(pyproject):
        try:
            requirement = Requirement(str(text))
        except InvalidRequirement:
            continue  # the build's own tools report a malformed requirement
        for spec in requirement.specifier:
            try:
                dev = Version(spec.version.rstrip(".*")).is_devrelease
            except InvalidVersion:
                continue
            if dev:
                found.append(f"pyproject.toml {where}: {text}")
                break
    return found
