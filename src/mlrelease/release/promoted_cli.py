"""``mlrelease release promoted-rc TAG``: the release candidate a final tag promoted, read from
origin's refs, for the release workflow that downloads and publishes that candidate's files."""

from __future__ import annotations

import argparse
from typing import Any

from mlrelease.config import of_command
from mlrelease.release import service


def cmd_promoted_rc(args: argparse.Namespace) -> int:
    config = of_command(args, loader=service.resuming(args.load_config))
    print(service.promoted_rc(config, args.tag))
    return 0


def add_promoted_rc(sub: Any) -> None:
    """``mlrelease release promoted-rc``."""
    s = sub.add_parser(
        "promoted-rc",
        help="the release candidate a final tag promoted, read from origin",
        description="Print the release-candidate tag whose files the final tag TAG promoted: "
        "origin's TAG names the SHA-256 of the manifest `release promote` checked, and origin's "
        "refs/mlrelease/bound/<rc>/<that SHA-256> names the candidate. Refused, saying what is "
        "missing, when origin lacks the tag, the tag was not made by `release promote`, or the "
        'binding is gone. Under rc-model = "bump" the final tag is its own candidate. Reads '
        "only; changes nothing.",
    )
    s.add_argument("tag", metavar="TAG", help="the final release tag, e.g. v1.4.0")
    s.set_defaults(func=cmd_promoted_rc)
