"""The release invariants (docs/release/invariants.md) checked from the outside, for the stateful
machine: what the maintainer's mlrelease did during one step, judged on the world as git and the
index's own folder show it before and after, never through mlrelease's code.

:class:`Snapshot` is the world at one moment; :func:`violations` compares the one taken before
a maintainer's step with the one after and names every invariant the step broke (a colleague's
own acts are the adversary's, not violations: the invariants are about what mlrelease does).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

VERSION = "1.4.0"
FINAL = "v1.4.0"
BOUND = "refs/mlrelease/bound/"


def git(root: Path, *args: str, data: bool = False) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return proc.stdout.decode(errors="replace") if data else proc.stdout.decode().strip()


def git_bytes(root: Path, *args: str) -> bytes | None:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def refs(root: Path, pattern: str = "") -> dict[str, str]:
    """ref -> object of a repository (a bare origin or a clone)."""
    args = ["for-each-ref", "--format=%(refname) %(objectname)", *([pattern] if pattern else [])]
    return dict(line.split(" ", 1) for line in git(root, *args).splitlines() if line)


def index_files(folder: Path) -> dict[str, str]:
    """name -> SHA-256 of the files of the project at VERSION the index serves (its folder)."""
    found = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        name = path.name.lower().replace("_", "-")
        if name.startswith(f"demo-{VERSION}"):
            found[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@dataclass
class Snapshot:
    """The world at one moment: origin's refs, the maintainer's branches and bindings, the
    index, the release branch's fix lines, the work tree's user marks, the report."""

    origin: dict[str, str]
    local: dict[str, str]
    index: dict[str, str]
    report: dict[str, object] | None
    marks: dict[str, bool] = field(default_factory=dict)


def take(work: Path, origin: Path, index: Path, marks: dict[str, str]) -> Snapshot:
    report_path = work / "build/release-verify/report.json"
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError):
        report = None
    present = {}
    for mark, name in marks.items():
        path = work / name
        present[mark] = path.is_file() and mark in path.read_text(errors="replace")
    return Snapshot(refs(origin), refs(work), index_files(index), report, present)


def report_valid(work: Path, report: dict[str, object] | None, commit: str) -> bool:
    """Whether ``report`` is the complete, passing verdict of ``commit``'s tree and configuration
    (the oracle's own reading of (b))."""
    if not report or report.get("commit") != commit or report.get("verdict") != "pass":
        return False
    tree = report.get("worktree")
    if not isinstance(tree, dict) or tree.get("dirty") or tree.get("hidden"):
        return False
    config = git_bytes(work, "cat-file", "--filters", f"{commit}:pyproject.toml") or b""
    gates = tomllib.loads(config.decode()).get("tool", {}).get("mlrelease", {}).get("gates", [])
    ran = {r["name"] for r in report.get("results", [])}  # type: ignore[union-attr]
    return (
        tree.get("tree") == git(work, "rev-parse", f"{commit}^{{tree}}")
        and tree.get("config_sha256") == hashlib.sha256(config).hexdigest()
        and set(gates) <= ran
        and report.get("shard") is None
    )


def manifest_files(root: Path, blob: str) -> dict[str, str]:
    data = json.loads(git(root, "cat-file", "blob", blob) or "{}")
    return {f["name"]: f["sha256"] for f in data.get("files", [])}


@dataclass
class Genuine:
    """What the maintainer bound (its own clone's refs) and what a build of each RC's commit
    is (builds are deterministic): the oracle's truth for (c) and (d)."""

    bindings: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    """RC -> (manifest SHA-256, name -> SHA-256) of the maintainer's binding."""
    builds: dict[str, dict[str, str]] = field(default_factory=dict)
    """commit -> name -> SHA-256 of the demo build of that commit's tree."""


def violations(
    work: Path, origin: Path, before: Snapshot, after: Snapshot, genuine: Genuine,
    build_of: object,
) -> list[str]:  # fmt: skip
    """Every invariant the maintainer's step between ``before`` and ``after`` broke."""
    found: list[str] = []
    found += _index(before, after, genuine)
    found += _final_tag(work, origin, before, after, genuine)
    found += _bindings(origin, before, after, genuine, build_of)
    found += _branches(work, before, after)
    found += [
        f"(f) the user's edit {m!r} was reverted"
        for m, ok in after.marks.items()
        if not ok and before.marks.get(m)
    ]
    return found


def standing(work: Path, origin: Path, fix_line: str) -> list[str]:
    """Invariants that hold at every moment: (e) a fix is on a release branch at most once,
    (g) a ledger names its own version."""
    found = []
    for root, ref in ((origin, "refs/heads/release/1.4"), (work, "refs/heads/release/1.4")):
        notes = git(root, "show", f"{ref}:NOTES.md", data=True)
        if notes.count(fix_line) > 1:
            found.append(f"(e) the fix is on {ref} of {root.name} {notes.count(fix_line)} times")
    for ledger in (work / "build/release").glob("*/ledger.json"):
        try:
            owner = json.loads(ledger.read_text()).get("version")
        except (OSError, ValueError):
            continue
        if owner not in (None, ledger.parent.name):
            found.append(f"(g) {ledger} is the ledger of {owner}")
    return found


def _index(before: Snapshot, after: Snapshot, genuine: Genuine) -> list[str]:
    """(a): files mlrelease uploaded are bound files, byte for byte; nothing was uploaded while
    the index held a foreign file or other bytes under a bound name."""
    new = {n: s for n, s in after.index.items() if before.index.get(n) != s}
    if not new:
        return []
    bound = [files for _, files in genuine.bindings.values()]
    out = []
    for name, sha in new.items():
        if not any(files.get(name) == sha for files in bound):
            out.append(f"(a) {name} ({sha[:12]}) was uploaded but is no bound file")
    dirty = [n for n, s in before.index.items() if not any(f.get(n) == s for f in bound)]
    if dirty:
        out.append(f"(a) uploaded while the index held {dirty} (foreign or other bytes)")
    return out


def _final_tag(work: Path, origin: Path, before: Snapshot, after: Snapshot,
               genuine: Genuine) -> list[str]:  # fmt: skip
    """(b), (d): a final tag mlrelease pushed is on a bound RC's commit, with a valid report of
    it read before, naming the genuine manifest, while the index held exactly its files."""
    ref = f"refs/tags/{FINAL}"
    obj = after.origin.get(ref)
    if obj is None or before.origin.get(ref) == obj:
        return []
    commit = git(origin, "rev-parse", f"{obj}^{{commit}}")
    message = git(origin, "cat-file", "-p", obj, data=True)
    rcs = [
        rc for rc in genuine.bindings
        if git(origin, "rev-parse", f"refs/tags/{rc}^{{commit}}") == commit
    ]  # fmt: skip
    out = []
    if not rcs:
        return [f"(b) {FINAL} was pushed on {commit[:12]}, no bound RC's commit"]
    digest, files = genuine.bindings[rcs[0]]
    if f"Mlrelease-Manifest-SHA256: {digest}" not in message:
        out.append(f"(d) {FINAL} does not name the genuine manifest of {rcs[0]}")
    # The report read is the one on disk before the step, or (the checklist verifies, then
    # promotes, in one step) the one the step left: nothing writes a report after promote.
    if not any(report_valid(work, r, commit) for r in (before.report, after.report)):
        out.append(f"(b) {FINAL} was pushed without a valid passing report of {commit[:12]}")
    if after.index and after.index != files:
        out.append(f"(a) {FINAL} was pushed while the index held {sorted(after.index)}")
    return out


def _bindings(origin: Path, before: Snapshot, after: Snapshot, genuine: Genuine,
              build_of: object) -> list[str]:  # fmt: skip
    """(c), (d): a binding mlrelease pushed lists a build of its RC's commit; its ref is named
    after its content."""
    out = []
    for ref, blob in after.origin.items():
        if not ref.startswith(BOUND) or before.origin.get(ref) == blob:
            continue
        rc, digest = ref[len(BOUND) :].rsplit("/", 1)
        text = git_bytes(origin, "cat-file", "blob", blob) or b""
        if hashlib.sha256(text).hexdigest() != digest:
            out.append(f"(d) {ref} does not hold the manifest it is named after")
        commit = git(origin, "rev-parse", f"refs/tags/{rc}^{{commit}}")
        built = build_of(commit)  # type: ignore[operator]
        if manifest_files(origin, blob) != built:
            out.append(f"(c) {ref} binds files that are not the build of {rc}'s commit")
    return out


def _branches(work: Path, before: Snapshot, after: Snapshot) -> list[str]:
    """(h): a local branch mlrelease committed on contained origin's tip first."""
    out = []
    for ref, tip in after.local.items():
        if not ref.startswith("refs/heads/") or before.local.get(ref) in (None, tip):
            continue
        theirs = before.origin.get(ref)
        contained = subprocess.run(
            ["git", "merge-base", "--is-ancestor", theirs or tip, tip], cwd=work, check=False
        )
        if theirs and contained.returncode != 0:
            out.append(f"(h) {ref} got commits while it lacked origin's {theirs[:12]}")
    return out
