"""Release verbs for humans, in namespaces: ``invoke --list``.

Each task wraps one ``mlrelease`` command (or the nox session that runs it) and hands its
options on as that command's own flags. An option's help is the help of that flag in
mlrelease's parser, read when this file loads (:func:`_wraps`); where mlrelease is not installed
here, each option points at the command's ``--help``. Mutating tasks are dry runs unless
``--execute``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import inspect
import shlex
import sys
from collections.abc import Callable
from typing import Any

from invoke.collection import Collection
from invoke.context import Context
from invoke.tasks import Task, task


def _mlrelease(c: Context, *args: str) -> None:
    """Run the mlrelease CLI: in this environment when installed, else in nox's `mlrelease`
    session, reusing its environment once made (`-R`: no reinstall; `nox -s mlrelease`
    refreshes it)."""
    if importlib.util.find_spec("mlrelease") is not None:
        c.run(shlex.join([sys.executable, "-m", "mlrelease", *args]))
    else:
        c.run(shlex.join(["nox", "-R", "-s", "mlrelease", "--", *args]))


def _flags(**flags: bool) -> list[str]:
    return [f"--{name.replace('_', '-')}" for name, on in flags.items() if on]


def _options(**values: str) -> list[str]:
    """``--name value`` for each option given a value."""
    return [
        a for name, value in values.items() if value for a in (f"--{name.replace('_', '-')}", value)
    ]


@functools.cache
def _parser(*command: str) -> argparse.ArgumentParser | None:
    """The parser of ``mlrelease COMMAND``; None when mlrelease is not installed here."""
    if importlib.util.find_spec("mlrelease") is None:
        return None
    from mlrelease.cli import build_parser

    parser = build_parser()
    for word in command:
        (actions,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = actions.choices[word]
    return parser


def option_help(command: tuple[str, ...], names: list[str]) -> dict[str, str]:
    """The help of each option ``names`` (a parameter is named as its flag's ``dest``) in the
    parser of ``mlrelease COMMAND``, with its choices; a name the parser lacks is an error."""
    parser = _parser(*command)
    if parser is None:
        return dict.fromkeys(names, f"see `mlrelease {' '.join(command)} --help`")
    actions = {a.dest: a for a in parser._actions if a.option_strings}
    missing = [n for n in names if n not in actions]
    if missing:
        raise LookupError(f"`mlrelease {' '.join(command)}` has no option for {missing}")
    found = {}
    for name in names:
        action = actions[name]
        choices = f" (one of: {', '.join(map(str, action.choices))})" if action.choices else ""
        found[name] = f"{action.help}{choices}"
    return found


def _wraps(*command: str, **options: Any) -> Callable[[Callable[..., None]], Task[Any]]:
    """``@task`` for a task that wraps ``mlrelease COMMAND``: its options' help is the parser's."""

    def decorate(body: Callable[..., None]) -> Task[Any]:
        names = [p for p in inspect.signature(body).parameters if p != "c"]
        made: Task[Any] = task(help=option_help(command, names), **options)(body)
        return made

    return decorate


@_wraps("bump")
def bump(c: Context, to: str = "", part: str = "", execute: bool = False) -> None:
    """Bump the version in every file listed for bump-my-version."""
    target = _options(to=to) or _options(part=part)
    _mlrelease(c, "bump", *target, *_flags(execute=execute))


@_wraps("release", "status")
def status(c: Context, version: str = "", json: bool = False) -> None:
    """Show where the release stands: versions, changelog, branches, tags, verdict, next steps."""
    _mlrelease(c, "release", "status", *_options(version=version), *_flags(json=json))


@_wraps("release", "cut")
def cut(
    c: Context, version: str, from_ref: str = "", execute: bool = False, push: bool = False
) -> None:
    """Cut release/X.Y, commit its release-only edits, move main to the next .dev version."""
    start = ["--from", from_ref] if from_ref else []
    options = ["--version", version, *start, *_flags(execute=execute, push=push)]
    _mlrelease(c, "release", "cut", *options)


@_wraps("release", "prepare")
def prepare(c: Context, version: str, execute: bool = False, push: bool = False) -> None:
    """Set the release version and write its changelog section: one commit on release/X.Y."""
    _mlrelease(c, "release", "prepare", "--version", version, *_flags(execute=execute, push=push))


@_wraps("release", "rc")
def rc(
    c: Context, tag: str = "", rebuild: bool = False, execute: bool = False, push: bool = False
) -> None:
    """Tag the next release candidate vX.Y.Z-rcN on the release branch head."""
    flags = _flags(rebuild=rebuild, execute=execute, push=push)
    _mlrelease(c, "release", "rc", *_options(tag=tag), *flags)


@_wraps("release", "bind")
def bind(
    c: Context, rc: str, artifacts: str = "", execute: bool = False, push: bool = False
) -> None:
    """Bind the RC's built files to it: their manifest on origin, which a rebuild cannot move."""
    options = ["--rc", rc, *_options(artifacts=artifacts), *_flags(execute=execute, push=push)]
    _mlrelease(c, "release", "bind", *options)


@_wraps("release", "promote")
def promote(
    c: Context,
    rc: str,
    report: str = "",
    artifacts: str = "",
    publish: bool = False,
    repository_url: str = "",
    published_elsewhere: bool = False,
    execute: bool = False,
    push: bool = False,
) -> None:
    """Verify the RC's bound files and report, publish (--publish), tag vX.Y.Z on its commit."""
    given = _options(report=report, artifacts=artifacts, repository_url=repository_url)
    flags = _flags(
        publish=publish, published_elsewhere=published_elsewhere, execute=execute, push=push
    )
    _mlrelease(c, "release", "promote", "--rc", rc, *given, *flags)


@_wraps("release", "cherry-picks")
def cherry_picks(
    c: Context, branch: str = "", output: str = "", execute: bool = False, push: bool = False
) -> None:
    """Track main's fixes since the fork: wanted or not, picked, missing (Markdown)."""
    options = [*_options(branch=branch, output=output), *_flags(execute=execute, push=push)]
    _mlrelease(c, "release", "cherry-picks", *options)


@_wraps("release", "checklist", iterable=["confirm"])
def checklist(
    c: Context, version: str, confirm: list[str] | None = None, execute: bool = False
) -> None:
    """Walk the release checklist, resuming at the first unfinished step (ledger in build/)."""
    confirmed = [a for step in confirm or [] for a in ("--confirm", step)]
    options = ["--version", version, *confirmed, *_flags(execute=execute)]
    _mlrelease(c, "release", "checklist", *options)


@_wraps("release", "checklist-doc")
def checklist_doc(c: Context, execute: bool = False, check: bool = False) -> None:
    """Generate docs/release/checklist.md from the configured checklist."""
    _mlrelease(c, "release", "checklist-doc", *_flags(execute=execute, check=check))


@_wraps("ops", "index")
def index(c: Context, check: bool = False, diff: str = "") -> None:
    """Regenerate the supported-operators index from a conformance run (nox -s ops_index)."""
    extra = [*_flags(check=check), *_options(diff=diff)]
    c.run(shlex.join(["nox", "-s", "ops_index", "--", *extra]))


release = Collection("release")
release.add_task(bump)
for _task in (status, cut, prepare, rc, bind, promote, cherry_picks, checklist, checklist_doc):
    release.add_task(_task)

ops = Collection("ops")
ops.add_task(index)

ns = Collection(release, ops)


@task(name="build")
def docs_build(c: Context) -> None:
    """Build the docs once: warnings are errors, generated pages and internal links checked."""
    c.run("nox --non-interactive -s docs")


@task(name="serve", help={"port": "the port on 127.0.0.1 (default 8000)"})
def docs_serve(c: Context, port: int = 8000) -> None:
    """Serve the docs with autoreload: every saved change rebuilds and reloads the browser."""
    c.run(shlex.join(["nox", "-s", "docs", "--", "--serve", "--port", str(port)]), pty=True)


@_wraps("docs", "generate", name="generate")
def docs_generate(c: Context, execute: bool = False, check: bool = False) -> None:
    """Regenerate the docs pages listing every nox session and invoke task."""
    _mlrelease(c, "docs", "generate", *_flags(execute=execute, check=check))


@_wraps("docs", "freeze", name="freeze")
def docs_freeze(
    c: Context,
    version: str = "",
    dev: bool = False,
    site: str = "",
    force: bool = False,
    execute: bool = False,
) -> None:
    """Freeze a release's docs from its tag into the versioned site; update the switcher."""
    which = _options(version=version) or _flags(dev=dev)
    options = [*which, *_options(site=site), *_flags(force=force, execute=execute)]
    _mlrelease(c, "docs", "freeze", *options)


docs = Collection("docs", docs_build, docs_serve, docs_generate, docs_freeze)
ns.add_collection(docs)


@_wraps("init")
def init(c: Context, execute: bool = False) -> None:
    """Describe this repository in [tool.mlrelease] and [tool.bumpversion] (mlrelease init)."""
    _mlrelease(c, "init", *_flags(execute=execute))


ns.add_task(init)
