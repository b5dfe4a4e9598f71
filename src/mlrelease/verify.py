"""``mlrelease verify``: run the configured gates, show progress, write the reports."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlrelease import report
from mlrelease.config import Config
from mlrelease.edges import git, installed
from mlrelease.edges.digests import sha256
from mlrelease.gates import Context, Gate, GateResult, Status, shard
from mlrelease.registry import select
from mlrelease.terminal import make_console

STYLES = {
    Status.PASS: "green",
    Status.FAIL: "bold red",
    Status.SKIP: "yellow",
    Status.ERROR: "bold magenta",
}


@dataclass(frozen=True)
class VerifyOptions:
    only: Sequence[str] = ()
    skip: Sequence[str] = ()
    strict: bool = False
    shard: tuple[int, int] | None = None
    report_dir: Path | None = None


def apply_strict(gate: Gate, result: GateResult, strict: bool) -> GateResult:
    """Under --strict a skipped required gate fails."""
    if strict and gate.required and result.status is Status.SKIP:
        result.status = Status.FAIL
        result.summary = f"skipped, and required under --strict: {result.summary}"
    return result


def worktree(config: Config, folder: Path) -> report.Worktree | None:
    """What the gates are about to verify beside HEAD (the report's binding: its tree, the
    configuration's SHA-256, and what differs from the commit); None outside git."""
    root = config.root
    if git.head(root) is None:
        return None
    try:
        own = folder.resolve().relative_to(root.resolve()).as_posix().rstrip("/") + "/"
    except ValueError:
        own = "\0"  # the reports go outside the tree
    dirty = [f for f in git.dirty_files(root) if not (f.startswith(own) or own.startswith(f))]
    path = config.pyproject_path
    return report.Worktree(
        tree=git.run(root, "rev-parse", "HEAD^{tree}", check=False) or None,
        config_sha256=sha256(path) if path.is_file() else None,
        dirty=tuple(dirty),
        hidden=tuple(git.hidden_files(root)),
    )


def run(config: Config, options: VerifyOptions, console: Console | None = None) -> report.Report:
    """Run the selected gates in order, printing a live status line and a final table."""
    console = console or make_console()
    setup = report.setup_steps(os.environ.get(report.SETUP_ENV))  # refused before any gate runs
    selected = select(config, options.only, options.skip)
    mine = shard(selected, *options.shard) if options.shard else selected
    folder = options.report_dir or config.path(config.report_dir)
    verified = worktree(config, folder)
    ctx = Context(
        config=config,
        strict=options.strict,
        evidence_dir=folder,
        configured=select(config),
        environment=installed.environment,
    )
    results: list[GateResult] = []
    for i, g in enumerate(mine, 1):
        # Summaries and descriptions are plain text: "[tool.mlrelease]" is not rich markup.
        with console.status(f"\\[{i}/{len(mine)}] {g.name}: {escape(g.description)}"):
            result = apply_strict(g, g.execute(ctx), options.strict)
        style = STYLES[result.status]
        console.print(
            f"\\[{i}/{len(mine)}] [{style}]{result.status.value:5}[/] {g.name}: "
            f"{escape(result.summary)} "
            f"[dim]({result.duration_s:.1f} s)[/]",
            highlight=False,
        )
        results.append(result)
    outcome = report.Report(
        project=config.project_name or config.root.name,
        version=config.version,
        commit=git.head(config.root),
        gates=[g.name for g in selected],
        results=results,
        strict=options.strict,
        shard=options.shard,
        worktree=verified,
        setup=setup,
    )
    paths = report.write(outcome, folder)
    console.print(summary_table(outcome))
    console.print(timings_table(outcome))
    console.print(f"Reports: {', '.join(str(p) for p in paths.values())}", highlight=False)
    unignored = not_ignored(config.root, folder)
    if unignored:
        console.print(
            f"note: {unignored}/ is not ignored by git: these reports leave the working tree "
            "with untracked files, and the release commands (cut, prepare, rc, bind) refuse "
            f"such a tree. Add {_ignore_line(unignored)} to .gitignore, or set [tool.mlrelease] "
            "report-dir to a folder outside the repository.",
            highlight=False,
            markup=False,  # "[tool.mlrelease]" is text, not rich markup
        )
    return outcome


def _ignore_line(folder: str) -> str:
    """What to add to .gitignore for the reports in ``folder``: the folder itself, or also
    ``build/`` when the folder is in it (build output most projects ignore whole)."""
    return f"{folder}/ (or build/)" if folder.startswith("build/") else f"{folder}/"


def not_ignored(root: Path, folder: Path) -> str | None:
    """``folder`` relative to ``root`` (POSIX) when it lies in the git work tree at ``root``
    and git does not ignore the reports written there; None otherwise (ignored, outside the
    work tree, or no repository)."""
    try:
        inside = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    if inside == "." or not git.is_repo(root):
        return None
    # --no-index: the ignore rules alone, tracked or not (a committed report is as dirtying)
    ignored = git.run(root, "check-ignore", "--no-index", f"{inside}/report.json", check=False)
    return None if ignored else inside


def summary_table(outcome: report.Report) -> Table:
    table = Table(title=f"release_verify: {outcome.verdict.upper()}", title_justify="left")
    table.add_column("gate")
    table.add_column("status")
    table.add_column("summary", overflow="fold")
    table.add_column("time", justify="right")
    for r in outcome.results:
        table.add_row(
            r.name,
            f"[{STYLES[r.status]}]{r.status.value}[/]",
            escape(r.summary),
            f"{r.duration_s:.1f} s",
        )
    return table


def timings_table(outcome: report.Report) -> Table:
    """Where the time went: the environment set-up, each gate, the total (the report's end)."""
    table = Table(title="Timings", title_justify="left")
    table.add_column("step")
    table.add_column("time", justify="right")
    for name, seconds in report.timings(outcome):
        table.add_row(escape(name), f"{seconds:.1f} s")
    return table
