"""Sphinx configuration of the mlrelease documentation.

Versioned builds never edit this file: ``mlrelease docs freeze`` builds it from a release tag
with the version injected on the command line (``-D version=X -D release=X``) and
``MLRELEASE_DOCS_VERSION`` telling the version switcher which entry is this build.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path
from typing import Any

import mlrelease

HERE = Path(__file__).parent

project = "mlrelease"
author = "mlrelease developers"
copyright = "mlrelease developers"  # no year: the build stays the same whenever it runs
release = version = mlrelease.__version__  # a frozen build overrides both with -D

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: one page per module, generated at build time from the package itself (see
# api/index.md), so a new module appears without editing any page.
autosummary_generate = True


def _prune_generated(folder: Path) -> None:
    """Start the API pages afresh when the set of modules changed. autosummary writes them
    beside the sources (api/generated/, ignored by git) and never prunes them, so a module
    removed or moved since the last local build would leave its page, and a package's page
    would still list it: either fails -W. The set of modules the pages were made from is kept
    in ``.modules`` beside them; while it holds, the pages are kept as they are (rewriting them
    would make every build after the first re-read the whole API)."""
    package = Path(mlrelease.__file__).parent
    dotted = (path.relative_to(package).with_suffix("").parts for path in package.rglob("*.py"))
    modules = {".".join(("mlrelease", *parts)).removesuffix(".__init__") for parts in dotted}
    listed = "\n".join(sorted(modules)) + "\n"
    stamp = folder / ".modules"
    if folder.is_dir() and not (stamp.is_file() and stamp.read_text(encoding="utf-8") == listed):
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp.write_text(listed, encoding="utf-8")


_prune_generated(HERE / "api" / "generated")
autodoc_member_order = "bysource"
autodoc_default_options = {"show-inheritance": True}
# Optional runtimes the docs environment does not install; mocked only when absent so their
# importers still document.
autodoc_mock_imports = [
    name
    for name in ("onnx", "onnxruntime", "torch", "numpy", "cibuildwheel")
    if importlib.util.find_spec(name) is None
]

# Sections that other generators fill (the supported-ops index, the perf report) appear in the
# index's toctree once their pages exist; until then their glob entries are left out rather
# than matching nothing (a warning, and warnings are errors here).
OPTIONAL_SECTIONS = ("indices", "perf")


def _drop_empty_sections(app: Any, docname: str, source: list[str]) -> None:
    if docname != "index":
        return
    for section in OPTIONAL_SECTIONS:
        if not any(p.suffix in (".md", ".rst") for p in (HERE / section).glob("*")):
            source[0] = source[0].replace(f"\n{section}/*\n", "\n")


def _reread_index(
    app: Any, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # A section's first page changes the index's toctree though index.md itself did not change.
    return ["index"] if added or removed else []


def _unlink_empty_targets(app: Any, path: Path, parent: str, content: list[str]) -> None:
    # git-changelog leaves a link's target empty when the repository has no remote URL
    # ("[3f63a4f]()"); the changelog page shows such links as text, not as links to nowhere.
    if path.name == "CHANGELOG.md":
        content[0] = re.sub(r"\[([^\]\n]+)\]\(\)", r"\1", content[0])


def setup(app: Any) -> None:
    app.connect("source-read", _drop_empty_sections)
    app.connect("env-get-outdated", _reread_index)
    app.connect("include-read", _unlink_empty_targets)


# Set by `mlrelease docs freeze`; a local build has no versioned site, hence no switcher.
FROZEN_AS = os.environ.get("MLRELEASE_DOCS_VERSION")

html_theme = "pydata_sphinx_theme"
# A short title: the long default ("mlrelease 0.1.0.dev0 documentation") collides with the
# navbar's links at desktop widths.
html_title = "mlrelease"
html_static_path = ["_static"]
html_css_files = ["mlrelease.css"]
# No left sidebar: the navbar lists every section, and the sections are flat (the sidebar
# would show an empty "Section Navigation"), so tables get the width.
html_sidebars: dict[str, list[str]] = {"**": []}
html_theme_options = {
    "header_links_before_dropdown": 3,
    "switcher": {
        # switcher.json sits in the site root, beside the version folders (X.Y.Z/, main/).
        "json_url": "../switcher.json",
        "version_match": FROZEN_AS or "main",
    },
    # The file is written by `mlrelease docs freeze` into the site, not kept in the sources.
    "check_switcher": False,
    "navbar_end": [
        *(["version-switcher"] if FROZEN_AS else []),
        "theme-switcher",
        "navbar-icon-links",
    ],
    "show_version_warning_banner": bool(FROZEN_AS),
    "icon_links": [
        {
            "name": "GitHub",
            "url": "https://github.com/mlrelease/mlrelease",
            "icon": "fa-brands fa-github",
        },
    ],
}
html_context = {"default_mode": "light"}
