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
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from case_study_change import blob, fix_merged, index, land_change
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


PROMISED = (
    ("core.repositoryformatversion", "1"),
    ("extensions.partialClone", "origin"),
    ("remote.origin.promisor", "true"),
)
"""A clone's configuration under which the files a snapshot lacks are promised."""


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
    id: str = ""
    """The step's name, by which a review of the adoption corpus finds it (``pick:1a2b3c4d5``,
    ``rc:v1.2.0-rc1``)."""


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
    lines = [f"update refs/heads/{h.main} {h.fork}"]
    lines += [f"update refs/heads/{b} {sha}" for b, sha in h.older_branches.items()]
    lines += [f"update refs/tags/{t} {obj}" for t, obj in h.older_tags.items()]
    return "\n".join(lines) + "\n"


def setup(mirror: Path, tmp: Path, h: History, name: str = "TensorRT") -> tuple[Path, Path]:
    """A bare origin at the fork point and a clone of its main (in ``tmp/name``), both reading
    the mirror's objects (alternates: nothing is copied, no ref of the mirror is visible)."""
    origin, work = tmp / "origin.git", tmp / name
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
    git(tmp, "clone", "-q", "--no-checkout", "-b", h.main, str(origin), str(work))
    absent = missing(mirror, [h.fork, *(c.sha for c in h.commits)])
    if absent:  # a snapshot without its largest files: never checked out, never read
        git(work, "sparse-checkout", "set", "--no-cone", "/*", *(f"!/{p}" for p in absent))
        # Git writes a tree naming a blob it lacks only for a promised object: origin is
        # made the promisor (it has no such object either; nothing asks it for one).
        for name, value in PROMISED:
            git(work, "config", name, value)
    git(work, "checkout", "-q", h.main)
    return origin, work


def missing(mirror: Path, commits: list[str]) -> list[str]:
    """Paths of the files of ``commits`` whose contents the mirror lacks (a snapshot keeps no
    file of 4 MiB or more)."""
    paths: dict[str, set[str]] = {}
    for commit in commits:
        for line in git(mirror, "ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            kind, sha = meta.split()[1:]
            if kind == "blob":
                paths.setdefault(sha, set()).add(path)
    proc = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=mirror,
        input="".join(f"{sha}\n" for sha in paths),
        capture_output=True,
        text=True,
        check=True,
    )
    gone = [line.split()[0] for line in proc.stdout.splitlines() if line.endswith(" missing")]
    return sorted({path for sha in gone for path in paths[sha]})


class Refused(SystemExit):
    """A command the replay cannot go on without refused; ``said`` is what it said."""

    def __init__(self, command: str, said: Said) -> None:
        super().__init__(f"{command} failed: {said.message}")
        self.said = said


def adopt(work: Path, adapted: str = ADAPTED, main: str = "main") -> str:
    """``mlrelease init --execute`` at the fork point, committed, then the tests gate left out
    (the project's suite is not what the replay checks, and cannot run here) as ``adapted``,
    and pushed; returns the text appended to ``pyproject.toml``."""
    path = work / "pyproject.toml"
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    said = run(work, "init", "--execute")
    if said.code != 0:
        raise Refused("mlrelease init", said)
    git(work, "add", "pyproject.toml")
    git(work, "commit", "-q", "-am", "chore: adopt mlrelease", env=IDENTITY)
    text = path.read_text(encoding="utf-8")
    gates = re.compile(r'^(gates = \[.*?)(?:, "tests"|"tests", |"tests")\]$', re.M)
    if gates.search(text):
        path.write_text(gates.sub(lambda m: m[1] + "]", text, count=1), encoding="utf-8")
        git(work, "commit", "-q", "-am", adapted, env=IDENTITY)
    git(work, "push", "-q", "origin", f"HEAD:refs/heads/{main}")
    return path.read_text(encoding="utf-8")[len(before) :]


def follow_main(origin: Path, work: Path, sha: str, main: str = "main") -> None:
    """Origin's main becomes the project's main ``sha`` (the history's hand, not a command)."""
    git(origin, "update-ref", f"refs/heads/{main}", sha)
    git(work, "fetch", "-q", "origin", f"+refs/heads/{main}:refs/remotes/origin/{main}")


def land(
    work: Path,
    mirror: Path,
    sha: str,
    adoption: str,
    fixes: list[tuple[str, str, str]],
    keep_from: str = "",
    whole: list[str] | None = None,
    held: frozenset[str] = frozenset(),
) -> str | None:
    """The project's branch commit ``sha`` made on the branch (its message, its author and
    date), the adoption kept in ``pyproject.toml`` and the replay's ``fixes`` (file, text,
    replacement) kept in their files, and pushed; None when the branch already has that content
    (a release-only edit ``release cut`` made). Without ``keep_from``, the commit lands as its
    whole tree. With ``keep_from`` (the project's commit the branch stands on), it lands as its
    change: the project's diff from ``keep_from`` to ``sha`` merged file by file into the
    branch (:func:`case_study_change.land_change`), so that lines it leaves alone keep what the
    commands made of them; the files whose change did not merge, landed whole instead, are
    added to ``whole``. The files ``held`` back (with ``keep_from`` only) keep the branch's: the
    change lands in two commits, the rest of it first."""
    env = {**os.environ, "GIT_INDEX_FILE": str(work / ".git" / "replay-index")}
    fell: list[str] = []
    if keep_from:
        fell = land_change(work, keep_from, sha, env, held)
        (whole if whole is not None else []).extend(fell)
    else:
        subprocess.run(["git", "read-tree", sha], cwd=work, env=env, check=True)
    for name in sorted({"pyproject.toml", *(f for f, _, _ in fixes)}):
        if keep_from and name not in fell:
            fix_merged(work, name, fixes, env)
            continue
        listed = git(mirror, "ls-tree", sha, name).split()
        if not listed and name != "pyproject.toml":
            continue  # the project's commit has no such file
        theirs = git(mirror, "show", f"{sha}:{name}") if listed else ""
        for file, text, replacement in fixes:
            if file == name:
                theirs = theirs.replace(text, replacement)
        if name == "pyproject.toml":  # the adoption, which init wrote whole where none was
            theirs = theirs + "\n" + adoption if listed else adoption
            listed = listed or ["100644"]
        data = (theirs if name == "pyproject.toml" else theirs + "\n").encode()
        index(work, env, name, (listed[0], blob(work, data)))
    return _commit_index(work, mirror, sha, env, held)


def _commit_index(
    work: Path, mirror: Path, sha: str, env: dict[str, str], held: frozenset[str] = frozenset()
) -> str | None:
    """The index ``env`` names committed on HEAD with ``sha``'s message (saying which files
    were ``held`` back), author and dates, and pushed; None when its tree is HEAD's."""
    tree = subprocess.run(
        ["git", "write-tree", "--missing-ok"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
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
    if held:
        message += f"\n\n(replay: this change but {', '.join(sorted(held))}, which land after)"
    made = git(work, "commit-tree", tree, "-p", "HEAD", "-m", message, env=who)
    git(work, "reset", "-q", "--hard", made)
    git(work, "push", "-q", "origin", "HEAD")
    return made


def as_dict(steps: list[Step]) -> list[dict[str, Any]]:
    return [asdict(s) for s in steps]
