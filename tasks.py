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
    """Run the mlrelease CLI: in this environment when installed, else in nox's `mlrelease`
    session, reusing its environment once made (`-R`: no reinstall; `nox -s mlrelease`
    refreshes it)."""
    if importlib.util.find_spec("mlrelease") is not None:
        c.run(shlex.join([sys.executable, "-m", "mlrelease", *args]))
    else:
        c.run(shlex.join(["nox", "-R", "-s", "mlrelease", "--", *args]))


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


@task(
    help={
        "version": "the release X.Y.Z (default: from the version files)",
        "json": "print JSON (for CI)",
    }
)
def status(c: Context, version: str = "", json: bool = False) -> None:
    """Show where the release stands: versions, changelog, branches, tags, verdict, next steps."""
    _mlrelease(
        c, "release", "status", *(["--version", version] if version else []), *_flags(json=json)
    )


@task(
    help={
        "version": "the release series X.Y",
        "from_ref": "branch from this ref, not main",
        "execute": "act (default: dry run)",
        "push": "push the branch and main",
    }
)
def cut(
    c: Context, version: str, from_ref: str = "", execute: bool = False, push: bool = False
) -> None:
    """Cut release/X.Y, commit its release-only edits, move main to the next .dev version."""
    _mlrelease(
        c,
        "release",
        "cut",
        "--version",
        version,
        *(["--from", from_ref] if from_ref else []),
        *_flags(execute=execute, push=push),
    )


@task(
    help={
        "version": "the release X.Y.Z",
        "execute": "act (default: dry run)",
        "push": "push the release branch",
    }
)
def prepare(c: Context, version: str, execute: bool = False, push: bool = False) -> None:
    """Set the release version and write its changelog section: one commit on release/X.Y."""
    _mlrelease(c, "release", "prepare", "--version", version, *_flags(execute=execute, push=push))


@task(
    help={
        "tag": "the expected tag: the next number, or any above the newest RC (gap named)",
        "rebuild": "HEAD is already a candidate: tag the same commit again as the next number",
        "execute": "act (default: dry run)",
        "push": "push the branch and the tag",
    }
)
def rc(
    c: Context, tag: str = "", rebuild: bool = False, execute: bool = False, push: bool = False
) -> None:
    """Tag the next release candidate vX.Y.Z-rcN on the release branch head."""
    options = [*(["--tag", tag] if tag else []), *(["--rebuild"] if rebuild else [])]
    _mlrelease(c, "release", "rc", *options, *_flags(execute=execute, push=push))


@task(
    help={
        "rc": "the release candidate tag, e.g. v1.4.0-rc2",
        "artifacts": "the folder of the files built at the RC's commit",
        "execute": "act (default: dry run)",
        "push": "push the manifest ref",
    }
)
def bind(
    c: Context, rc: str, artifacts: str = "", execute: bool = False, push: bool = False
) -> None:
    """Bind the RC's built files to it: their manifest on origin, which a rebuild cannot move."""
    options = ["--artifacts", artifacts] if artifacts else []
    _mlrelease(c, "release", "bind", "--rc", rc, *options, *_flags(execute=execute, push=push))


@task(
    help={
        "rc": "the release candidate tag, e.g. v1.4.0-rc2",
        "report": "the RC's release_verify report.json (default: build/release-verify/)",
        "artifacts": "the RC's verified artifacts folder",
        "publish": "publish first (unless the index holds these files), then tag",
        "repository_url": "the index to publish to and check (default: PyPI)",
        "published_elsewhere": "tag without reading an index when none is known (another "
        "system publishes the files)",
        "execute": "act (default: dry run)",
        "push": "push the final tag",
    }
)
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
    options = [
        *(["--report", report] if report else []),
        *(["--artifacts", artifacts] if artifacts else []),
        *(["--repository-url", repository_url] if repository_url else []),
    ]
    _mlrelease(
        c,
        "release",
        "promote",
        "--rc",
        rc,
        *options,
        *_flags(
            publish=publish, published_elsewhere=published_elsewhere, execute=execute, push=push
        ),
    )


@task(
    help={
        "branch": "the release branch (default: the current one)",
        "output": "write the Markdown to this file",
        "execute": "cherry-pick the missing fixes",
        "push": "push the release branch",
    }
)
def cherry_picks(
    c: Context, branch: str = "", output: str = "", execute: bool = False, push: bool = False
) -> None:
    """Track main's fixes since the fork: wanted or not, picked, missing (Markdown)."""
    options = [*(["--branch", branch] if branch else []), *(["--output", output] if output else [])]
    _mlrelease(c, "release", "cherry-picks", *options, *_flags(execute=execute, push=push))


@task(
    help={
        "version": "the release X.Y.Z",
        "confirm": "mark a manual step done",
        "execute": "run the steps (default: show the ledger)",
    },
    iterable=["confirm"],
)
def checklist(
    c: Context, version: str, confirm: list[str] | None = None, execute: bool = False
) -> None:
    """Walk the release checklist, resuming at the first unfinished step (ledger in build/)."""
    confirmed = [a for step in confirm or [] for a in ("--confirm", step)]
    _mlrelease(
        c, "release", "checklist", "--version", version, *confirmed, *_flags(execute=execute)
    )


@task(
    help={
        "execute": "write the page (default: dry run, show the diff)",
        "check": "fail when the page is stale; write nothing",
    }
)
def checklist_doc(c: Context, execute: bool = False, check: bool = False) -> None:
    """Generate docs/release/checklist.md from the configured checklist."""
    _mlrelease(c, "release", "checklist-doc", *_flags(execute=execute, check=check))


@task(
    help={
        "check": "write nothing; fail when the committed index or page is stale",
        "diff": "also compare with a previous index: a file, a git ref, or 'auto'",
    }
)
def index(c: Context, check: bool = False, diff: str = "") -> None:
    """Regenerate the supported-operators index from a conformance run (nox -s ops_index)."""
    extra = [*_flags(check=check), *(["--diff", diff] if diff else [])]
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


@task(
    name="generate",
    help={
        "execute": "write the pages (default: dry run, show the diff)",
        "check": "write nothing; fail when a page is stale",
    },
)
def docs_generate(c: Context, execute: bool = False, check: bool = False) -> None:
    """Regenerate the docs pages listing every nox session and invoke task."""
    _mlrelease(c, "docs", "generate", *_flags(execute=execute, check=check))


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


@task(help={"execute": "write pyproject.toml (default: dry run)"})
def init(c: Context, execute: bool = False) -> None:
    """Describe this repository in [tool.mlrelease] and [tool.bumpversion] (mlrelease init)."""
    _mlrelease(c, "init", *_flags(execute=execute))


ns.add_task(init)
