"""The sides of a bisect on disk: each commit's wheel, built once, and each environment.

A commit is built by the reference build of :mod:`mlrelease.wheels.reference` (pypa/build,
isolated, cached by commit in the clone's git folder) or, on a machine with no index to fetch
build requirements from (``--build pip``), by ``pip wheel --no-build-isolation`` over a clean
export of the commit (``git archive``), cached the same way under the bisect's folder.

An environment is a folder installed with ``pip install --target``: the commit's wheel (no
dependencies) and every pin of its lock that the worker's interpreter does not already have,
as prebuilt wheels from the configured index (``--only-binary :all:``: a dependency is never
built). Workers put it first on ``PYTHONPATH``, before the project and the interpreter's own
packages. pip runs ``--isolated``: the machine's pip configuration (another index, find-links,
constraints) never decides what a side holds. Both are made in a temporary folder and renamed
into place whole, so a killed run leaves nothing that looks finished.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mlrelease.edges import checkout, proc
from mlrelease.edges.digests import sha256
from mlrelease.errors import PreconditionError
from mlrelease.perf.bisect.state import Side
from mlrelease.perf.results import excerpt
from mlrelease.wheels import reference

BUILDERS = ("reference", "pip")


@dataclass(frozen=True)
class BuiltWheel:
    """A commit's wheel, or why there is none."""

    wheel: Path | None
    error: str = ""


def build(root: Path, commit: str, builder: str, cache: Path) -> BuiltWheel:
    """The wheel of ``commit`` (cached: a commit is built once)."""
    if builder == "reference":
        made = reference.build(root, commit)
        if made.wheel is not None and not made.broken:
            return BuiltWheel(made.wheel)
        why = made.broken or "; ".join(made.notes) or "no wheel was built"
        return BuiltWheel(None, f"the reference build of {commit[:12]} gives no wheel: {why}")
    folder = cache / "wheels" / commit
    if folder.is_dir():
        return _load(folder)
    with tempfile.TemporaryDirectory(prefix="mlrelease-bisect-build-") as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        error = _pip_wheel(root, commit, Path(tmp), out)
        (out / "state.json").write_text(json.dumps({"error": error}), encoding="utf-8")
        _place(out, folder)
    return _load(folder)


def _pip_wheel(root: Path, commit: str, work: Path, out: Path) -> str:
    tree = work / "tree"
    try:  # the commit as a fresh clone's checkout writes it, as the reference build reads it
        checkout.export(root, commit, tree)
    except PreconditionError as exc:
        return f"the checkout of {commit[:12]} failed: {exc}"
    options = ["--isolated", "--no-deps", "--no-build-isolation", "--wheel-dir", str(out)]
    done = proc.call(proc.python_module("pip", "wheel", *options, str(tree)), cwd=work)
    if done.returncode != 0:
        return f"pip wheel of {commit[:12]} failed: {excerpt(done.stdout + done.stderr)}"
    return ""


def _load(folder: Path) -> BuiltWheel:
    error = json.loads((folder / "state.json").read_text(encoding="utf-8")).get("error", "")
    wheels = sorted(folder.glob("*.whl"))
    if error or not wheels:
        return BuiltWheel(None, error or f"no wheel in {folder}")
    return BuiltWheel(wheels[0])


def _place(staged: Path, folder: Path) -> None:
    """Move ``staged`` to ``folder`` whole (another run that got there first wins)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    landing = Path(tempfile.mkdtemp(prefix=".partial-", dir=folder.parent))
    shutil.rmtree(landing)
    shutil.copytree(staged, landing)
    try:
        os.replace(landing, folder)
    except OSError:
        shutil.rmtree(landing, ignore_errors=True)


@dataclass(frozen=True)
class PinIndex:
    """Where a side's pinned dependencies come from."""

    url: str
    extra: tuple[str, ...] = ()

    def options(self) -> list[str]:
        extra = [a for u in self.extra for a in ("--extra-index-url", u)]
        return ["--index-url", self.url, *extra]


def install(side: Side, wheel: Path, index: PinIndex, cache: Path) -> tuple[Path | None, str]:
    """The environment folder of ``side`` (its commit's ``wheel`` and its pins), or why it
    could not be installed."""
    wanted = [f"{n}=={v}" for n, v in side.pins if not _installed_here(n, v)]
    identity = {
        "wheel": sha256(wheel),
        "pins": wanted,
        "index": [index.url, *index.extra],
        "python": sys.version,
    }
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]
    folder = cache / "envs" / key
    if folder.is_dir():
        return folder, ""
    with tempfile.TemporaryDirectory(prefix="mlrelease-bisect-env-") as tmp:
        target = Path(tmp) / "env"
        error = _pip_install(target, ["--no-index", str(wheel)])
        if not error and wanted:
            error = _pip_install(target, ["--only-binary", ":all:", *index.options(), *wanted])
        if error:
            return None, error
        _place(target, folder)
    return folder, ""


def _pip_install(target: Path, args: Sequence[str]) -> str:
    options = ["--isolated", "--no-deps", "--disable-pip-version-check", "--quiet"]
    done = proc.call(proc.python_module("pip", "install", *options, "--target", str(target), *args))
    if done.returncode != 0:
        return f"pip install {' '.join(args[-3:])} failed: {excerpt(done.stdout + done.stderr)}"
    return ""


def _installed_here(name: str, version: str) -> bool:
    """Whether the workers' interpreter (this one) already has ``name`` at ``version``."""
    try:
        return metadata.version(name) == version
    except metadata.PackageNotFoundError:
        return False


def pythonpath(folder: Path, root: Path) -> str:
    """The workers' ``PYTHONPATH`` for an environment: it first, then the project, then
    whatever this process was given."""
    parts = [str(folder), str(root), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in parts if p)
