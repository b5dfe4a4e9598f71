"""Read a repository once for ``mlrelease init``: the files it tracks, the texts detectors need,
its tags, branches and recent commit subjects (git through :mod:`mlrelease.edges.git`).

The detectors (:mod:`~mlrelease.init.detect`, :mod:`~mlrelease.init.shape`,
:mod:`~mlrelease.init.version_source`, :mod:`~mlrelease.init.carriers`,
:mod:`~mlrelease.init.release_edits`, :mod:`~mlrelease.init.publishing`,
:mod:`~mlrelease.init.propose`) read only this snapshot:
they touch neither disk nor git (``tests/unit/init/test_init_reads_once.py`` keeps it so). The
other readers of a repository are :mod:`~mlrelease.init.replay` (a past release's history,
through the same git edge) and :mod:`~mlrelease.init.service` (``pyproject.toml``, the one
file ``init`` writes)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.edges import git

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SKIP_DIRS = {
    ".git",
    ".nox",
    ".tox",
    ".venv",
    "venv",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
}
"""Folders that hold no source of the project (tool caches, build outputs)."""

TEXT_NAMES = {
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "VERSION",
    "VERSION_NUMBER",
    "VERSION.txt",
    "version.txt",
    "noxfile.py",
    "tox.ini",
    "pytest.ini",
    "conftest.py",
    "__init__.py",
    "version.py",
    "_version.py",
    "__about__.py",
    "requirements.txt",
    "CMakeLists.txt",
    "conf.py",
}
"""Base names whose text a detector may read (and the changelogs', below)."""

CHANGELOG_NAMES = (
    "CHANGELOG.md",
    "CHANGELOGS.md",
    "CHANGES.md",
    "HISTORY.md",
    "NEWS.md",
    "CHANGELOG.rst",
    "CHANGES.rst",
    "HISTORY.rst",
    "NEWS.rst",
    "docs/changelog.md",
    "docs/changelog.rst",
    "docs/source/changelog.rst",
    "docs/source/changelog.md",
)
"""Where a changelog is looked for, in order (read: whether it is still kept)."""
TEXT_NAMES |= {name.rsplit("/", 1)[-1] for name in CHANGELOG_NAMES}

MAX_TEXT = 1 << 20
"""Larger files are not read (no version file or config is that big)."""

MAX_DEPTH = 4
"""Texts are read this many folders deep at most (packages sit near the top)."""


MAIN_NAMES = ("main", "master", "trunk", "develop")
"""The names of the branch releases are cut from, in order of preference."""


@dataclass(frozen=True)
class Snapshot:
    """What ``init`` knows about a repository; detectors read only this."""

    files: list[str]
    """Paths relative to the root (posix), without tool caches and build outputs."""
    texts: dict[str, str] = field(default_factory=dict)
    """Contents of the files detectors read (see :data:`TEXT_NAMES`), by relative path."""
    tags: list[str] = field(default_factory=list)
    """Every tag, newest first (by the date of the commit it points at)."""
    head_tags: list[str] = field(default_factory=list)
    """Tags on HEAD."""
    branches: list[str] = field(default_factory=list)
    """Local branches and remote-tracking branches without the remote's name."""
    current_branch: str | None = None
    subjects: list[str] = field(default_factory=list)
    """Subjects of the last commits (at most 200), newest first."""
    is_repo: bool = False
    rc_subjects: list[str] = field(default_factory=list)
    """Subjects of commits on any branch that name a release candidate (``1.22.0rc1``, ``rc2``):
    the evidence of release candidates made as version bumps, without tags."""
    tag_texts: dict[str, dict[str, str]] = field(default_factory=dict)
    """Release-like tag (the newest :data:`TAGS_READ`) -> the texts, at that tag, of the files
    that may carry the version (:func:`version_paths`): whether tags sit on commits whose files
    say another version (``version-source = "tag"``)."""
    tracked: frozenset[str] | None = None
    """The files git tracks (None: not a repository with a commit, nothing is known): a file
    the build writes, or one git ignores, is never a version file."""
    ignored: frozenset[str] = frozenset()
    """The walked files git ignores."""
    merged: frozenset[str] = frozenset()
    """Tags and branches (short names) whose commit the main branch's history holds: a release
    tagged on main, a branch kept beside it (tensorflow-onnx's r1.16.1 at v1.16.1)."""

    @property
    def main_branch(self) -> str:
        """The branch releases are cut from: ``main``, ``master``, ``trunk`` or ``develop``,
        else the checked-out one."""
        return next(
            (b for b in MAIN_NAMES if b in self.branches),
            self.current_branch or "main",
        )

    def text(self, path: str) -> str | None:
        return self.texts.get(path)

    def has(self, path: str) -> bool:
        return path in self.texts or path in self.files

    def is_tracked(self, path: str) -> bool:
        """Whether git tracks ``path`` (every file is, outside a repository)."""
        return self.tracked is None or path in self.tracked

    def pyproject(self) -> dict[str, Any]:
        """The parsed pyproject.toml; empty when there is none or it is not valid TOML."""
        text = self.text("pyproject.toml")
        if text is None:
            return {}
        try:
            data: dict[str, Any] = tomllib.loads(text)
            return data
        except tomllib.TOMLDecodeError:
            return {}


def lookup(data: Mapping[str, Any], dotted: str) -> Any:
    """``data["a"]["b"]`` for ``"a.b"``; None when a part is missing."""
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def line_of(text: str, index: int) -> int:
    """The 1-based line of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        base = Path(folder).relative_to(root)
        found += [(base / n).as_posix() for n in sorted(names)]
    return found


BUILD_SCRIPT = re.compile(
    r"^(\.github/workflows/[^/]+\.ya?ml|([^/]+/)?[^/]*wheel[^/]*\.(sh|py|bat|ps1)|"
    r"packaging/[^/]+\.(sh|py))$"
)
"""Workflows and wheel build scripts: init reads what builds the wheels from them."""


def _wanted(rel: str) -> bool:
    if BUILD_SCRIPT.match(rel):
        return True
    return rel.rsplit("/", 1)[-1] in TEXT_NAMES and rel.count("/") <= MAX_DEPTH


def _read(root: Path, files: list[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for rel in files:
        if not _wanted(rel):
            continue
        path = root / rel
        try:
            if path.is_symlink() or path.stat().st_size > MAX_TEXT:
                continue
            texts[rel] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # unreadable: a detector simply does not see it
    return texts


def texts_containing(root: Path, files: list[str], *needles: str) -> dict[str, str]:
    """path -> text of each walked file (UTF-8, at most ``MAX_TEXT`` bytes) that contains
    one of ``needles``: the repository searched for the version, whatever a file is named."""
    found: dict[str, str] = {}
    for rel in files:
        path = root / rel
        try:
            if path.is_symlink() or path.stat().st_size > MAX_TEXT:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # binary or unreadable: no version to bump there
        if any(needle in text for needle in needles):
            found[rel] = text
    return found


TAGS_READ = 8
"""How many of the newest release-like tags :func:`take` reads version files at."""

_RELEASE_TAG = re.compile(r"\d+\.\d+\.\d+", re.ASCII)
_VERSION_NAMES = {
    "VERSION",
    "VERSION_NUMBER",
    "VERSION.txt",
    "version.txt",
    "pyproject.toml",
    "setup.py",
    "version.py",
    "_version.py",
    "__about__.py",
    "__init__.py",
}


def version_paths(texts: Mapping[str, str]) -> list[str]:
    """The read files that may carry the version: version files and build files near the top,
    a package's ``__init__``/``version`` module (at most two folders deep)."""
    return sorted(p for p in texts if p.rsplit("/", 1)[-1] in _VERSION_NAMES and p.count("/") <= 2)


def _texts_at(root: Path, tags: list[str], paths: list[str]) -> dict[str, dict[str, str]]:
    """The texts of ``paths`` at each of ``tags`` (any revisions), read by one
    ``git cat-file --batch``."""
    wanted = [(t, p) for t in tags for p in paths]
    if not wanted:
        return {}
    stdin = "".join(f"{t}:{p}\n" for t, p in wanted)
    raw = git.run(
        root, "cat-file", "--batch", input=stdin, check=False, strip=False, errors="surrogateescape"
    ).encode("utf-8", "surrogateescape")
    found: dict[str, dict[str, str]] = {t: {} for t in tags}
    at = 0
    for tag, path in wanted:
        end = raw.find(b"\n", at)
        if end < 0:
            break
        header = raw[at:end].split()
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "<name> missing": the file did not exist at that tag
        size = int(header[2])
        if header[1] == b"blob" and size <= MAX_TEXT:
            found[tag][path] = raw[at : at + size].decode("utf-8", "replace")
        at += size + 1
    return found


def take(root: Path) -> Snapshot:
    """Read the repository at ``root``."""
    files = _walk(root)
    texts = _read(root, files)
    if not git.is_repo(root) or git.head(root) is None:
        return Snapshot(files, texts, is_repo=git.is_repo(root))
    tags = git.run(root, "tag", "--list", "--sort=-creatordate", check=False).splitlines()
    refs = git.run(
        root, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes", check=False
    ).splitlines()
    branches: list[str] = []
    for ref in refs:
        if ref.startswith("refs/heads/"):
            name = ref.removeprefix("refs/heads/")
        else:
            name = ref.removeprefix("refs/remotes/").split("/", 1)[-1]
        if name != "HEAD" and name not in branches:
            branches.append(name)
    subjects = git.run(root, "log", "-n", "200", "--format=%s", check=False).splitlines()
    rc_subjects = git.run(
        root,
        *("log", "--all", "-n", "200", "--format=%s", "-i", "-E", r"--grep=rc ?[0-9]+\b"),
        check=False,
    ).splitlines()
    tags = [t for t in tags if t]
    released = [t for t in tags if _RELEASE_TAG.search(t)][:TAGS_READ]
    paths = version_paths(texts)
    tracked = frozenset(git.run(root, "ls-files", "-z", check=False, strip=False).split("\0"))
    untracked = [f for f in files if f not in tracked]
    ignored = (
        git.run(root, "check-ignore", "-z", "--stdin", input="\0".join(untracked), check=False)
        if untracked
        else ""
    )
    return Snapshot(
        files,
        texts,
        tags=tags,
        head_tags=git.tags_at(root),
        branches=branches,
        current_branch=git.current_branch(root),
        subjects=subjects,
        is_repo=True,
        rc_subjects=rc_subjects,
        tag_texts=_texts_at(root, released, paths),
        tracked=tracked - {""},
        ignored=frozenset(ignored.split("\0")) - {""},
        merged=_merged(root, refs),
    )


def _merged(root: Path, refs: list[str]) -> frozenset[str]:
    """The short names of the tags and branches that main's history holds (one git call)."""
    main = next(
        (r for name in MAIN_NAMES for r in refs if r.split("/", 3)[-1] == name),
        None,
    )
    if main is None:
        return frozenset()
    listed = git.run(
        root,
        *("for-each-ref", f"--merged={main}", "--format=%(refname)"),
        *("refs/tags", "refs/heads", "refs/remotes"),
        check=False,
    ).splitlines()
    return frozenset(_short(ref) for ref in listed if ref)


def _short(ref: str) -> str:
    if ref.startswith(("refs/tags/", "refs/heads/")):
        return ref.split("/", 2)[2]
    return ref.removeprefix("refs/remotes/").split("/", 1)[-1]
