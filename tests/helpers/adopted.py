"""Adopted repositories that many adoption tests start from, each built once per process as
a template (``tests/integration/adoption/conftest.py``, fixture ``copied``) and copied into
each test's own folder: ``base/work`` and its bare ``base/origin.git``, the layout
:func:`helpers.release.copy_repo` copies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from helpers.release import Repo
from helpers.replayed import adopt, push_tf2onnx, push_vision

Copied = Callable[..., Repo]
"""The ``copied`` fixture: ``copied(build, where="project")``, a copy of ``build``'s template."""


def tf2onnx(base: Path) -> Repo:
    """tensorflow-onnx (:func:`helpers.replayed.push_tf2onnx`), adopted as ``init`` proposes
    (version-bump RCs, tagged), committed and pushed."""
    repo = push_tf2onnx(base)
    adopt(repo)
    return repo


def tf2onnx_building(base: Path) -> Repo:
    """tensorflow-onnx whose release workflow only builds (``publishing=False``: as it was
    until its publish job landed with 1.17.0rc1), adopted as ``init`` proposes (tag RCs),
    committed and pushed."""
    repo = push_tf2onnx(base, publishing=False)
    adopt(repo)
    return repo


def vision(base: Path) -> Repo:
    """torchvision (:func:`helpers.replayed.push_vision`), adopted, committed and pushed."""
    repo = push_vision(base)
    adopt(repo)
    return repo
