"""Release verbs for humans, in namespaces: ``invoke --list``.

Each task wraps one ``mlrelease`` command. Mutating tasks are dry runs unless ``--execute``.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys

from invoke import Collection, Context, task


def _mlrelease(c: Context, *args: str) -> None:
    """Run the mlrelease CLI: in this environment when installed, else in nox's `cli` session."""
    if importlib.util.find_spec("mlrelease") is not None:
        c.run(shlex.join([sys.executable, "-m", "mlrelease", *args]))
    else:
        c.run(shlex.join(["nox", "-s", "cli", "--", *args]))


def _flags(**flags: bool) -> list[str]:
    return [f"--{name.replace('_', '-')}" for name, on in flags.items() if on]


@task(help={
    "to": "the new version, e.g. 1.5.0 or 1.5.0rc1",
    "part": "or the part to increment: major, minor, patch, pre (rcN / devN), stage (.dev -> rc -> final)",
    "execute": "write the files (default: dry run)",
})
def bump(c: Context, to: str = "", part: str = "", execute: bool = False) -> None:
    """Bump the version in every file listed for bump-my-version."""
    target = ["--to", to] if to else ["--part", part] if part else []
    _mlrelease(c, "bump", *target, *_flags(execute=execute))


@task(help={
    "check": "write nothing; fail when the committed index or page is stale",
    "diff": "also compare with a previous index: a file, a git ref, or 'auto'",
})
def index(c: Context, check: bool = False, diff: str = "") -> None:
    """Regenerate the supported-operators index from a conformance run (nox -s ops_index)."""
    extra = [*_flags(check=check), *(["--diff", diff] if diff else [])]
    c.run(shlex.join(["nox", "-s", "ops_index", "--", *extra]))


release = Collection("release")
release.add_task(bump)
ops = Collection("ops")
ops.add_task(index)

ns = Collection(release, ops)
