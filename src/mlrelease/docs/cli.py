"""``mlrelease docs``: build, serve, regenerate the generated pages, freeze a version."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.markup import escape

from mlrelease.config import Config, of_command
from mlrelease.docs import freeze, pages, service, sphinx_run, switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.edges import files
from mlrelease.terminal import make_console

console = make_console()


def _setup(args: argparse.Namespace) -> tuple[Config, DocsConfig]:
    config = of_command(args)
    docs: DocsConfig = config.table(DocsConfig)
    docs.validate(str(config.pyproject_path))
    return config, docs


def _show(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def cmd_build(args: argparse.Namespace) -> int:
    config, docs = _setup(args)
    out = args.out or config.path(docs.build_dir)
    if args.serve:
        stale = service.check_generated(config, docs)
        for line in stale:
            console.print(
                f"[yellow]stale:[/] {escape(line)} (run `mlrelease docs generate --execute`)"
            )
        console.print(f"Serving on http://{args.host}:{args.port}/ (Ctrl+C stops)")
        return sphinx_run.serve(
            config.path(docs.source),
            out / "html",
            host=args.host,
            port=args.port,
            watch=[p for p in (config.path("src"),) if p.is_dir()],
            ignore=[str(config.path(docs.source) / "api" / "generated" / "*")],
        )
    outcome = service.build(config, docs, out)
    problems = outcome.problems()
    if problems:
        console.print(f"[bold red]The docs are not clean[/] ({len(problems)} problem(s)):")
        for line in problems:
            console.print(f"  {escape(line)}")
        return 1
    console.print(
        f"Built {_show(out / 'html', config.root)} with no warnings; generated pages current; "
        f"{outcome.internal_links} internal links, none broken."
    )
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    config, docs = _setup(args)
    with console.status("asking nox and invoke for their sessions and tasks"):
        generated = pages.generate(config.root, docs.source)
    return files.run(
        args,
        [files.Generated(config.root / p.path, p.text, p.path) for p in generated],
        command="mlrelease docs generate",
        say=lambda text: console.print(escape(text), soft_wrap=True),
    )


def _describe(plan: freeze.Freeze) -> list[str]:
    root = plan.root
    what = "the dev docs" if plan.release is None else f"the docs of {plan.name}"
    action = "Replace" if plan.replaces else "Write"
    lines = [
        f"{action} {_show(plan.target, root)} with {what}, built from {plan.ref} "
        f"({plan.commit[:12]}).",
        f"  environment: {plan.ref}'s [dependency-groups] {plan.group}"
        + (" and the project at that commit" if plan.install_project else ""),
    ]
    injected = f"-D version={plan.release} -D release={plan.release}, " if plan.release else ""
    lines.append(f"  injected: {injected}{freeze.VERSION_ENV}={plan.name} (conf.py is not edited)")
    lines.append(f"  {_show(plan.site / switcher.FILENAME, root)}:")
    for entry in plan.after:
        mark = "  (preferred)" if entry.get("preferred") else ""
        lines.append(f"    {entry['name']:<20} {entry['url']}{mark}")
    return lines


def cmd_freeze(args: argparse.Namespace) -> int:
    config, docs = _setup(args)
    plan = freeze.plan(
        config, docs, version=args.version, dev=args.dev, site_dir=args.site, force=args.force
    )
    for line in _describe(plan):
        console.print(escape(line))
    if not args.execute:
        console.print("Dry run: nothing written. Re-run with --execute to freeze.")
        return 0
    log = config.path(docs.build_dir) / f"freeze-{plan.name}.log"
    with console.status("freezing") as status:

        def step(message: str) -> Any:
            console.print(f"  - {escape(message)}")
            status.update(message)

        commit = freeze.execute(plan, log=log, step=step)
    console.print(
        f"Froze {plan.name} into {_show(plan.target, config.root)} "
        f"(log: {_show(log, config.root)})."
    )
    if commit:
        console.print(
            f"Committed {commit[:12]} in the site checkout. Publish it with:\n"
            f"  git -C {_show(plan.site, config.root)} push origin HEAD:gh-pages"
        )
    return 0


def register(subparsers: Any) -> None:
    """Add ``mlrelease docs ...`` to the CLI."""
    p = subparsers.add_parser(
        "docs",
        help="build, serve and freeze the versioned documentation",
        description="The Sphinx documentation: build it with warnings as errors, serve it with "
        "autoreload, regenerate the pages listing nox sessions and invoke tasks, and freeze a "
        "release's docs from its tag into the versioned site. Configuration: "
        "[tool.mlrelease.docs].",
    )
    sub = p.add_subparsers(dest="docs_command", required=True, metavar="ACTION")

    b = sub.add_parser(
        "build",
        help="build the HTML (warnings are errors) and check internal links",
        description="Check that the generated pages are current, build the HTML with warnings "
        "as errors (-W --keep-going) and check every internal link. With --serve, rebuild on "
        "every change and reload the browser (sphinx-autobuild) instead.",
    )
    b.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: [tool.mlrelease.docs] build-dir)",
    )
    b.add_argument("--serve", action="store_true", help="serve with autoreload instead")
    b.add_argument("--host", default="127.0.0.1", help="with --serve: address (default 127.0.0.1)")
    b.add_argument("--port", type=int, default=8000, help="with --serve: port (default 8000)")
    b.set_defaults(func=cmd_build)

    g = sub.add_parser(
        "generate",
        help="regenerate the pages listing nox sessions and invoke tasks",
        description="Write the reference pages of every nox session (nox --list --json) and "
        "every invoke task (invoke --list, invoke --help TASK) under the docs folder. Dry run "
        "(prints the diff) unless --execute; --check fails when a page is stale.",
    )
    files.add_arguments(g, what="the pages", wrote_by_default=True)
    g.set_defaults(func=cmd_generate)

    f = sub.add_parser(
        "freeze",
        help="build a release's docs from its tag into the versioned site",
        description="Build the docs as they were at tag vX.Y.Z (a git worktree, the tag's own "
        "docs dependency group, the version injected at build time) into SITE/X.Y.Z, and "
        "update SITE/switcher.json (newest stable release preferred, dev docs as 'main'). "
        "Refuses to overwrite a frozen version without --force. Dry run unless --execute.",
    )
    which = f.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--version",
        metavar="X.Y.Z",
        help="the release to freeze (1.4.0, 1.4.0rc1, or its tag v1.4.0-rc1)",
    )
    which.add_argument(
        "--dev",
        action="store_true",
        help="build HEAD as the dev docs ('main'); replaces the previous ones",
    )
    f.add_argument(
        "--site",
        type=Path,
        default=None,
        help="the versioned site folder, e.g. a gh-pages checkout (default: "
        "[tool.mlrelease.docs] site)",
    )
    f.add_argument("--force", action="store_true", help="rebuild a version already frozen")
    f.add_argument("--execute", action="store_true", help="build and write (default: dry run)")
    f.set_defaults(func=cmd_freeze)
