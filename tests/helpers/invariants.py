"""What origin binds and what an index holds, read from the outside (a clone's view of origin,
the index's own folder), never through mlrelease: the checks of the invariant tests and of the
stateful release machine."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from helpers.dist import make_dist
from helpers.release import Repo

RC = "v1.4.0-rc1"


def hashes(folder: Path) -> dict[str, str]:
    """File name -> SHA-256 of the artifacts in ``folder`` (an index's storage, a dist/)."""
    if not folder.is_dir():
        return {}
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.iterdir()
        if p.is_file() and p.name != "SHA256SUMS" and not p.name.startswith(".")
    }


def binding_refs(clone: Repo, rc: str = RC) -> dict[str, str]:
    """ref -> object of origin's refs under refs/mlrelease/ that name ``rc``."""
    out = clone.git("ls-remote", "origin", "refs/mlrelease/*")
    found = {}
    for line in out.splitlines():
        sha, ref = line.split("\t")
        if rc in ref.split("/"):
            found[ref] = sha
    return found


def bound_files(clone: Repo, rc: str = RC) -> dict[str, str]:
    """File name -> SHA-256 of the manifest origin binds to ``rc`` (as a fresh clone reads it)."""
    refs = binding_refs(clone, rc)
    assert len(refs) == 1, refs
    ((ref, sha),) = refs.items()
    clone.git("fetch", "-q", "origin", ref)
    data = json.loads(clone.git("cat-file", "blob", sha))
    return {f["name"]: f["sha256"] for f in data["files"]}


def other_build(repo: Repo, folder: Path, version: str = "1.4.0", name: str = "demo") -> Path:
    """Files of ``name`` ``version`` built from another tree than any commit (``answer`` returns
    7 there): what a colleague or a later commit builds. Returns the folder (with SHA256SUMS)."""
    tree = folder.parent / f"{folder.name}-tree"
    shutil.copytree(repo.path / "src", tree / "src")
    if (tree / "src" / "demo").is_dir() and name != "demo":
        (tree / "src" / "demo").rename(tree / "src" / name)
    (tree / "src" / name / "core.py").write_text("def answer() -> int:\n    return 7\n")
    make_dist(tree, folder, version, name=name)
    return folder
