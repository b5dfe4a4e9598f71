"""Replay one minor release of Torch-TensorRT with the commands its maintainers would run
(``case_study_torch_tensorrt.py``'s part 2).

From the release's fork point, in a temporary place, a bare ``origin`` holds what the
project had then (main at the fork point, the older release branches and tags as they were
that day) and a clone adopts mlrelease there (``mlrelease init --execute``). Then, as
subprocesses, exactly as a maintainer would type them:

- ``mlrelease release cut --version X.Y --execute --push --json``: the branch, main's next
  marker, the release-only edits init proposed;
- the project's own commits reach the branch, one by one, as they did (their trees, with the
  adoption kept in ``pyproject.toml``), and origin's ``main`` follows the project's real main
  to each commit's date: the fixes the picks are compared against;
- before each RC: ``mlrelease release cherry-picks --json`` (which commits carry a fix of
  main, by what evidence), then ``mlrelease release rc --execute --push --json`` (with
  ``--rebuild`` where the project tagged the same commit again); a refusal is recorded and the
  project's tag is made by hand, so that the replay goes on as history did;
- at the end: the last RC's stand-in files bound (``release bind``), ``mlrelease verify`` and
  ``mlrelease release promote --rc ... --published-elsewhere --json``: where the final tag goes.

Each step is judged from the commands' JSON output (and origin's refs they left) against
what the project did, read from the mirror by :mod:`case_study_history`.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from case_study_history import History
from case_study_lib import git, mlrelease
from case_study_torch_tensorrt_page import ADAPTED

ROOT = Path(__file__).resolve().parents[1]
STAND_IN_TAGS = (
    "cp311-cp311-manylinux_2_28_x86_64",
    "cp311-cp311-manylinux_2_28_aarch64",
    "cp311-cp311-win_amd64",
)
"""One stand-in wheel per platform init found Torch-TensorRT's workflows building."""
IDENTITY = {
    "GIT_AUTHOR_NAME": "case study",
    "GIT_AUTHOR_EMAIL": "case-study@example.com",
    "GIT_COMMITTER_NAME": "case study",
    "GIT_COMMITTER_EMAIL": "case-study@example.com",
    "GIT_AUTHOR_DATE": "2026-08-23T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-08-23T12:00:00+00:00",
}
"""A fixed identity and date for what the study itself commits and tags: the same ids on every
run, so the page is reproducible."""


@dataclass
class Step:
    """One step of a release: what the project did, the command run, what it did, whether the
    two agree (None: nothing to compare) and, where they differ, which was right and why."""

    kind: str
    history: str
    command: str
    did: str
    match: bool | None
    why: str = ""


@dataclass
class Said:
    """A command's exit code, its JSON (when it printed one) and its message (stderr)."""

    code: int
    data: dict[str, Any] | None
    message: str


def run(work: Path, *args: str) -> Said:
    """``mlrelease ARGS`` in ``work``, as a subprocess."""
    proc = mlrelease(work, *args, env=IDENTITY)
    if "Traceback (most recent call last)" in proc.stdout + proc.stderr:
        raise SystemExit(f"mlrelease {' '.join(args)} crashed:\n{proc.stderr}")
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    except json.JSONDecodeError:
        data = None
    message = " ".join(proc.stderr.split()) or ("" if data else " ".join(proc.stdout.split()))
    return Said(proc.returncode, data, message)


def rev(root: Path, ref: str) -> str:
    """The commit ``ref`` names in ``root``, or "" when there is none."""
    proc = subprocess.run(
        ["git", "rev-parse", "-q", "--verify", f"{ref}^{{commit}}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip()


def stand_in_build(dist: Path, version: str) -> None:
    """What Torch-TensorRT's build workflows would leave in ``dist/`` for an RC, made here
    because its real build (CUDA, TensorRT, Bazel) cannot run on this machine: a wheel per
    platform and an sdist, named and stamped with the tag's version, holding one module. Only
    the release flow's bookkeeping (bind, the wheels audit, promote) reads them."""
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.dist import make_dist  # type: ignore[import-not-found]  # tests/ is on sys.path

    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp) / "src" / "torch_tensorrt"
        module.mkdir(parents=True)
        (module / "__init__.py").write_text('"""A stand-in."""\n', encoding="utf-8")
        built = {}
        for tag in STAND_IN_TAGS:
            made = make_dist(
                Path(tmp),
                Path(tmp) / "out",
                version,
                "torch_tensorrt",
                readme="A stand-in for the built wheel.",
                tag=tag,
            )
            built.update({path.name: path.read_bytes() for path in made})
    dist.mkdir(exist_ok=True)
    for name, data in built.items():
        (dist / name).write_bytes(data)
    sums = "".join(f"{hashlib.sha256(built[n]).hexdigest()}  {n}\n" for n in sorted(built))
    (dist / "SHA256SUMS").write_text(sums, encoding="utf-8")


def _ref_updates(mirror: Path, h: History) -> str:
    """``git update-ref --stdin`` input: origin as the project had it at the fork point."""
    lines = [f"update refs/heads/main {h.fork}"]
    lines += [f"update refs/heads/{b} {sha}" for b, sha in h.older_branches.items()]
    lines += [f"update refs/tags/{t} {obj}" for t, obj in h.older_tags.items()]
    return "\n".join(lines) + "\n"


def setup(mirror: Path, tmp: Path, h: History) -> tuple[Path, Path]:
    """A bare origin at the fork point and a clone of its main, both reading the mirror's
    objects (alternates: nothing is copied, no ref of the mirror is visible)."""
    origin, work = tmp / "origin.git", tmp / "TensorRT"
    objects = git(mirror, "rev-parse", "--path-format=absolute", "--git-path", "objects")
    git(tmp, "init", "-q", "--bare", str(origin))
    (origin / "objects" / "info" / "alternates").write_text(objects + "\n", encoding="utf-8")
    subprocess.run(
        ["git", "update-ref", "--stdin"],
        cwd=origin,
        input=_ref_updates(mirror, h),
        text=True,
        check=True,
    )
    git(tmp, "clone", "-q", "-b", "main", str(origin), str(work))
    return origin, work


def adopt(work: Path) -> str:
    """``mlrelease init --execute`` at the fork point, the tests gate left out (no CUDA here),
    committed and pushed; returns the text appended to ``pyproject.toml``."""
    before = (work / "pyproject.toml").read_text(encoding="utf-8")
    said = run(work, "init", "--execute")
    if said.code != 0:
        raise SystemExit(f"mlrelease init failed: {said.message}")
    git(work, "commit", "-q", "-am", "chore: adopt mlrelease", env=IDENTITY)
    path = work / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    gates = '"wheels", "tests"]'
    if gates in text:
        path.write_text(text.replace(gates, '"wheels"]'), encoding="utf-8")
        git(work, "commit", "-q", "-am", ADAPTED, env=IDENTITY)
    git(work, "push", "-q", "origin", "main")
    return path.read_text(encoding="utf-8")[len(before) :]


def follow_main(origin: Path, work: Path, sha: str) -> None:
    """Origin's main becomes the project's main ``sha`` (the history's hand, not a command)."""
    git(origin, "update-ref", "refs/heads/main", sha)
    git(work, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")


def land(
    work: Path, mirror: Path, sha: str, adoption: str, fixes: list[tuple[str, str, str]]
) -> str | None:
    """The project's branch commit ``sha`` made on the branch as it was (its tree and message,
    its author and date), the adoption kept in ``pyproject.toml`` and the replay's ``fixes``
    (file, text, replacement) kept in their files, and pushed; None when the branch already has
    that content (a release-only edit ``release cut`` made)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(work / ".git" / "replay-index")}
    subprocess.run(["git", "read-tree", sha], cwd=work, env=env, check=True)
    for name in sorted({"pyproject.toml", *(f for f, _, _ in fixes)}):
        listed = git(mirror, "ls-tree", sha, name).split()
        if not listed:
            continue  # the project's commit has no such file
        theirs = git(mirror, "show", f"{sha}:{name}")
        for file, text, replacement in fixes:
            if file == name:
                theirs = theirs.replace(text, replacement)
        if name == "pyproject.toml":
            theirs += "\n" + adoption
        blob = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=work,
            input=theirs if name == "pyproject.toml" else theirs + "\n",
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        subprocess.run(
            ["git", "update-index", "--cacheinfo", f"{listed[0]},{blob},{name}"],
            cwd=work,
            env=env,
            check=True,
        )
    tree = subprocess.run(
        ["git", "write-tree"], cwd=work, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    if tree == git(work, "rev-parse", "HEAD^{tree}"):
        return None
    fmt = "%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
    an, ae, ad, cn, ce, cd, message = git(mirror, "log", "-1", f"--format={fmt}", sha).split(
        "\0", 6
    )
    who = {
        "GIT_AUTHOR_NAME": an,
        "GIT_AUTHOR_EMAIL": ae,
        "GIT_AUTHOR_DATE": ad,
        "GIT_COMMITTER_NAME": cn,
        "GIT_COMMITTER_EMAIL": ce,
        "GIT_COMMITTER_DATE": cd,
    }
    made = git(work, "commit-tree", tree, "-p", "HEAD", "-m", message, env=who)
    git(work, "reset", "-q", "--hard", made)
    git(work, "push", "-q", "origin", "HEAD")
    return made


def as_dict(steps: list[Step]) -> list[dict[str, Any]]:
    return [asdict(s) for s in steps]
