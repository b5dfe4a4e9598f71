"""The adoption corpus's data (``adoption_corpus.py``): one file per project under
``ci/adoption-corpus/`` (which repository, which release, the commit where it started, how the
project names its refs, and the reviews of the steps where mlrelease differs), and the answer
key derived from the maintainers' real branches and tags (:func:`key`), committed beside it
as ``<name>.key.json``.

The key is read with plain git by :mod:`case_study_history` (none of mlrelease's own rules).
Each commit of the release gets a kind:

- ``pick``: main has the same patch, or the commit names a pull request merged on main since
  the fork (a ``revert`` when it reverts a commit of the branch);
- ``release-only``: no pick, and an edit the release before made too: the newest older
  release branch (as it was at the start) has a commit main has no patch of with the same
  subject (versions and pull request numbers aside), or changing every file this one
  changes (and maybe more). Such an edit recurs
  with every release, so ``release cut`` can make it (init proposes it);
- ``direct``: a change made on this branch only (a fix, a doc, a one-off edit of this
  release's own), which no tool proposes and ``cherry-picks`` must not take for a pick;
- on a release made on main (``trunk``), ``version`` for a commit that changes the version
  file, else ``main``.

A data file may correct a kind (``[[classify]]``), with the reason.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from case_study_history import History, Shape, read
from case_study_lib import git
from packaging.version import InvalidVersion, Version

from mlrelease.toml_tables import parse_dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

VERSION_LINE = re.compile(
    r"""^\s*(?:__version__|version|VERSION)\s*[:=]\s*["']([^"']+)["']""", re.M
)
"""A version assignment in a module or a build script."""


@dataclass(frozen=True)
class Review:
    """A reviewed difference: who was right where the step ``step`` differs from history."""

    step: str
    """The step's id (``cut``, ``main``, ``rc:v1.2.0-rc1``, ``pick:1a2b3c4d5``, ...)."""
    seen: str
    """Text of what mlrelease did (the step's ``did``) that this review was written for: the
    review applies only while the step still says it (a changed outcome is reviewed again)."""
    verdict: Literal["mlrelease right", "mlrelease wrong"]
    why: str
    """The reason, citing what the project's history or its files show."""
    cause: str = ""
    """For a wrong step: the mlrelease behaviour at fault, as the page groups them."""


@dataclass(frozen=True)
class Classify:
    """A correction of the kind :func:`kinds` gives a commit, with the reason."""

    commit: str
    kind: Literal["release-only", "direct"]
    why: str


@dataclass(frozen=True)
class Project:
    """One data file of the corpus."""

    name: str
    family: Literal["pytorch", "onnx"]
    repository: str
    """The project's repository (https)."""
    snapshot: str
    """``owner/name`` of the history replayed: the repository itself, or a fork of it that
    carries its release branches and tags (then ``stand-in`` says why)."""
    version: str
    """The release replayed (X.Y.Z)."""
    model: Literal["branch", "trunk"]
    """How the maintainers released it: on a release branch, or tagged on main."""
    shape: Shape
    about: str
    """How the project releases, in a sentence or two, for the page."""
    stand_in: str = ""
    review: list[Review] = field(default_factory=list)
    classify: list[Classify] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.snapshot.replace("/", "+")


def load(path: Path) -> Project:
    """A data file, every key and type checked (a clear error naming the key otherwise)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    project = parse_dataclass(Project, data, prefix=path.stem, source=str(path))
    if project.model == "trunk":  # the release's commits are main's first-parent line
        return dataclasses.replace(project, shape=dataclasses.replace(project.shape, branch=""))
    return project


def _alike(subject: str) -> str:
    """A subject without its pull request number and its versions (``release/1.1`` and
    ``release/1.0`` alike)."""
    subject = re.sub(r"\(#\d+\)", "", subject.lower())
    return " ".join(re.sub(r"v?\d+(?:\.\d+)*", "#", subject).split())


def previous_edits(mirror: Path, h: History, project: Project) -> list[tuple[str, frozenset[str]]]:
    """The commits of the newest older release branch (as it was at the start) that main
    has no patch of: (subject as :func:`_alike` has it, files changed)."""
    older = {
        name: Version(m[1])
        for name in h.older_branches
        if (m := re.fullmatch(project.shape.older, name))
    }
    if not older:
        return []
    tip = h.older_branches[max(older, key=older.__getitem__)]
    main = f"refs/heads/{project.shape.main}"
    base = git(mirror, "merge-base", main, tip)
    found = []
    for line in git(mirror, "cherry", main, tip, base).splitlines():
        if line.startswith("+ "):
            sha = line[2:]
            files = frozenset(changed(mirror, sha))
            found.append((_alike(git(mirror, "log", "-1", "--format=%s", sha)), files))
    return found


def changed(mirror: Path, commit: str) -> list[str]:
    """The files ``commit`` changes (from its first parent)."""
    return git(mirror, "diff", "--name-only", "--no-renames", f"{commit}^", commit).splitlines()


def kinds(mirror: Path, h: History, project: Project) -> dict[str, str]:
    """Commit -> its kind in the key (see the module's docstring)."""
    fixed = {c.commit: c.kind for c in project.classify}
    found: dict[str, str] = {}
    file = project.shape.version_file
    before = [] if project.model == "trunk" else previous_edits(mirror, h, project)
    for c in h.commits:
        files = changed(mirror, c.sha)
        if project.model == "trunk":
            moved = file in files and version_in(text_at(mirror, f"{c.sha}^", file)) != version_in(
                text_at(mirror, c.sha, file)
            )
            kind = "version" if moved else "main"
        elif c.reverts is not None:
            kind = "revert"
        elif c.pick:
            kind = "pick"
        elif any(s == _alike(c.subject) or frozenset(files) <= f for s, f in before):
            kind = "release-only"
        else:
            kind = "direct"
        found[c.sha] = next((k for p, k in fixed.items() if c.sha.startswith(p)), kind)
    return found


def version_of(text: str) -> Version | None:
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


def version_in(text: str) -> str:
    """The version a version file says: its whole text (``version.txt``), or its
    ``__version__``/``version`` assignment (a module, a ``setup.py``); "" when none."""
    if version_of(text) is not None:
        return text.strip()
    found = VERSION_LINE.search(text)
    return found[1] if found else ""


def text_at(repo: Path, commit: str, file: str) -> str:
    """The text of ``file`` at ``commit`` ("" when the commit has no such file)."""
    if not git(repo, "ls-tree", commit, "--", file):
        return ""
    return git(repo, "show", f"{commit}:{file}")


def _main_next(mirror: Path, h: History, project: Project) -> dict[str, str] | None:
    """The version main carries next after the release: its own at the fork when that is
    already past the release (a main bumped ahead), else the first version main moved to
    after the fork; None when main never moved."""
    ahead = version_of(version_in(h.fork_version))
    if ahead is not None and ahead > h.version:
        commit, subject = h.fork, "main already past the release at the fork"
    elif h.main_move is not None:
        commit, subject = h.main_move[0], h.main_move[1]
    else:
        return None
    version = version_in(text_at(mirror, commit, project.shape.version_file))
    return {"commit": commit, "subject": subject, "version": version}


def key(mirror: Path, project: Project) -> tuple[History, dict[str, Any]]:
    """The history of the release, and the answer key derived from it (what is committed)."""
    h = read(mirror, project.version, project.shape)
    found = kinds(mirror, h, project)
    commits = [
        {
            "sha": c.sha,
            "subject": c.subject,
            "kind": found[c.sha],
            **({"files": changed(mirror, c.sha)} if found[c.sha] == "release-only" else {}),
            "origins": c.origins,
            "rc_tags": [name for _, name in c.rc_tags],
            **({"reverts": c.reverts} if c.reverts else {}),
        }
        for c in h.commits
    ]
    return h, {
        "name": project.name,
        "release": project.version,
        "model": project.model,
        "branch": h.branch if project.model == "branch" else None,
        "fork": h.fork,
        "fork_version": h.fork_version,
        "fork_rc_tags": [name for _, name in h.fork_rc_tags],
        "main_next": _main_next(mirror, h, project),
        "commits": commits,
        "final_tag": h.final_tag,
        "final_commit": h.final_commit,
    }
