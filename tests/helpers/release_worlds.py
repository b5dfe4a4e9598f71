"""Hand-built snapshots of a release flow (:class:`mlrelease.release.world.snapshot.World`) for the
tests of the pure planners (cut, prepare, rc, cherry-picks, bind, promote): no git, no files."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release.publishers import WORKFLOWS
from mlrelease.release.world.snapshot import RC_MARKER, Refs, Remote, Tag, World

ROOT = Path("/nowhere/demo")
CONFIG = Config(root=ROOT)
M, M2, B, B2, AHEAD, X = ("1" * 40, "2" * 40, "b" * 40, "c" * 40, "0" * 40, "e" * 40)
FILES = ("pyproject.toml", "src/demo/__init__.py")
LOG = "# Changelog\n\n<!-- insertion marker -->\n"


def main_world(**changes: object) -> World:
    """main at M carrying 1.4.0.dev0, checked out and clean; origin's main is M too."""
    snap = World(
        root=ROOT,
        local=Refs(heads={"main": M}),
        remote=Remote("origin", Refs(heads={"main": M})),
        branch="main",
        head=M,
        commits={"refs/heads/main": M, "main": M},
        versions={"main": "1.4.0.dev0", M: "1.4.0.dev0"},
        version_files={"main": FILES},
        listings={("main", WORKFLOWS): ()},
    )
    return dataclasses.replace(snap, **changes)  # type: ignore[arg-type]


def without_pins(snap: World) -> World:
    """``snap`` with the files ``release rc`` reads for pins and publishing workflows at HEAD
    (none there), as the reader gathers them."""
    head = str(snap.head)
    files = {**snap.files, (head, "pyproject.toml"): None, (head, "setup.py"): None}
    listings = {**snap.listings, (head, "*requirements*.txt"): (), (head, WORKFLOWS): ()}
    return dataclasses.replace(snap, files=files, listings=listings)


def refused(match: str, call: object, *args: object, **kwargs: object) -> None:
    with pytest.raises((PreconditionError, UserError), match=re.escape(match)):
        call(*args, **kwargs)  # type: ignore[operator]


def branch_world(**changes: object) -> World:
    """release/1.4 at B carrying 1.4.0.dev0 with no 1.4.0 changelog section, checked out."""
    snap = main_world(
        local=Refs(heads={"main": M2, "release/1.4": B}),
        remote=Remote("origin", Refs(heads={"main": M2, "release/1.4": B})),
        branch="release/1.4",
        head=B,
        versions={"release/1.4": "1.4.0.dev0"},
        files={("release/1.4", "CHANGELOG.md"): LOG},
        version_files={"release/1.4": FILES},
        listings={("release/1.4", WORKFLOWS): ()},
    )
    return dataclasses.replace(snap, **changes)  # type: ignore[arg-type]


BRANCH_BEHIND = {
    "remote": Remote("origin", Refs(heads={"release/1.4": AHEAD})),
    "ancestry": {(AHEAD, B): False},
}
"""Origin's release/1.4 has a commit the local one lacks (a colleague pushed)."""


def rc(name: str, commit: str, obj: str = X, annotated: bool = True, marker: bool = True) -> Tag:
    message = f"1.4.0 release candidate\n\n{RC_MARKER}\n" if marker else "by hand\n"
    return Tag(name, obj if annotated else commit, commit, annotated, message)
