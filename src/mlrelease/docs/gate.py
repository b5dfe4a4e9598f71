"""The ``docs`` gate: the documentation builds clean and the versioned site is consistent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from mlrelease.docs import published, service, site, switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.edges import git, reuse
from mlrelease.gates import Context, GateResult, ReuseOptions, gate


@gate(
    "docs",
    "The docs build with no warnings (`-W`), the built site declares the project's version "
    "(Sphinx's `release` as rendered), their generated pages equal a fresh "
    "regeneration, internal links resolve, and the versioned site's `switcher.json` is valid "
    "with a folder for every listed version; every final release tag is frozen and listed on "
    "the published site (the pages branch or `base-url`), the newest one preferred.",
    options=ReuseOptions,
    extra="docs",
)
def check_docs(ctx: Context) -> GateResult:
    docs = ctx.config.table(DocsConfig)
    docs.validate(str(ctx.config.pyproject_path))
    logs = ctx.evidence_path("docs", "html.log").parent
    problems, links, note = _build(ctx, docs, logs)
    evidence = [ctx.display(p) for p in sorted(logs.glob("*.log"))]
    site_dir = ctx.config.path(docs.site)
    if (site_dir / switcher.FILENAME).is_file():
        problems += [f"site {ctx.display(site_dir)}: {p}" for p in site.problems(site_dir)]
        listed = site.read_switcher(site_dir) if not problems else None
        site_note = (
            f"site {ctx.display(site_dir)} lists "
            f"{', '.join(switcher.versions(listed or [])) or 'no release'}"
        )
    else:
        site_note = f"no frozen site at {ctx.display(site_dir)} (nothing to check there)"
    release_docs = published.state(ctx.config)
    problems += release_docs.problems
    if release_docs.released and not release_docs.problems:
        site_note += (
            f"; every final release ({len(release_docs.released)}) is frozen and listed on "
            f"{release_docs.source}, {release_docs.released[-1]} preferred"
        )
    if problems:
        return GateResult.failed(
            f"{len(problems)} docs problem(s): {problems[0]}",
            details=problems,
            evidence=evidence,
        )
    return GateResult.passed(
        f"built with no warnings; generated pages current; {links} internal links resolve; "
        f"{site_note}{note}",
        evidence=evidence,
    )


def _build(ctx: Context, docs: DocsConfig, logs: Path) -> tuple[list[str], int, str]:
    """Build the docs (or reuse a clean build of the same commit, tree, tags and environment):
    (the build's problems, the internal links checked, the reuse note)."""
    stamp = logs / "built.json"
    options = ctx.options("docs", ReuseOptions)
    tags = git.run(ctx.root, "for-each-ref", "refs/tags", check=False) if options.reuse else ""
    now = reuse.key(ctx.root, "docs", tags) if options.reuse else None
    last = reuse.recall(stamp, now)
    if now and last and isinstance(last.facts.get("internal_links"), int):
        note = last.note(now, "[tool.mlrelease.gate-options.docs]")
        return [], int(last.facts["internal_links"]), f" {note}"  # type: ignore[call-overload]
    out = Path(tempfile.mkdtemp(prefix="mlrelease-docs-gate-"))
    try:
        outcome = service.build(ctx.config, docs, out, logs=logs)
        declared = service.declared_version(out / "html")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    problems = outcome.problems()
    wrong = service.version_problem(declared, ctx.config.version) if outcome.html else None
    problems += [wrong] if wrong else []
    if not problems:
        reuse.remember(stamp, now, "built", internal_links=outcome.internal_links)
    return problems, outcome.internal_links, ""


GATES = (check_docs,)
