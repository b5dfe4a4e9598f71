"""The rules of the release machine's other actors (:mod:`helpers.release_machine`): a colleague
with push rights to origin and upload rights to the index, the environment (``dist/``, the
index's hash algorithm) and the user editing files. None of them runs mlrelease; their acts are
the adversary's, and the invariants judge only what mlrelease does after them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import rule

from helpers import release_oracle as oracle
from helpers.dist import build_dist, make_dist

RCS = ("v1.4.0-rc1", "v1.4.0-rc2")
RARE = st.integers(0, 2)
"""The colleague's disruptive acts happen in one draw of three (0), so releases get far."""


def _sh(root: Path, *args: str) -> Any:
    from helpers.release_machine import sh

    return sh(root, *args)


def _fresh(self: Any) -> Path:
    """The colleague's clone, up to date with origin (its release branch checked out)."""
    _sh(self.colleague, "fetch", "-q", "--force", "origin", "+refs/tags/*:refs/tags/*")
    _sh(self.colleague, "fetch", "-q", "origin")
    if _sh(self.colleague, "rev-parse", "-q", "--verify", "origin/release/1.4").returncode == 0:
        _sh(self.colleague, "switch", "-q", "-C", "release/1.4", "origin/release/1.4")
    return Path(self.colleague)


def _other_files(self: Any) -> Path:
    """Files of demo 1.4.0 built from another tree than any commit."""
    tree = Path(self.base) / "other-tree"
    if not tree.exists():
        shutil.copytree(Path(self.work) / "src", tree / "src")
        (tree / "src/demo/core.py").write_text("def answer() -> int:\n    return 7\n")
    folder = Path(self.base) / "other-dist"
    make_dist(tree, folder, oracle.VERSION)
    return folder


@rule(annotated=st.booleans(), rare=RARE)
def colleague_push_rc(self: Any, annotated: bool, rare: int = 0) -> None:
    """An RC tag made by hand on origin's release branch (no mlrelease marker)."""
    if rare:  # the colleague acts in one draw of three
        return
    clone = _fresh(self)
    if _sh(clone, "rev-parse", "-q", "--verify", "refs/heads/release/1.4").returncode != 0:
        return
    tags = oracle.refs(Path(self.origin), "refs/tags")
    name = next((t for t in RCS if f"refs/tags/{t}" not in tags), None)
    if name:
        _sh(clone, "tag", *(["-a", "-m", "by hand"] if annotated else []), name)
        _sh(clone, "push", "-q", "origin", name)


@rule(rare=RARE)
def colleague_force_push(self: Any, rare: int = 0) -> None:
    """The release branch rewritten on origin: its last commit replaced by another."""
    if rare:  # the colleague acts in one draw of three
        return
    clone = _fresh(self)
    if _sh(clone, "rev-parse", "-q", "--verify", "refs/heads/release/1.4~1").returncode != 0:
        return
    _sh(clone, "reset", "-q", "--hard", "refs/heads/release/1.4~1")
    path = clone / "src/demo/extra.py"
    path.write_text("X = 1\n")
    _sh(clone, "add", "src/demo/extra.py")
    _sh(clone, "commit", "-q", "-m", "feat: a rewritten branch")
    _sh(clone, "push", "-q", "--force", "origin", "refs/heads/release/1.4")


@rule(where=st.sampled_from(["rc1", "rc2", "tip"]), move=st.booleans(), rare=RARE)
def colleague_final_tag(self: Any, where: str, move: bool, rare: int = 0) -> None:
    """A final tag made by hand (GitHub's "create release"): lightweight, at an RC or the tip;
    ``move`` force-pushes it over one that exists."""
    if rare:  # the colleague acts in one draw of three
        return
    clone = _fresh(self)
    target = {"rc1": "v1.4.0-rc1", "rc2": "v1.4.0-rc2", "tip": "origin/release/1.4"}[where]
    if _sh(clone, "rev-parse", "-q", "--verify", f"{target}^{{commit}}").returncode != 0:
        return
    exists = f"refs/tags/{oracle.FINAL}" in oracle.refs(Path(self.origin), "refs/tags")
    if exists and not move:
        return
    _sh(clone, "tag", "-f", oracle.FINAL, f"{target}^{{commit}}")
    _sh(clone, "push", "-q", "--force", "origin", f"refs/tags/{oracle.FINAL}")


@rule(rare=RARE)
def colleague_replace_binding(self: Any, rare: int = 0) -> None:
    """Every binding on origin force-updated to a manifest naming other files."""
    if rare:  # the colleague acts in one draw of three
        return
    clone = _fresh(self)
    theirs = oracle.index_files(_other_files(self))
    for ref, blob in oracle.refs(Path(self.origin), oracle.BOUND.rstrip("/")).items():
        _sh(clone, "fetch", "-q", "origin", ref)
        data = json.loads(oracle.git(clone, "cat-file", "blob", blob) or "{}")
        for entry in data.get("files", []):
            entry["sha256"] = theirs.get(entry["name"], entry["sha256"])
        forged = clone / ".git/forged.json"
        forged.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        made = oracle.git(clone, "hash-object", "-w", str(forged))
        _sh(clone, "push", "-q", "--force", "origin", f"{made}:{ref}")


FOREIGN = {
    "build-tag": "demo-1.4.0-1-py3-none-any.whl",
    "local": "demo-1.4.0+evil-py3-none-any.whl",
}
"""A foreign wheel of 1.4.0 under another spelling of the version (#44)."""


@rule(kind=st.sampled_from(["build-tag", "local", "same-name"]), rare=RARE)
def colleague_upload(self: Any, kind: str, rare: int = 0) -> None:
    """A foreign file of 1.4.0 on the index: a build-tagged wheel, one with a local label, or
    other bytes under a bound name (when the index lacks that name)."""
    if rare:  # the colleague acts in one draw of three
        return
    wheel = _other_files(self) / "demo-1.4.0-py3-none-any.whl"
    index = Path(self.harness.index)
    name = FOREIGN.get(kind, wheel.name)
    if not (index / name).exists():
        shutil.copy(wheel, index / name)


@rule()
def colleague_fix_on_main(self: Any) -> None:
    """A fix on main marked for 1.4 (once)."""
    from helpers.release_machine import FIX_LINE

    clone = _fresh(self)
    _sh(clone, "switch", "-q", "main")
    _sh(clone, "merge", "-q", "--ff-only", "origin/main")
    notes = clone / "NOTES.md"
    if FIX_LINE in notes.read_text():
        return
    notes.write_text(notes.read_text() + FIX_LINE + "\n")
    _sh(clone, "commit", "-q", "-am", "fix: handle an empty answer\n\nRelease-Target: 1.4\n")
    _sh(clone, "push", "-q", "origin", "main")


@rule(by_subject=st.booleans())
def colleague_hand_pick(self: Any, by_subject: bool) -> None:
    """The fix back-ported by hand on the release branch (elsewhere in the file: another patch
    id), with the same subject or with an abbreviated ``-x`` line; only when it is not there."""
    from helpers.release_machine import FIX_LINE

    clone = _fresh(self)
    fix = oracle.git(clone, "log", "-1", "--format=%H", "--grep=Release-Target: 1.4", "origin/main")
    notes = clone / "NOTES.md"
    if not fix or not notes.exists() or FIX_LINE in notes.read_text():
        return
    if _sh(clone, "symbolic-ref", "-q", "HEAD").stdout.strip() != "refs/heads/release/1.4":
        return
    notes.write_text(notes.read_text().replace("# Notes\n", f"# Notes\n\n{FIX_LINE}\n", 1))
    message = (
        "fix: handle an empty answer"
        if by_subject
        else f"fix: empty answers on 1.4\n\n(cherry picked from commit {fix[:9]})\n"
    )
    _sh(clone, "commit", "-q", "-am", message)
    _sh(clone, "push", "-q", "origin", "refs/heads/release/1.4")


@rule()
def colleague_revert_pick(self: Any) -> None:
    """The release branch's last commit reverted (a pick, if that is what it was)."""
    clone = _fresh(self)
    if _sh(clone, "symbolic-ref", "-q", "HEAD").stdout.strip() != "refs/heads/release/1.4":
        return
    if _sh(clone, "revert", "--no-edit", "HEAD").returncode != 0:
        _sh(clone, "revert", "--abort")
        return
    _sh(clone, "push", "-q", "origin", "refs/heads/release/1.4")


@rule(how=st.sampled_from(["later-commit", "other-files", "another-commit"]))
def rebuild_dist(self: Any, how: str) -> None:
    """dist/ rebuilt from another tree, swapped for other files, or rebuilt for real from
    another commit of the release branch (its parent: the previous RC's build; sums
    consistent)."""
    dist = Path(self.work) / "dist"
    if how == "other-files":
        shutil.rmtree(dist, ignore_errors=True)
        shutil.copytree(_other_files(self), dist)
    elif how == "later-commit":
        make_dist(_other_files(self).parent / "other-tree", dist, oracle.VERSION)
    else:
        tree = Path(self.base) / "parent-tree"
        shutil.rmtree(tree, ignore_errors=True)
        tree.mkdir()
        command = ["git", "archive", "HEAD~1"]
        archive = subprocess.run(command, cwd=self.work, capture_output=True, check=False)
        if archive.returncode != 0:
            return
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        shutil.rmtree(dist, ignore_errors=True)
        build_dist(tree, dist)


CHANGES = {
    "package-data": ("src/demo/ops.json", '{"Add": 14}\n'),
    "metadata": ("pyproject.toml", None),
    "module": ("src/demo/core.py", None),
}


@rule(what=st.sampled_from(sorted(CHANGES)), rare=RARE)
def colleague_change(self: Any, what: str, rare: int = 0) -> None:
    """A fix on the release branch that changes package data, the metadata (a dependency pin)
    or a module (deleted): what the next RC's build carries, and a stale dist/ does not."""
    clone = _fresh(self)
    if _sh(clone, "symbolic-ref", "-q", "HEAD").stdout.strip() != "refs/heads/release/1.4":
        return
    path, text = CHANGES[what]
    target = clone / path
    if what == "metadata":
        old = target.read_text()
        line = 'requires-python = ">=3.9"\n'
        if "dependencies" in old:
            return
        target.write_text(old.replace(line, line + 'dependencies = ["packaging<27"]\n', 1))
    elif what == "module":
        if not target.exists():
            return
        target.unlink()
    else:
        target.write_text(text or "")
    _sh(clone, "add", "-A", ".")
    if _sh(clone, "commit", "-q", "-m", f"fix: {what} for 1.4").returncode == 0:
        _sh(clone, "push", "-q", "origin", "release/1.4")


@rule(view=st.sampled_from(["sha256", "md5", "off"]))
def index_hash(self: Any, view: str) -> None:
    """The index the maintainer talks to gives sha256, md5 or no hash from now on."""
    self.view = view


@rule(answer=st.sampled_from([None, "html-error", "text", "json-no-meta"]))
def index_error_pages(self: Any, answer: str | None) -> None:
    """The index answers its simple pages with 200 and something that is no simple index (an
    HTML error page, a text body, JSON without PEP 691's meta) from now on, or recovers."""
    self.error_pages = answer


@rule()
def user_edit(self: Any) -> None:
    """The user adds a line to CHANGELOG.md (in the middle of whatever is going on)."""
    mark = f"- a note of the user's ({len(self.marks)})"
    path = Path(self.work) / "CHANGELOG.md"
    if path.is_file():
        path.write_text(path.read_text() + mark + "\n")
        self.marks[mark] = "CHANGELOG.md"


@rule()
def user_resolve(self: Any) -> None:
    """The user takes their notes elsewhere and restores CHANGELOG.md from HEAD."""
    if self.marks:
        _sh(Path(self.work), "checkout", "--", "CHANGELOG.md")
        self.marks.clear()
