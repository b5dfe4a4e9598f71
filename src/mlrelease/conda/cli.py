"""``mlrelease conda``: the feedstock change of the bound release (dry run unless --execute)."""

from __future__ import annotations

import argparse
import json

from packaging.version import InvalidVersion, Version

from mlrelease.conda import service
from mlrelease.conda.names import MAPPING
from mlrelease.config import of_command
from mlrelease.errors import UserError
from mlrelease.terminal import make_console


def _version(text: str) -> Version:
    """``--version``, parsed at the command line."""
    try:
        return Version(text)
    except InvalidVersion:
        raise UserError(
            f"--version {text!r}: not a PEP 440 version (e.g. 1.4.0, 1.4.0rc1)."
        ) from None


def cmd_conda(args: argparse.Namespace) -> int:
    from rich.markup import escape

    config = of_command(args)
    version = _version(args.version) if args.version else None
    outcome = service.plan(config, version, args.rc)
    if args.json:
        print(json.dumps(service.summary(outcome), indent=2))
    else:
        console = make_console()
        release, proposal = outcome.release, outcome.proposal
        console.print(
            f"[bold]{outcome.package} {release.version}[/] -> conda-forge {proposal.label} "
            f"(feedstock {outcome.stock.remote}/{outcome.stock.branch} at "
            f"{outcome.stock.commit[:12]}, {outcome.stock.recipe_path})"
        )
        console.print(f"source: {escape(release.source_name)} sha256 {release.source_sha256}")
        console.print(
            f"requirements diffed against {outcome.previous or 'no previous release'}; "
            f"names by {MAPPING}"
        )
        console.print(escape(outcome.diff()) or "no change: the feedstock packages it already")
        for change in proposal.changes:
            console.print(f"  line {change.line + 1}: {escape(change.why)}")
        for text in proposal.undecided:
            console.print(f"[yellow]undecided[/]: {escape(text)}")
        for text in proposal.notes:
            console.print(f"note: {escape(text)}")
        for finding in outcome.findings:
            colour = "red" if finding.level == "error" else "yellow"
            console.print(f"[{colour}]lint {finding.rule}[/]: {escape(finding.text)}")
        for line in outcome.rendered.variants:
            console.print(f"rendered {escape(line)}")
        for line in outcome.rendered.problems:
            console.print(f"[red]render[/]: {escape(line)}")
        if outcome.rendered.skipped:
            console.print(escape(outcome.rendered.skipped))
        console.print(escape(outcome.build))
        console.print(
            "ready: the change can be merged as it is"
            if outcome.ready
            else f"[bold red]not ready[/]: {len(outcome.blockers)} thing(s) to decide or fix"
        )
    if not args.execute:
        if not args.json:
            print(
                f"Dry run: nothing written. --execute writes branch {outcome.branch} of the "
                "feedstock clone (--push: and pushes it)."
            )
        return 0
    for line in service.execute(outcome, push=args.push):
        print(line)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``conda`` to the mlrelease command line."""
    p = sub.add_parser(
        "conda",
        help="the conda-forge feedstock change of the bound release (dry run unless --execute)",
        description="Read the bound release (its manifest on origin and its files in the store: "
        "the version, the sdist's or the tag archive's SHA-256, each wheel's Requires-Dist and "
        "Requires-Python, the sdist's build requirements) and the feedstock recipe on the "
        "feedstock remote's branch ([tool.mlrelease.conda]); propose the change: version, "
        "hash, build number 0, run and host requirements diffed against the release's "
        "metadata (PyPI names mapped to conda-forge's), train sibling pins, the channel label "
        "(a release candidate goes to conda-forge/label/<package>_rc, a final to main). Say "
        "what could not be decided (a patch that no longer applies, a compiler, a CUDA "
        "variant), render the recipe with rattler-build and lint it. Dry run unless "
        "--execute, which writes the change as a branch of the feedstock clone.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--version",
        help="a final release (the files of the candidate its tag promoted; before the "
        "promotion, of its newest bound candidate), or a pre-release version (1.4.0rc1)",
    )
    which.add_argument(
        "--rc",
        metavar="TAG",
        help="a release candidate's tag: its bound files, to the RC label (CFEP-05)",
    )
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.add_argument("--execute", action="store_true", help="write the branch in the feedstock clone")
    p.add_argument("--push", action="store_true", help="with --execute: push the branch")
    p.set_defaults(func=cmd_conda)
