"""``mlrelease release ...``: status, cut, prepare, rc, promote, cherry-picks, checklist."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from mlrelease.config import PYPROJECT, Config, find_root
from mlrelease.edges import files, git
from mlrelease.edges.journal import read_journal
from mlrelease.release import (
    candidates,
    checklist,
    checklist_doc,
    cut,
    flow,
    observe,
    picks,
    promotion,
    repo,
    snapshot,
    untagged,
)
from mlrelease.release import status as release_status
from mlrelease.release.config import ReleaseConfig
from mlrelease.terminal import make_console
from mlrelease.wheels.promote import PYPI_UPLOAD_URL

console = make_console()

SAFETY = (
    "Dry run unless --execute: prints the exact git commands it would run. Pushes only "
    "with --push. Checks its preconditions first; a second run finds nothing to do."
)


def _config(args: argparse.Namespace) -> Config:
    """The configuration; after an interrupted edit of pyproject.toml, the one the edit started
    with (HEAD's), never the half-written file (an empty one would read as the defaults)."""
    root = (args.root or find_root(Path.cwd())).resolve()
    journal = read_journal(root) if git.is_repo(root) else None
    text = repo.show(root, "HEAD", PYPROJECT) if journal else None
    files = journal.get("files", []) if journal and journal.get("head") == git.head(root) else []
    if text is not None and PYPROJECT in files:
        head: Config = args.load_config(root, data=tomllib.loads(text), source=f"HEAD:{PYPROJECT}")
        return head
    loaded: Config = args.load_config(root)
    return loaded


def _say(text: str) -> None:
    console.print(text, soft_wrap=True, markup=False)


def _snapshot(args: argparse.Namespace) -> tuple[Config, snapshot.ReleaseState]:
    """The configuration and the one snapshot of the world the command decides on."""
    config = _config(args)
    return config, observe.base(config)


def _flow(args: argparse.Namespace) -> flow.Flow:
    return flow.Flow.of(_config(args))


def cmd_status(args: argparse.Namespace) -> int:
    data = release_status.status(_flow(args), args.version)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    make_console(stderr=False).print(release_status.table(data))
    return 0


def cmd_cut(args: argparse.Namespace) -> int:
    config, snap = _snapshot(args)
    observe.for_cut(config, args.version, args.from_ref, snap)
    plan = cut.plan_cut(snap, config, args.version, args.from_ref, args.push)
    plan.print(execute=args.execute, out=_say)
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    config, snap = _snapshot(args)
    observe.for_prepare(config, args.version, snap)
    plan = candidates.plan_prepare(snap, config, args.version, args.push)
    plan.print(execute=args.execute, out=_say)
    return 0


def cmd_rc(args: argparse.Namespace) -> int:
    config = _config(args)
    if (
        config.table(ReleaseConfig).rc_model == "bump"
    ):  # release candidates are version bumps, no tags
        plan = untagged.plan_rc_bump(flow.Flow.of(config), args.tag, args.push)
    else:
        snap = observe.base(config)
        observe.for_rc(config, snap)
        plan = candidates.plan_rc(snap, config, args.tag, args.push)
    plan.print(execute=args.execute, out=_say)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    config = _config(args)
    if config.table(ReleaseConfig).rc_model == "bump":  # no RC tag: the final version, tagged
        found = promotion.plan_untagged_final(
            flow.Flow.of(config), args.rc, args.version, args.push, args.publish
        )
        found.plan.print(execute=args.execute, out=_say)
        return 0
    snap = observe.base(config)
    observe.for_promote(
        config,
        args.rc,
        args.version,
        args.report,
        args.publish,
        args.artifacts,
        args.repository_url,
        snap,
    )
    promoted = promotion.plan_promote(
        snap, config, args.rc, args.version, args.push, args.publish, args.repository_url
    )
    promoted.plan.print(execute=args.execute, out=_say)
    return 0


def cmd_bind(args: argparse.Namespace) -> int:
    config, snap = _snapshot(args)
    observe.for_bind(config, args.rc, args.artifacts, snap)
    plan = promotion.plan_bind(snap, config, args.rc, args.push)
    plan.print(execute=args.execute, out=_say)
    return 0


def cmd_cherry_picks(args: argparse.Namespace) -> int:
    config, snap = _snapshot(args)
    observe.for_picks(config, args.branch, snap)
    found = picks.plan_picks(snap, config, args.branch, args.push, args.mark, args.reason)
    text = found.markdown()
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        _say(f"Wrote {args.output}")
    else:
        print(text, flush=True)
    assert found.plan is not None
    found.plan.print(execute=args.execute, out=_say)
    return 0


def cmd_checklist(args: argparse.Namespace) -> int:
    return checklist.run_checklist(
        _config(args),
        args.version,
        execute=args.execute,
        confirm=args.confirm,
        redo=args.redo,
        out=_say,
        reason=args.reason,
    )


def cmd_checklist_doc(args: argparse.Namespace) -> int:
    config = _config(args)
    page = config.table(ReleaseConfig).checklist_doc
    generated = files.Generated(config.path(page), checklist_doc.render(config), page)
    return files.run(args, [generated], command="mlrelease release checklist-doc", say=_say)


def _act(p: argparse.ArgumentParser, push: bool = True) -> None:
    p.add_argument("--execute", action="store_true", help="act (default: dry run)")
    if push:
        p.add_argument(
            "--push",
            action="store_true",
            help="push what it creates to the remote ([tool.mlrelease.release] remote)",
        )


def register(subparsers: Any) -> None:
    """Add ``mlrelease release ...``."""
    p = subparsers.add_parser(
        "release",
        help="the release flow: status, cut, prepare, rc, promote, cherry-picks, checklist",
        description="Branch cut, release candidates, promotion, cherry-pick tracking and the "
        "resumable release checklist. Configuration: [tool.mlrelease.release]. " + SAFETY,
    )
    sub = p.add_subparsers(dest="release_command", required=True, metavar="ACTION")

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

    s = sub.add_parser(
        "cut",
        help="create release/X.Y and move main to the next .dev version",
        description="Create the release branch from main (or --from REF), commit "
        "the configured release-only edits on it, bump main to X.Y+1.0.dev0 and "
        "commit. Ends on the release branch. " + SAFETY,
    )
    s.add_argument("--version", required=True, metavar="X.Y", help="the release series")
    s.add_argument(
        "--from",
        dest="from_ref",
        metavar="REF",
        help="branch from this ref instead of main (e.g. a known-green commit)",
    )
    _act(s)
    s.set_defaults(func=cmd_cut)

    s = sub.add_parser(
        "prepare",
        help="set the release version and write its changelog section",
        description="On release/X.Y: bump the version files to X.Y.Z "
        "(bump-my-version) and write the X.Y.Z changelog section (git-changelog), "
        "as one commit. An interrupted run is undone and redone. " + SAFETY,
    )
    s.add_argument("--version", required=True, metavar="X.Y.Z", help="the release version")
    _act(s)
    s.set_defaults(func=cmd_prepare)

    s = sub.add_parser(
        "rc",
        help="tag the next release candidate vX.Y.Z-rcN on HEAD",
        description="On a release branch with a clean tree, consistent version "
        "files carrying the final version and its changelog section: create the "
        "annotated tag vX.Y.Z-rcN with N the next free number (local and remote "
        "tags count). Nothing to do when HEAD is already a release candidate. " + SAFETY,
    )
    s.add_argument("--tag", help="the expected tag name (refused unless it is the next free one)")
    _act(s)
    s.set_defaults(func=cmd_rc)

    s = sub.add_parser(
        "promote",
        help="tag vX.Y.Z on exactly the RC's commit",
        description="Refuses when the RC tag is not origin's annotated tag made by "
        "`release rc` on the release branch, when a newer RC of the version exists, when vX.Y.Z "
        "exists elsewhere, when the artifacts differ from the manifest bound to the RC "
        "(`release bind`), or when the RC's release_verify report is missing, partial, for "
        "another commit or failing. The report is read from --report, default "
        "[tool.mlrelease.release] rc-report (build/release-verify/report.json, "
        "where `nox -s release_verify` writes it). Then prints (or with --publish "
        "runs) the verified-artifact publishing command. " + SAFETY,
    )
    group = s.add_mutually_exclusive_group(required=True)
    group.add_argument("--rc", help="the release candidate tag, e.g. v1.4.0-rc2")
    group.add_argument("--version", metavar="X.Y.Z", help="promote the newest RC of this version")
    s.add_argument("--report", type=Path, help="the RC's release_verify report.json")
    s.add_argument(
        "--artifacts",
        metavar="DIR",
        help="the RC's verified artifacts (default: [tool.mlrelease.release] artifacts)",
    )
    s.add_argument(
        "--publish",
        action="store_true",
        help="before tagging, run the publish command ([tool.mlrelease.release] publish) "
        "unless the index already holds exactly these files",
    )
    s.add_argument(
        "--repository-url",
        default=PYPI_UPLOAD_URL,
        help="the index to publish to and check (default: PyPI)",
    )
    _act(s)
    s.set_defaults(func=cmd_promote)

    s = sub.add_parser(
        "bind",
        help="bind the RC's artifacts to it: a manifest on origin a rebuild cannot overwrite",
        description="In the checkout that built the candidate's files (HEAD at the RC's "
        "commit, clean): record their names, sizes and SHA-256 and the commit under "
        "refs/mlrelease/manifests/<rc tag>, and push that ref. Promotion verifies the "
        "artifacts against it. " + SAFETY,
    )
    s.add_argument("--rc", required=True, help="the release candidate tag, e.g. v1.4.0-rc2")
    s.add_argument(
        "--artifacts",
        metavar="DIR",
        help="the built files (default: [tool.mlrelease.release] artifacts)",
    )
    _act(s)
    s.set_defaults(func=cmd_bind)

    s = sub.add_parser(
        "cherry-picks",
        help="fixes on main marked for a release: picked or missing",
        description="Commits on main with the trailer `Release-Target: X.Y` "
        "(configurable), compared with release/X.Y by patch identity (git cherry), "
        "as Markdown for the tracker issue. With --execute, cherry-picks the "
        "missing ones (git cherry-pick -x); a conflict is aborted. " + SAFETY,
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

    s = sub.add_parser(
        "checklist",
        help="walk the release checklist, resumably",
        description="Run the configured checklist steps in order, recording each "
        "in build/release/X.Y.Z/ledger.json; resume at the first unfinished step; "
        "never repeat a finished step. Dry run (shows the ledger and next "
        "commands) unless --execute.",
    )
    s.add_argument("--version", required=True, metavar="X.Y.Z", help="the release version")
    s.add_argument(
        "--confirm",
        action="append",
        default=[],
        metavar="STEP",
        help="mark a manual step as done, or (with --reason) a step the world shows done "
        "(repeatable)",
    )
    s.add_argument("--reason", default="", help="why a step with a command is confirmed")
    s.add_argument(
        "--redo",
        action="append",
        default=[],
        metavar="STEP",
        help="run a finished non-mutating step again (repeatable)",
    )
    s.add_argument("--execute", action="store_true", help="run the steps (default: dry run)")
    s.set_defaults(func=cmd_checklist)

    s = sub.add_parser(
        "checklist-doc",
        help="generate docs/release/checklist.md from the checklist",
        description="Generate the release checklist page from "
        "[tool.mlrelease.release] (steps, names, patch-release criteria, "
        "cherry-pick rules). Dry run (prints the diff) unless --execute; --check fails when "
        "the page is stale.",
    )
    files.add_arguments(s, what="the page", wrote_by_default=True)
    s.set_defaults(func=cmd_checklist_doc)
