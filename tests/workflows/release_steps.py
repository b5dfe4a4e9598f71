"""The maintainer's side of the release path in the rehearsal's clone: the real `mlrelease
release` commands (cut, prepare, rc; verify and promote), run as a person runs them, between
the workflow runs that react to the tags they push."""

from __future__ import annotations

import os
import subprocess
import sys

from rehearsal import GIT_ENV, RehearsalError, World, git


def nox(world: World, session: str, *args: str) -> str:
    """Run a nox session of the clone as its maintainer does (``nox -s mlrelease -- release rc``);
    its output, or an error with it."""
    env = {**os.environ, **GIT_ENV, "HOME": world.env(world.root / "maintainer")["HOME"]}
    env = {k: v for k, v in env.items() if not k.startswith(("NOX", "PYTEST_XDIST"))}
    command = [sys.executable, "-m", "nox", "-s", session, "--", *args]
    done = subprocess.run(command, cwd=world.clone, env=env, capture_output=True, text=True)
    if done.returncode:
        output = (done.stdout + done.stderr)[-3000:]
        raise RehearsalError(
            f"nox -s {session} -- {' '.join(args)}: exit {done.returncode}\n{output}"
        )
    return done.stdout


def mlrelease(world: World, *args: str) -> str:
    """The mlrelease CLI in the clone, through `nox -s mlrelease` (the release tools installed)."""
    return nox(world, "mlrelease", *args)


def cut_rc(world: World, version: str = "0.1.0") -> str:
    """Cut release/X.Y, prepare X.Y.Z on it and tag its first RC, pushed to origin; the tag.
    The clone is left on the RC's commit (act rehearses the working tree)."""
    series = version.rpartition(".")[0]
    mlrelease(world, "release", "cut", "--version", series, "--execute", "--push")
    git(world.clone, "checkout", "-q", f"release/{series}")
    mlrelease(world, "release", "prepare", "--version", version, "--execute", "--push")
    mlrelease(world, "release", "rc", "--execute", "--push")
    tag = git(world.clone, "describe", "--exact-match", "--tags", "HEAD")
    git(world.clone, "checkout", "-q", tag)
    return tag


def tag_push(world: World, tag: str) -> dict[str, object]:
    """The push event of ``tag`` (the clone must be on its commit)."""
    sha = git(world.clone, "rev-parse", "HEAD")
    return {"ref": f"refs/tags/{tag}", "after": sha, "head_commit": {"id": sha}}


def promote(world: World, rc: str, artifacts: str) -> str:
    """What a person runs to promote ``rc``: release_verify on the RC's commit (its report is
    what promotion reads), then `release promote`, which pushes the final tag; the tag."""
    git(world.clone, "checkout", "-q", f"release/{rc.lstrip('v').rpartition('.')[0]}")
    nox(world, "release_verify")
    mlrelease(
        world,
        "release",
        "promote",
        "--rc",
        rc,
        "--published-elsewhere",
        "--artifacts",
        artifacts,
        "--execute",
        "--push",
    )
    tag = rc.partition("-rc")[0]
    git(world.clone, "checkout", "-q", tag)
    return tag
