"""The change written into the maintainers' text (pure): each line replaced, deleted or
inserted where the planner said, every other byte as it was; and the channel target of the
build (CFEP-05: release candidates to ``conda-forge/label/<package>_rc``, finals to ``main``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mlrelease.conda.propose import Change

VARIANTS = {"recipe.yaml": "recipe/variants.yaml", "meta.yaml": "recipe/conda_build_config.yaml"}
"""Where a feedstock sets ``channel_targets``: beside a v1 recipe, ``variants.yaml``; beside a
``meta.yaml``, ``conda_build_config.yaml``."""


def apply(text: str, changes: Sequence[Change]) -> str:
    """``text`` with ``changes`` applied (line numbers are the original text's)."""
    lines = text.splitlines()
    replaced = {c.line: c.text for c in changes if c.kind == "replace"}
    deleted = {c.line for c in changes if c.kind == "delete"}
    inserted: dict[int, list[str]] = {}
    for change in changes:
        if change.kind == "insert":
            inserted.setdefault(change.line, []).append(change.text)
    out = []
    for n, line in enumerate(lines):
        if n not in deleted:
            out.append(replaced.get(n, line))
        out += inserted.get(n, [])
    return "\n".join(out) + ("\n" if text.endswith("\n") or not text else "")


_TARGETS = re.compile(r"^channel_targets:\s*\n((?:[ \t]*-.*\n?)+)", re.M)


def channel_targets(text: str | None, label: str) -> str | None:
    """The variants file with ``channel_targets`` set to ``conda-forge <label>``: None when no
    file is needed (the final release, and no file, or none naming a target: ``main`` is the
    default)."""
    target = f"conda-forge {label}"
    block = f"channel_targets:\n  - {target}\n"
    if text is None or not text.strip():
        return None if label == "main" else block
    match = _TARGETS.search(text)
    if match is None:
        if label == "main":
            return text
        return text.rstrip("\n") + "\n" + block
    if label == "main" and "main" in match.group(1):
        return text
    return text[: match.start()] + block + text[match.end() :]


def targets_of(text: str | None) -> str:
    """The label the variants file sends the build to (``main`` when it names none)."""
    match = _TARGETS.search(text or "")
    if match is None:
        return "main"
    first = match.group(1).strip().splitlines()[0].lstrip("- ").strip().strip("\"'")
    return first.split()[-1] if first else "main"
