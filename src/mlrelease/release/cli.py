"""``mlrelease release ...``: status, cut, prepare, rc, cherry-picks, bind, publish, promote;
the checklist's two commands come from :mod:`.checklist.cli`, ``promoted-rc`` from
:mod:`.promoted_cli`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mlrelease.config import Config, of_command
from mlrelease.release import bump_model, candidates, picks, promoted_cli, service
from mlrelease.release import status as release_status
from mlrelease.release.checklist import cli as checklist_cli
from mlrelease.release.plan import Plan
from mlrelease.release.promotion import publish
from mlrelease.terminal import message_console

# Release messages name TOML tables ([tool.mlrelease]): never markup.
console = message_console()

SAFETY = (
    "Dry run unless --execute: prints the exact git commands. Pushes (--push) the objects checked, "
    "if origin has not moved. Checks preconditions first; a second run finds nothing to do."
)


def _say(text: str) -> None:
    console.print(text, soft_wrap=True)


def _show(made: Plan, args: argparse.Namespace, extra: dict[str, Any] | None = None) -> None:
    """Show the plan or run it (``--execute``); with ``--json``, stdout holds one JSON object
    (:meth:`Plan.data`, plus ``extra``) and the executed lines go to stderr."""
    if not args.json:
        made.print(execute=args.execute, out=_say)
        return
    if args.execute and not made.noop:
        made.execute(echo=_say)
    print(json.dumps({**(extra or {}), **made.data(executed=args.execute)}, indent=2), flush=True)


def _config(args: argparse.Namespace) -> Config:
    """The configuration, as a release command reads it (:func:`.service.resuming`)."""
    return of_command(args, loader=service.resuming(args.load_config))


def _candidate(args: argparse.Namespace) -> service.RcChoice:
    return service.RcChoice(
        rc=args.rc, version=args.version, report=args.report, artifacts=args.artifacts
    )


def cmd_status(args: argparse.Namespace) -> int:
    data = release_status.status(_config(args), args.version)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    message_console(stderr=False).print(release_status.table(data))
    return 0


def cmd_cut(args: argparse.Namespace) -> int:
    made = service.cut_plan(
        _config(args), args.version, args.from_ref, args.push, upstream=args.upstream
    )
    _show(made, args)
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    made = service.prepare_plan(_config(args), args.version, args.push)
    _show(made, args)
    return 0


def cmd_rc(args: argparse.Namespace) -> int:
    made = service.rc_plan(_config(args), args.tag, args.push, args.rebuild)
    _show(made, args)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    made = service.promote_plan(
        _config(args),
        _candidate(args),
        push=args.push,
        publish=args.publish,
        repository_url=args.repository_url,
        elsewhere=args.published_elsewhere,
    )
    _show(made, args)
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    made = service.publish_plan(_config(args), _candidate(args), args.channel, args.repository_url)
    _show(made, args)
    return 0


def cmd_bind(args: argparse.Namespace) -> int:
    asked = service.RcChoice(rc=args.rc, artifacts=args.artifacts)
    made = service.bind_plan(_config(args), asked, args.push)
    _show(made, args)
    return 0


def cmd_cherry_picks(args: argparse.Namespace) -> int:
    found = service.picks_plan(_config(args), args.branch, args.push, args.mark, args.reason)
    assert found.plan is not None
    if args.json:
        _show(found.plan, args, _picks_data(found))
        return 0
    text = found.markdown()
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        _say(f"Wrote {args.output}")
    else:
        print(text, flush=True)
    found.plan.print(execute=args.execute, out=_say)
    return 0


def _picks_data(found: picks.CherryPicks) -> dict[str, Any]:
    """``cherry-picks --json``: the branch, which fixes the release wants, and each fix with its
    state, the branch commit that carries it and the evidence."""
    return {
        "branch": found.branch,
        "main": found.main,
        "series": found.series,
        "wanting": found.wanting,
        "picks": [
            {
                "commit": p.commit,
                "subject": p.subject,
                "state": p.state,
                "picked": p.picked,
                "on_branch": p.on_branch,
                "evidence": p.evidence,
                "wanted": p.wanted,
                "override": list(p.override) if p.override else None,
            }
            for p in found.picks
        ],
    }


def _act(p: argparse.ArgumentParser, push: bool = True) -> None:
    p.add_argument("--execute", action="store_true", help="act (default: dry run)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the plan as one JSON object on stdout (its notes, each action with its git "
        "arguments, whether it ran); the lines --execute echoes go to stderr",
    )
    if push:
        p.add_argument(
            "--push",
            action="store_true",
            help="push what it creates to the remote ([tool.mlrelease.release] remote)",
        )


def _which_rc(s: argparse.ArgumentParser, verb: str) -> None:
    group = s.add_mutually_exclusive_group(required=True)
    group.add_argument("--rc", help="the release candidate tag, e.g. v1.4.0-rc2")
    group.add_argument("--version", metavar="X.Y.Z", help=f"{verb} the newest RC of this version")
    s.add_argument("--report", type=Path, help="the RC's release_verify report.json")


def _status(sub: Any) -> None:
    s = sub.add_parser(
        "status",
        help="where the release stands (changes nothing)",
        description="One table: version in every file, changelog section, "
        "branches, tags and the next RC number, the last release_verify verdict "
        "and what each next command would do.",
    )
    s.add_argument("--version", help="the release X.Y.Z (default: from the version files)")
    s.add_argument("--json", action="store_true", help="print JSON (for CI)")
    s.set_defaults(func=cmd_status)


def _cut(sub: Any) -> None:
    s = sub.add_parser(
        "cut",
        help="create release/X.Y and move main to the next development version",
        description="Create the release branch from main (or --from REF), commit the "
        "release-only edits on it ({upstream_series}: --upstream, or what the branch says) and "
        'move main on. Under version-source = "files" main goes to X.Y+1.0.dev0 (a0, bare: '
        "as it carries) and `release prepare` sets X.Y.Z, which the RCs carry; under "
        'version-source = "tag" main keeps its marker (2.14.0a0 -> 2.15.0a0) and no file '
        "carries X.Y.Z (the build takes it from the tag). Ends on the release branch. " + SAFETY,
    )
    s.add_argument("--version", required=True, metavar="X.Y", help="the release series")
    s.add_argument(
        "--from",
        dest="from_ref",
        metavar="REF",
        help="branch from this ref instead of main (e.g. a known-green commit)",
    )
    s.add_argument(
        "--upstream",
        metavar="X.Y",
        help="the series of the project the release pairs with (fills {upstream_series})",
    )
    _act(s)
    s.set_defaults(func=cmd_cut)


def _prepare(sub: Any) -> None:
    s = sub.add_parser(
        "prepare",
        help="set the release version and write its changelog section",
        description="On release/X.Y: bump the version files to X.Y.Z (bump-my-version; "
        'not under version-source = "tag") and write the X.Y.Z changelog section '
        "(git-changelog), as one commit. An interrupted run is undone and redone. " + SAFETY,
    )
    s.add_argument("--version", required=True, metavar="X.Y.Z", help="the release version")
    _act(s)
    s.set_defaults(func=cmd_prepare)


def _rc(sub: Any) -> None:
    s = sub.add_parser(
        "rc",
        help="tag the next release candidate vX.Y.Z-rcN on HEAD",
        description="On a release branch with a clean tree, consistent version files "
        'carrying the final version (version-source = "tag": their marker), its changelog '
        "section and every release-only edit ([tool.mlrelease.release] edits), no pin of a "
        "nightly build, and no project workflow that would publish the RC tag as final: "
        "create the annotated tag vX.Y.Z-rcN with N the number after origin's newest RC. "
        "Nothing to do when HEAD is already a release candidate, unless --rebuild: then "
        f"HEAD is tagged again as the next number (a rebuild). {bump_model.RC_HELP}{SAFETY}",
    )
    s.add_argument(
        "--tag",
        help=candidates.TAG_HELP,
    )
    s.add_argument(
        "--rebuild",
        action="store_true",
        help="HEAD is already a candidate: tag the same commit again as the next number (once: "
        "when HEAD was rebuilt already, a run finds nothing to do; --tag asks for another)",
    )
    _act(s)
    s.set_defaults(func=cmd_rc)


def _promote(sub: Any) -> None:
    s = sub.add_parser(
        "promote",
        help="tag vX.Y.Z on exactly the RC's commit",
        description="Refuses when the RC tag is not origin's annotated tag made by `release rc` "
        "on the release branch, when a newer RC of the version exists, when the binding of the "
        "RC's files (`release bind`) was replaced, when vX.Y.Z exists and promote did not make "
        "it (judged, never adopted), or when the RC's release_verify report is missing, "
        "partial, of another commit, tree or configuration, or failing (--report, default "
        "[tool.mlrelease.release] rc-report); and when the index the files were published to "
        "(--repository-url, the one `release publish` recorded in this clone, or "
        "[tool.mlrelease.release] index when pyproject.toml sets it) does not hold exactly the "
        "bound files, or no index is known (--published-elsewhere: another system publishes). "
        "--publish publishes them first (the one publish path). " + SAFETY,
    )
    _which_rc(s, "promote")
    s.add_argument(
        "--artifacts",
        metavar="DIR",
        help="the RC's verified artifacts (default: [tool.mlrelease.release] artifacts)",
    )
    s.add_argument(
        "--publish",
        action="store_true",
        help="before tagging, publish the bound files the index lacks (as `release publish`)",
    )
    s.add_argument(
        "--repository-url",
        help="the index to check (and, with --publish, publish to); it must be the release "
        "channel's ([tool.mlrelease.release] index when pyproject.toml sets it, never rc-index): "
        "the final tag is made only when it holds exactly the bound files",
    )
    s.add_argument(
        "--published-elsewhere",
        action="store_true",
        help="tag without reading an index when none is known (another system publishes the "
        "files); an index that is known is always read",
    )
    _act(s)
    s.set_defaults(func=cmd_promote)


def _publish(sub: Any) -> None:
    s = sub.add_parser(
        "publish",
        help="publish the RC's bound files to an index, from the store (the one publish path)",
        description="Upload the files bound to the RC (`release bind`) that the index lacks, "
        "from this clone's content-addressed store, never from dist/: each file is hashed as "
        "it is staged, checked against the RC's commit, and uploaded only when the index "
        "holds no other file of this version (an index without SHA-256 is downloaded and "
        "hashed); the index is read back after each upload. The release channel needs the "
        "RC's passing release_verify report; the rc channel (a test index for downstream "
        "verification) does not. " + SAFETY,
    )
    _which_rc(s, "publish")
    s.add_argument(
        "--channel",
        choices=publish.CHANNELS,
        default="release",
        help="release (the project's index) or rc (the RC channel's test index)",
    )
    s.add_argument(
        "--repository-url",
        help="the index's upload URL: the channel's own ([tool.mlrelease.release] index for "
        "release, rc-index for rc); another is refused (docs/release/invariants.md)",
    )
    s.add_argument(
        "--artifacts",
        metavar="DIR",
        help="the RC's downloaded files, imported into the store when it lacks them (a file "
        "whose SHA-256 is not bound is never imported)",
    )
    _act(s, push=False)
    s.set_defaults(func=cmd_publish)


def _bind(sub: Any) -> None:
    s = sub.add_parser(
        "bind",
        help="bind the RC's artifacts to it: a manifest on origin a rebuild cannot overwrite",
        description="In the checkout that built the candidate's files (HEAD at the RC's "
        "commit, clean): check they are this release's wheels and sdist, built from the RC's "
        "commit (the sdist against its tree), copy them into the content-addressed store "
        "(what `release publish` sends), and record their names, sizes and SHA-256 under "
        "refs/mlrelease/bound/<rc tag>/<sha256 of the manifest>, pushed once. " + SAFETY,
    )
    s.add_argument("--rc", required=True, help="the release candidate tag, e.g. v1.4.0-rc2")
    s.add_argument(
        "--artifacts",
        metavar="DIR",
        help="the built files (default: [tool.mlrelease.release] artifacts)",
    )
    _act(s)
    s.set_defaults(func=cmd_bind)


def _cherry_picks(sub: Any) -> None:
    s = sub.add_parser(
        "cherry-picks",
        help="fixes on main since the fork: wanted or not, picked, missing or reverted",
        description="Each fix on main since the fork, whether the release wants it "
        "([tool.mlrelease.release] picks: the trailer `Release-Target: X.Y`, a milestone file, "
        "or every fix) and whether release/X.Y has it, found by patch identity (git cherry), "
        "the `(cherry picked from commit ...)` line or the pull request's number in the "
        "subject, with the evidence, as Markdown for the tracker issue. With --execute, "
        "cherry-picks the missing wanted ones (git cherry-pick -x); a conflict is aborted. "
        + SAFETY,
    )
    s.add_argument("--branch", help="the release branch (default: the current branch)")
    s.add_argument("--output", type=Path, help="write the Markdown here instead of stdout")
    s.add_argument(
        "--mark",
        action="append",
        default=[],
        metavar="COMMIT=STATE",
        help="record that a fix is picked or not-needed (an empty commit on the branch with "
        "the override and --reason as trailers); repeatable",
    )
    s.add_argument("--reason", default="", help="why (recorded with --mark)")
    _act(s)
    s.set_defaults(func=cmd_cherry_picks)


def register(subparsers: Any) -> None:
    """Add ``mlrelease release ...``."""
    p = subparsers.add_parser(
        "release",
        help="the release flow: status, cut, prepare, rc, bind, publish, promote, promoted-rc, "
        "cherry-picks, checklist",
        description="Branch cut, release candidates, binding, publishing, promotion, "
        "cherry-pick tracking and the resumable release checklist. Configuration: "
        "[tool.mlrelease.release]. " + SAFETY,
    )
    sub = p.add_subparsers(dest="release_command", required=True, metavar="ACTION")
    for add in (
        _status,
        _cut,
        _prepare,
        _rc,
        _promote,
        _publish,
        _bind,
        _cherry_picks,
        promoted_cli.add_promoted_rc,
        checklist_cli.register,
    ):
        add(sub)
