"""``mlrelease train ...``: status, cut, bind, promote and the compatibility matrix of a release
train (the train file: :mod:`.declaration`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mlrelease.config import Config, of_command
from mlrelease.edges import files
from mlrelease.release import service as release_service
from mlrelease.release.plan import Plan
from mlrelease.terminal import message_console
from mlrelease.train import service, status

console = message_console()

SAFETY = (
    "Dry run unless --execute: prints what it would do. Checks its preconditions against the "
    "members' origins and the indexes first; a second run finds nothing to do, and a run "
    "killed at any step resumes."
)


def _say(text: str) -> None:
    console.print(text, soft_wrap=True, markup=False)


def _config(args: argparse.Namespace) -> Config:
    return of_command(args, outside_project=True)


def _release_config(args: argparse.Namespace) -> Config:
    """The configuration, as a release command reads it
    (:func:`mlrelease.release.service.resuming`)."""
    return of_command(args, loader=release_service.resuming(args.load_config))


def _show(made: Plan, args: argparse.Namespace) -> None:
    """Show the plan or run it (``--execute``); ``--json``: one JSON object on stdout."""
    if not args.json:
        made.print(execute=args.execute, out=_say)
        return
    if args.execute and not made.noop:
        made.execute(echo=_say)
    print(json.dumps(made.data(executed=args.execute), indent=2), flush=True)


def cmd_status(args: argparse.Namespace) -> int:
    data = service.train_status(_config(args), args.train)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        message_console(stderr=False).print(status.table(data))
    return 0


def cmd_cut(args: argparse.Namespace) -> int:
    _show(service.cut_plan(_release_config(args), args.train, args.push), args)
    return 0


def cmd_bind(args: argparse.Namespace) -> int:
    asked = release_service.RcChoice(rc=args.rc, artifacts=args.artifacts)
    made = service.bind_plan(_release_config(args), args.train, asked, args.push, say=_say)
    _show(made, args)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    made = service.promote_plan(
        _config(args), args.train, args.workspace, args.load_config, restart=args.restart, echo=_say
    )
    _show(made, args)
    return 0


def cmd_matrix(args: argparse.Namespace) -> int:
    page = service.matrix_page(_config(args), args.train)
    return files.run(args, [page], command="mlrelease train matrix", say=_say)


def _train(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--train",
        type=Path,
        metavar="FILE",
        help="the train file (default: [tool.mlrelease.train] file, train.toml)",
    )


def _act(s: argparse.ArgumentParser, push: bool = True) -> None:
    s.add_argument("--execute", action="store_true", help="act (default: dry run)")
    if push:
        s.add_argument("--push", action="store_true", help="push what it makes to origin")
    s.add_argument("--json", action="store_true", help="print the plan as one JSON object")


def register(subparsers: Any) -> None:
    """Add ``mlrelease train ...``."""
    p = subparsers.add_parser(
        "train",
        help="a release train across repositories: status, cut, bind, promote, matrix",
        description="A release train: an upstream (torch, onnx) and its members released as "
        "one, declared in a train file (members and their origins, upstream edges, the cut "
        "schedule, variant gaps, the staging and release indexes, series parameters). Each "
        "member candidate is bound to the upstream candidate it was built against, by SHA-256 "
        "from the staging index; promotion goes in dependency order. " + SAFETY,
    )
    sub = p.add_subparsers(dest="train_command", required=True, metavar="ACTION")
    s = sub.add_parser(
        "status",
        help="the whole train: series, candidates, bindings, next steps, what blocks",
        description="Read every member's origin and the staging and release indexes and show, "
        "in dependency order, each member's series, candidates, what its newest candidate is "
        "bound to (its files, the upstream candidate it was built against), what the indexes "
        "hold, its next step and what blocks it. Changes nothing.",
    )
    _train(s)
    s.add_argument("--json", action="store_true", help="print the status as JSON")
    s.set_defaults(func=cmd_status)
    s = sub.add_parser(
        "cut",
        help="cut this member's release branch once its upstream's candidate is staged",
        description="Run in a member's checkout: `release cut` of the train's version, once the "
        "train's cut-after schedule allows it, with the train's series parameters given to the "
        "release-only edits ({upstream_series}). " + SAFETY,
    )
    _train(s)
    _act(s)
    s.set_defaults(func=cmd_cut)
    _bind(sub)
    _promote(sub)
    s = sub.add_parser(
        "matrix",
        help="write the compatibility matrix page from the trains' records and files",
        description="Generate the compatibility matrix ([tool.mlrelease.train] matrix) of the "
        "train and the earlier trains ([tool.mlrelease.train] trains): each member's released "
        "version, the upstream candidate it was bound to, and each published file's "
        "Requires-Dist and tags, read from the release index. Never hand-written. A dry run "
        "shows the diff; --execute writes; --check fails on drift.",
    )
    _train(s)
    files.add_arguments(s)
    s.set_defaults(func=cmd_matrix)


def _bind(sub: Any) -> None:
    s = sub.add_parser(
        "bind",
        help="bind this member's candidate, recording the upstream candidate it was built against",
        description="Run in a member's checkout, at the candidate's commit, its files built "
        "into the artifacts folder: the upstream version is the one the files' Requires-Dist "
        "pins (else the train's) and must be the train's; the upstream's files are read from "
        "the staging index alone, by SHA-256, and must be exactly the files of the upstream's "
        "current bound candidate. Then the member's own tests ([tool.mlrelease.train.tests]) "
        "run on its wheel against that candidate's wheel, paired with the upstream's previous "
        "release on the release index (the downstream feature's run); a member whose tests "
        "did not run, or fail against the candidate, is refused. Then `release bind` records "
        "the upstream files and the verdict in the manifest. " + SAFETY,
    )
    _train(s)
    s.add_argument("--rc", required=True, help="the member's RC tag to bind")
    s.add_argument("--artifacts", metavar="DIR", help="the built files (default: dist)")
    _act(s)
    s.set_defaults(func=cmd_bind)


def _promote(sub: Any) -> None:
    s = sub.add_parser(
        "promote",
        help="release every member in dependency order, resumably",
        description="Release the members in dependency order, each by `release promote "
        "--publish` in its checkout (WORKSPACE/<member name>) to the train's release index, "
        "behind the train's gatekeeper: a member's files are uploaded only when its upstreams "
        "are released, it is bound to their candidates, and it ships every variant they ship "
        "(or the train declares the gap). The candidates chosen are journalled: a run killed at "
        "any step resumes them, uploading no file twice. " + SAFETY,
    )
    _train(s)
    s.add_argument(
        "--workspace",
        type=Path,
        metavar="DIR",
        help="the folder holding one checkout per member (default: the train file's folder)",
    )
    s.add_argument(
        "--restart",
        action="store_true",
        help="forget the candidates an interrupted promotion chose, and choose again",
    )
    _act(s, push=False)
    s.set_defaults(func=cmd_promote)
