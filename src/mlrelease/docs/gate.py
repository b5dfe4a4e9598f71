"""The ``docs`` gate: the documentation builds clean and the versioned site is consistent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from mlrelease.docs import published, service, site, switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.gates import Context, GateResult, gate


@gate(
    "docs",
    "The docs build with no warnings (`-W`), their generated pages equal a fresh "
    "regeneration, internal links resolve, and the versioned site's `switcher.json` is valid "
    "with a folder for every listed version; every final release tag is frozen and listed on "
    "the published site (the pages branch or `base-url`), the newest one preferred.",
)
def check_docs(ctx: Context) -> GateResult:
    docs = ctx.config.table(DocsConfig)
    docs.validate(str(ctx.config.pyproject_path))
    logs = ctx.evidence_path("docs", "html.log").parent
    out = Path(tempfile.mkdtemp(prefix="mlrelease-docs-gate-"))
    try:
        outcome = service.build(ctx.config, docs, out, logs=logs)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    problems = outcome.problems()
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
        f"built with no warnings; generated pages current; {outcome.internal_links} internal "
        f"links resolve; {site_note}",
        evidence=evidence,
    )


GATES = (check_docs,)
