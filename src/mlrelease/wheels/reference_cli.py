"""``mlrelease wheels source-digest`` and ``provenance``: the source digest a wheel build's
provenance names, and the statements that carry it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.markup import escape

from mlrelease.config import of_command
from mlrelease.terminal import make_console
from mlrelease.wheels import artifacts, attest, reference


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
        "reads it. `mlrelease wheels provenance` writes it into the in-toto statement of each "
        'wheel the wheel workflow builds (resolvedDependencies: {"name": "source", "digest": '
        '{"sha256": ...}}), so that compiled code this machine cannot rebuild is accepted on '
        "that provenance (docs/release/invariants.md, (c)).",
    )
    s.add_argument("--commit", default="HEAD", help="the commit (default: HEAD)")
    s.set_defaults(func=cmd_source_digest)


def cmd_provenance(args: argparse.Namespace) -> int:
    root = of_command(args, root=args.project).root
    done = attest.write(root, args.folder, args.commit, args.run_url)
    console = make_console()
    console.print(
        f"{done.folder}: built by {escape(done.run)} from {done.commit[:12]}, "
        f"source {done.source[:23]}..."
    )
    for path in done.statements:
        console.print(f"  wrote {path.name}")
    if not done.statements:
        console.print("  no wheel here (an sdist job): no statement written")
    if done.sums is not None:
        console.print(f"  wrote {artifacts.SUMS} (the artifacts and the statements)")
    return 0


def add_provenance(sub: Any) -> None:
    """``mlrelease wheels provenance``."""
    p = sub.add_parser(
        "provenance",
        help="write the in-toto statement of each wheel's build (the run, commit, source digest)",
        description="Write DIR/<wheel>.intoto.json for each wheel of DIR: an in-toto statement "
        "(SLSA provenance) naming the wheel's SHA-256, the commit checked out, the source digest "
        "of its tree (`wheels source-digest`) and the workflow run. `release bind` accepts a "
        "compiled member it cannot rebuild here only with such a statement of its build "
        "(docs/release/reference-build.md). Run it in the build's checkout, after the build: "
        "the checkout must be at --commit with no tracked file changed, and DIR must match its "
        "SHA256SUMS, which is written again to cover the statements. Running it again writes "
        "the same bytes.",
    )
    p.add_argument("folder", type=Path, metavar="DIR", help="the folder the build wrote")
    p.add_argument(
        "--run-url",
        required=True,
        metavar="URL",
        help="the workflow run that built the wheels: on GitHub Actions "
        "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID/attempts/"
        "$GITHUB_RUN_ATTEMPT",
    )
    p.add_argument(
        "--commit",
        default="HEAD",
        help="the commit the wheels were built from; must be the checkout's (default: HEAD)",
    )
    p.add_argument(
        "--project", type=Path, metavar="DIR", help="project folder (default: the --root project)"
    )
    p.set_defaults(func=cmd_provenance)
