"""The reference build of a commit: what the release's files must be (issue 44).

The sdist is built with pypa/build from a clean export of the commit (``git archive``: no
working tree, no ``dist/``, no untracked file), and from that sdist the wheel. When the wheel
cannot be built here (a CUDA or Bazel build), the wheel's metadata is (the backend's
``prepare_metadata_for_build_wheel``) and the wheel is built from the export's tree once more:
if the tree builds and the sdist does not, the sdist is incomplete (a header missing from
``MANIFEST.in``), which refuses the release; if neither builds, the comparisons this removes are
named in :attr:`Reference.notes`, never passed over silently.

A reference is cached by commit in the clone's git folder (``mlrelease/reference/<commit>``): a
commit builds one reference, and a second bind, publish or promote reads it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.edges import git
from mlrelease.errors import UserError
from mlrelease.wheels.build import pypa_build

CACHE = "mlrelease/reference"
"""Below the clone's git folder: one folder per commit."""
STATE = "reference.json"


@dataclass(frozen=True)
class Reference:
    """What ``commit`` builds here: its sdist, its wheel (or only the wheel's metadata)."""

    commit: str
    sdist: Path | None = None
    wheel: Path | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    """The wheel's core metadata as ``python -m build --metadata`` prints it (JSON fields)."""
    broken: str = ""
    """Why the commit is no release: its sdist does not build, or its sdist does not build a
    wheel that its tree builds (empty: it is one)."""
    notes: tuple[str, ...] = ()
    """The comparisons a reference built here cannot make, and why."""
    seconds: float = 0.0
    """How long the build took (0.0 when it was read from the cache)."""
    cached: bool = False


def build(
    root: Path, commit: str, version: str = "", stamp: Callable[[Path], None] | None = None
) -> Reference:
    """The reference of ``commit`` (from the cache when it was built before). ``stamp``: writes
    ``version`` into the export first, as the release build does where the version comes from
    the tag (``version-source = "tag"``: the commit's files carry a development marker)."""
    folder = git.git_dir(root) / CACHE / (f"{commit}-{version}" if stamp else commit)
    if (folder / STATE).is_file():
        return _load(folder, commit)
    started = time.monotonic()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mlrelease-reference-") as tmp:
        work = Path(tmp)
        out = work / "out"
        state = _make(root, commit, work, out, stamp)
        state["seconds"] = round(time.monotonic() - started, 3)
        (out / STATE).write_text(json.dumps(state, indent=1), encoding="utf-8")
        staged = Path(tempfile.mkdtemp(prefix=f"{commit}.", dir=folder.parent))
        shutil.rmtree(staged)
        shutil.copytree(out, staged)
        try:
            os.replace(staged, folder)  # whole or not at all: a killed build leaves no half
        except OSError:  # another run put it there first: the same commit, the same build
            shutil.rmtree(staged, ignore_errors=True)
    found = _load(folder, commit)
    return Reference(**{**found.__dict__, "cached": False})


def _make(
    root: Path, commit: str, work: Path, out: Path, stamp: Callable[[Path], None] | None
) -> dict[str, Any]:
    """Build into ``out`` and return what :func:`_load` reads back."""
    tree = work / "tree"
    _export(git.archive(root, commit), tree)
    if stamp is not None:
        stamp(tree)
    out.mkdir()
    try:
        pypa_build(tree, "--sdist", "--outdir", str(out), cwd=work)
    except UserError as exc:
        return {"broken": f"the sdist of {commit[:12]} does not build from its tree: {exc}"}
    sdist = next(out.glob("*.tar.gz"))
    try:
        pypa_build(sdist, "--wheel", "--outdir", str(out), cwd=work)
        return {"sdist": sdist.name, "wheel": next(out.glob("*.whl")).name}
    except UserError as exc:
        from_sdist = str(exc)
    state: dict[str, Any] = {"sdist": sdist.name}
    try:
        pypa_build(tree, "--wheel", "--outdir", str(work / "tree-wheel"), cwd=work)
    except UserError:
        pass
    else:
        state["broken"] = (
            f"the sdist {sdist.name} of {commit[:12]} does not build a wheel, while its tree "
            f"does: the sdist lacks a file the build needs (MANIFEST.in, the backend's sdist "
            f"includes). {from_sdist}"
        )
        return state
    try:
        state["metadata"] = json.loads(pypa_build(sdist, "--metadata", cwd=work))
    except (UserError, json.JSONDecodeError) as exc:
        state["broken"] = f"the sdist {sdist.name} yields no wheel metadata: {exc}"
        return state
    last = from_sdist.strip().splitlines()[-1:] or [""]
    state["notes"] = [
        f"no wheel of {commit[:12]} builds on this machine ({last[0][:300]}): its wheels' "
        "members (sources, package data, entry points), RECORD and compiled extensions are not "
        "compared with a reference; their metadata is (Name, Version, Requires-Python, "
        "Requires-Dist, Provides-Extra), and their sources are with the sdist's files."
    ]
    return state


def _export(data: bytes, into: Path) -> None:
    """Unpack ``git archive``'s tar into ``into`` (regular files and folders only)."""
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            target = into / member.name
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                handle = archive.extractfile(member)
                assert handle is not None  # a regular file always has its bytes
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(handle.read())
                target.chmod(0o755 if member.mode & 0o111 else 0o644)
            elif member.issym():  # a link inside the tree, as the checkout makes it
                target.parent.mkdir(parents=True, exist_ok=True)
                target.symlink_to(member.linkname)


def _load(folder: Path, commit: str) -> Reference:
    state = json.loads((folder / STATE).read_text(encoding="utf-8"))
    return Reference(
        commit=commit,
        sdist=folder / state["sdist"] if state.get("sdist") else None,
        wheel=folder / state["wheel"] if state.get("wheel") else None,
        metadata=state.get("metadata", {}),
        broken=state.get("broken", ""),
        notes=tuple(state.get("notes", ())),
        seconds=float(state.get("seconds", 0.0)),
        cached=True,
    )
