"""``mlrelease changelog``, ``mlrelease bump`` and ``mlrelease version``: the project's version and
changelog from the command line."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from mlrelease.config import Config, find_root, of_command
from mlrelease.edges import files
from mlrelease.project import bump, service, sync
from mlrelease.terminal import make_console

console = make_console()


def _say(text: str) -> None:
    console.print(escape(text), soft_wrap=True)


def cmd_changelog(args: argparse.Namespace) -> int:
    log = service.changelog_file(of_command(args), args.bump)
    return files.run(args, [log], command="mlrelease changelog", say=_say)


def cmd_bump(args: argparse.Namespace) -> int:
    # An interrupted bump is undone first, before any (maybe half-written) file is read.
    for note in bump.recover(args.root or find_root(Path.cwd()), execute=args.execute):
        console.print(note)
    config = of_command(args)
    if args.sync:
        return _sync(config, args.execute)
    bump_plan = bump.plan(config, to=args.to, part=args.part)
    if bump_plan.from_tags:
        console.print(
            "The version comes from git tags (tool.mlrelease.version-source = 'scm'): a bump "
            "has no file to write. The release is its tag (`mlrelease release` verbs make it)."
        )
        return 0
    if bump_plan.noop:
        console.print(f"Version is already {bump_plan.new}; nothing to do.")
        return 0
    console.print(f"Bump {bump_plan.current} -> {bump_plan.new} in:")
    for file, line in bump_plan.changes:
        console.print(f"  {file}:{line}")
    if not args.execute:
        console.print("Dry run: nothing written. Re-run with --execute to apply.")
        return 0
    bump.execute(config, bump_plan, journalled=True)
    console.print(f"Version is now {bump_plan.new}. Review and commit the change.")
    return 0


def _sync(config: Config, execute: bool) -> int:
    """``bump --sync``: current_version follows the version files after a hand edit."""
    synced = sync.plan(config)
    if synced.noop:
        console.print(
            f"current_version is {synced.new}, as every version file says; nothing to do."
        )
        return 0
    console.print(
        f"current_version {synced.current} -> {synced.new} (what every version file says) in:"
    )
    for file, line in synced.changes:
        console.print(f"  {file}:{line}")
    if not execute:
        console.print("Dry run: nothing written. Re-run with --execute to apply.")
        return 0
    sync.execute(config, synced)
    console.print(f"current_version is now {synced.new}. Review and commit pyproject.toml.")
    return 0


def cmd_tests_run(args: argparse.Namespace) -> int:
    config = of_command(args)
    options = service.tests_options(config)
    command = list(args.command) or options.command
    if command and command[0] == "--":
        command = command[1:]
    outcome = service.run_suite(config.root, command, options.programs, reuse=not args.rerun)
    if outcome.reused:
        console.print(escape(outcome.summary), soft_wrap=True)
    return outcome.returncode


def cmd_version(args: argparse.Namespace) -> int:
    print(of_command(args).version)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``changelog``, ``bump`` and ``version`` to the mlrelease command line."""
    p = sub.add_parser(
        "changelog",
        help="generate the changelog from Conventional Commits",
        description="Regenerate the changelog in place with git-changelog's angular "
        "convention. Dry run (prints the diff) unless --execute; --check fails when the "
        "changelog differs from a regeneration.",
    )
    p.add_argument(
        "--bump",
        metavar="VERSION",
        help="title the unreleased section with this version ('auto' to infer it)",
    )
    files.add_arguments(p, what="the changelog")
    p.set_defaults(func=cmd_changelog)

    p = sub.add_parser(
        "bump",
        help="bump the version in every listed file (bump-my-version)",
        description="Change the version in every file listed in [tool.bumpversion]. "
        "Dry run unless --execute; refuses a dirty tree.",
    )
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--to", metavar="VERSION", help="the new version, e.g. 1.5.0 or 1.5.0rc1")
    group.add_argument("--part", choices=sorted(bump.PARTS), help="the part to increment")
    group.add_argument(
        "--sync",
        action="store_true",
        help="after a hand edit of the version files: set [tool.bumpversion] current_version "
        "to the one version they all carry (the files are the truth; only pyproject.toml is "
        "written)",
    )
    p.add_argument("--execute", action="store_true", help="write the files")
    p.set_defaults(func=cmd_bump)

    sub.add_parser("version", help="print the project version").set_defaults(func=cmd_version)

    p = sub.add_parser(
        "tests",
        help="run the test suite once per tree and environment",
        description="Run the project's test suite (`tests run`).",
    )
    actions = p.add_subparsers(dest="tests_command", required=True, metavar="ACTION")
    r = actions.add_parser(
        "run",
        help="run the suite, or reuse the pass of an identical run",
        description="Run COMMAND (default: [tool.mlrelease.gate-options.tests] command) in the "
        "project root, its output shown as it comes. A pass is remembered under build/tests/; "
        "the same command on the same commit, working tree (untracked files included), "
        "environment (interpreter, platform, installed distributions), declared programs "
        "(gate-options.tests programs) and locale variables reuses it and says so, without "
        "running. A failure is never reused. Exit status: the command's.",
    )
    r.add_argument("--rerun", action="store_true", help="run even when an identical run passed")
    r.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND")
    r.set_defaults(func=cmd_tests_run)
