"""Release verbs for humans, in namespaces: ``invoke --list``.

Each task wraps one ``mlrelease`` command. Mutating tasks are dry runs unless ``--execute``.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys

from invoke.collection import Collection
from invoke.context import Context
from invoke.tasks import task


def _mlrelease(c: Context, *args: str) -> None:
    """Run the mlrelease CLI: in this environment when installed, else in nox's `cli` session."""
    if importlib.util.find_spec("mlrelease") is not None:
        c.run(shlex.join([sys.executable, "-m", "mlrelease", *args]))
    else:
        c.run(shlex.join(["nox", "-s", "cli", "--", *args]))


def _flags(**flags: bool) -> list[str]:
    return [f"--{name.replace('_', '-')}" for name, on in flags.items() if on]


@task(
    help={
        "to": "the new version, e.g. 1.5.0 or 1.5.0rc1",
        "part": "or the part to bump: major, minor, patch, pre (rcN, devN), stage (dev/rc/final)",
        "execute": "write the files (default: dry run)",
    }
)
def bump(c: Context, to: str = "", part: str = "", execute: bool = False) -> None:
    """Bump the version in every file listed for bump-my-version."""
    target = ["--to", to] if to else ["--part", part] if part else []
    _mlrelease(c, "bump", *target, *_flags(execute=execute))


release = Collection("release")
release.add_task(bump)

ns = Collection(release)


@task(name="build")
def docs_build(c: Context) -> None:
    """Build the docs once: warnings are errors, generated pages and internal links checked."""
    c.run("nox --non-interactive -s docs")


@task(name="serve", help={"port": "the port on 127.0.0.1 (default 8000)"})
def docs_serve(c: Context, port: int = 8000) -> None:
    """Serve the docs with autoreload: every saved change rebuilds and reloads the browser."""
    c.run(shlex.join(["nox", "-s", "docs", "--", "--serve", "--port", str(port)]), pty=True)


@task(name="generate", help={"check": "write nothing; fail when a page is stale"})
def docs_generate(c: Context, check: bool = False) -> None:
    """Regenerate the docs pages listing every nox session and invoke task."""
    _mlrelease(c, "docs", "generate", *_flags(check=check))


@task(
    name="freeze",
    help={
        "version": "the release whose tag to build, e.g. 1.4.0 (tag v1.4.0) or 1.4.0rc1",
        "dev": "or build HEAD as the dev docs ('main')",
        "site": "the versioned site folder, e.g. a gh-pages checkout (default: build/site)",
        "force": "rebuild a version that is already frozen",
        "execute": "build and write (default: dry run)",
    },
)
def docs_freeze(
    c: Context,
    version: str = "",
    dev: bool = False,
    site: str = "",
    force: bool = False,
    execute: bool = False,
) -> None:
    """Freeze a release's docs from its tag into the versioned site; update the switcher."""
    which = ["--version", version] if version else ["--dev"] if dev else []
    where = ["--site", site] if site else []
    _mlrelease(c, "docs", "freeze", *which, *where, *_flags(force=force, execute=execute))


docs = Collection("docs", docs_build, docs_serve, docs_generate, docs_freeze)
ns.add_collection(docs)
