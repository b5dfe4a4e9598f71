"""``mlrelease docs build`` and the ``docs`` gate: generated pages current, HTML built with
warnings as errors, internal links checked."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from mlrelease.config import Config
from mlrelease.docs import pages, sphinx_run
from mlrelease.docs.config import DocsConfig


@dataclass
class DocsCheck:
    """What a checked build found."""

    stale: list[str] = field(default_factory=list)
    html: sphinx_run.Result | None = None
    links: sphinx_run.Result | None = None
    broken: list[str] = field(default_factory=list)
    internal_links: int = 0

    @property
    def ok(self) -> bool:
        return (
            not self.stale
            and self.html is not None
            and self.html.ok
            and self.links is not None
            and self.links.ok
            and not self.broken
        )

    def problems(self) -> list[str]:
        """One line per problem, in the order a reader should fix them."""
        found = [
            f"stale generated page {s}; run `mlrelease docs generate --execute`" for s in self.stale
        ]
        for label, result in (("HTML build", self.html), ("link check", self.links)):
            if result is None:
                continue
            found += [f"{label}: {w}" for w in result.warnings]
            if result is self.links and not result.warnings:
                # linkcheck reports broken links as warnings under -q; this is the fallback
                found += [f"broken internal link {b}" for b in self.broken]
            if result.returncode != 0 and not result.warnings and not self.broken:
                where = f" (log: {result.log})" if result.log else ""
                found.append(f"{label}: Sphinx exited {result.returncode}{where}")
        return found


def check_generated(config: Config, docs: DocsConfig) -> list[str]:
    """Generated pages that differ from a fresh regeneration."""
    return pages.stale(config.root, pages.generate(config.root, docs.source))


def build(
    config: Config, docs: DocsConfig, out: Path, *, logs: Path | None = None, generated: bool = True
) -> DocsCheck:
    """Check the generated pages, build HTML (warnings are errors), check internal links.

    ``out`` receives ``html/``, ``linkcheck/`` and the shared doctrees; with ``logs`` Sphinx's
    output goes to files there instead of the terminal.
    """
    outcome = DocsCheck(stale=check_generated(config, docs) if generated else [])
    source = config.path(docs.source)
    doctrees = out / ".doctrees"
    outcome.html = sphinx_run.build(
        source,
        out / "html",
        doctrees=doctrees,
        cwd=config.root,
        log=logs / "html.log" if logs else None,
    )
    if not outcome.html.ok:
        return outcome  # the link check would repeat the same warnings
    outcome.links = sphinx_run.build(
        source,
        out / "linkcheck",
        builder="linkcheck",
        doctrees=doctrees,
        cwd=config.root,
        log=logs / "linkcheck.log" if logs else None,
    )
    outcome.broken, outcome.internal_links = _link_results(out / "linkcheck" / "output.json")
    return outcome


def _link_results(path: Path) -> tuple[list[str], int]:
    """Broken links and how many internal links there are, from linkcheck's output.json."""
    if not path.is_file():
        return [], 0
    broken, checked = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("status") != "ignored":  # ignored: links leaving the site
            checked += 1
        if entry.get("status") == "broken":
            broken.append(f"{entry.get('filename')}:{entry.get('lineno')}: {entry.get('uri')}")
    return broken, checked


_DECLARED = re.compile(r"""\bVERSION:\s*(['"])(?P<version>[^'"]*)\1""")


def declared_version(html: Path) -> str | None:
    """The version the built site declares: Sphinx's ``release`` as rendered into
    ``_static/documentation_options.js`` (``VERSION: '0.1.0'``); None when it declares none."""
    path = html / "_static" / "documentation_options.js"
    if not path.is_file():
        return None
    found = _DECLARED.search(path.read_text(encoding="utf-8", errors="replace"))
    return found["version"] if found and found["version"] else None


def version_problem(declared: str | None, project: str) -> str | None:
    """Why a site declaring ``declared`` does not document ``project`` (None: it does)."""
    if declared is None or not project:
        return None
    try:
        same = Version(declared) == Version(project)
    except InvalidVersion:
        same = declared == project
    if same:
        return None
    return (
        f"the built site declares version {declared!r} (Sphinx's release, as rendered), the "
        f"project is {project}: take it from the package (e.g. "
        "`release = importlib.metadata.version(...)`) instead of hard-coding it in conf.py"
    )
