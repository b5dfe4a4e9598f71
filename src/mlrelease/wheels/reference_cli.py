"""``mlrelease wheels source-digest``: the source digest a wheel build's provenance names."""

from __future__ import annotations

import argparse
from typing import Any

from mlrelease.config import of_command
from mlrelease.terminal import make_console
from mlrelease.wheels import reference


def cmd_source_digest(args: argparse.Namespace) -> int:
    root = of_command(args).root
    commit, digest = reference.source_digest(root, args.commit)
    print(digest)
    make_console(stderr=True).print(
        f"the tree of {commit[:12]}, checked out from git objects as the reference build reads it"
    )
    return 0


def add_source_digest(sub: Any) -> None:
    """``mlrelease wheels source-digest``."""
    s = sub.add_parser(
        "source-digest",
        help="print the source digest of a commit's tree (for a wheel build's provenance)",
        description="Print the SHA-256 over every file of the commit's tree, submodules "
        "included, checked out from git objects as the reference build of `release bind` "
        "reads it. The wheel workflow writes it into the in-toto statement of each wheel it "
        'builds (resolvedDependencies: {"name": "source", "digest": {"sha256": ...}}), '
        "so that compiled code this machine cannot rebuild is accepted on that provenance "
        "(docs/release/invariants.md, (c)).",
    )
    s.add_argument("--commit", default="HEAD", help="the commit (default: HEAD)")
    s.set_defaults(func=cmd_source_digest)
