"""The one snapshot a release command decides on, as plain data (pure: no git, no files).

:mod:`.observe` reads it once per command, before any decision; the planners
(:func:`~mlrelease.release.cut.plan_cut`, :func:`~mlrelease.release.candidates.plan_prepare`,
:func:`~mlrelease.release.candidates.plan_rc`, :func:`~mlrelease.release.picks.plan_picks`,
:func:`~mlrelease.release.promotion.plan_promote`)
look things up in it and never ask git. Tests build one by hand. A planner asking for a fact
the reader did not gather is a bug of the reader, said as such (:class:`NotGathered`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.errors import PreconditionError
from mlrelease.release.manifest import Entry
from mlrelease.release.state import Refs, Remote
from mlrelease.report import Report


class NotGathered(LookupError):
    """A planner looked up a fact its reader did not gather (a bug, not a user error)."""


@dataclass(frozen=True)
class Journal:
    """The edit journal as found: ``data`` is None when the file does not parse."""

    path: str
    data: dict[str, Any] | None


@dataclass(frozen=True)
class WorkTree:
    """The checked-out files' versions (``versions.scan``) and changelog, for ``release rc``."""

    current: str
    """``[tool.bumpversion] current_version`` of the configuration the command read."""
    stale: tuple[str, ...] = ()
    """``file:line carries X`` for each occurrence not carrying ``current``; problems too."""
    changelog: str = ""


@dataclass(frozen=True)
class PickFacts:
    """What ``release cherry-picks`` decides on, for one branch against main."""

    candidates: tuple[tuple[bool, str], ...] = ()
    """``git cherry branch main``: (an equal patch is on the branch, commit of main)."""
    info: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """commit -> (subject, values of the release trailer)."""
    on_branch: dict[str, str] = field(default_factory=dict)
    """patch id -> commit of the branch (since the merge base)."""
    own_patches: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """commit of main -> its patch ids (for the ones with an equal patch on the branch)."""
    by_trailer: dict[str, str] = field(default_factory=dict)
    """source commit -> commit of the branch saying ``(cherry picked from commit SOURCE)``."""
    marked: dict[str, tuple[str, str]] = field(default_factory=dict)
    """source commit -> (state, reason) recorded by ``--mark``."""


@dataclass(frozen=True)
class PromoteFacts:
    """What ``release promote`` decides on beside the refs: the RC's verdict, the manifests
    bound to it, the files to publish and what the index already holds."""

    report_path: str
    report: Report | None = None
    """The RC's release_verify report; None when there is no file."""
    report_error: str | None = None
    """Why the report file could not be read."""
    blobs: dict[str, str] = field(default_factory=dict)
    """manifest blob SHA -> its text (the ones bound to the RC here and on origin)."""
    folder: str = "dist"
    found: tuple[Entry, ...] = ()
    """The artifacts in ``folder``."""
    index: dict[str, str] | None = None
    """File name -> SHA-256 on the index; None when not publishing."""
    index_url: str = ""


@dataclass(frozen=True)
class BindFacts:
    """What ``release bind`` decides on: the built files and the manifests already bound."""

    folder: str
    findings: tuple[str, ...] = ()
    """Why the folder is not a verified build (its SHA256SUMS disagree), one line each."""
    found: tuple[Entry, ...] = ()
    made_blob: str | None = None
    """The blob SHA the manifest of these files at the RC's commit has (git's hash of it)."""
    blobs: dict[str, str] = field(default_factory=dict)
    """manifest blob SHA -> its text (the ones bound to the RC here and on origin)."""


@dataclass
class ReleaseState:
    """Local and origin refs, the checkout, and the facts the planners need at named refs."""

    root: Path
    local: Refs = field(default_factory=Refs)
    remote: Remote | None = None
    remote_error: str | None = None
    """Why origin's refs could not be read (raised when a planner needs them)."""
    branch: str | None = None
    """The checked-out branch; None for a detached HEAD."""
    head: str | None = None
    dirty: tuple[str, ...] = ()
    busy: str | None = None
    """A git operation in progress (a cherry-pick, a rebase...), as a sentence."""
    lock: str | None = None
    """The path of an ``index.lock`` left here."""
    journal: Journal | None = None
    commits: dict[str, str | None] = field(default_factory=dict)
    """ref as named (``refs/heads/main``, a --from argument) -> its commit, None when absent."""
    versions: dict[str, str] = field(default_factory=dict)
    """ref or commit -> ``current_version`` committed there."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """ref or commit -> why its version cannot be read (no pyproject.toml, no key)."""
    files: dict[tuple[str, str], str | None] = field(default_factory=dict)
    """(ref, path) -> the file's text there; None when it does not exist."""
    version_files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """ref -> pyproject.toml and the ``[[tool.bumpversion.files]]`` there."""
    ancestry: dict[tuple[str, str], bool] = field(default_factory=dict)
    """(a, b) -> a is an ancestor of b (or b itself), for the pairs a planner asks about."""
    worktree: WorkTree | None = None
    picks: PickFacts | None = None
    promote: PromoteFacts | None = None
    bind: BindFacts | None = None

    def _get(self, table: dict[Any, Any], key: Any, what: str) -> Any:
        if key not in table:
            raise NotGathered(f"the snapshot holds no {what} for {key!r}")
        return table[key]

    def commit(self, ref: str) -> str | None:
        found: str | None = self._get(self.commits, ref, "commit")
        return found

    def version_at(self, ref: str) -> str:
        if ref in self.unreadable:
            raise PreconditionError(self.unreadable[ref])
        found: str = self._get(self.versions, ref, "version")
        return found

    def file_at(self, ref: str, path: str) -> str | None:
        found: str | None = self._get(self.files, (ref, path), "file")
        return found

    def files_to_bump(self, ref: str) -> list[str]:
        return list(self._get(self.version_files, ref, "list of version files"))

    def is_ancestor(self, a: str, b: str) -> bool:
        if a == b:
            return True
        found: bool = self._get(self.ancestry, (a, b), "ancestry fact")
        return found

    def origin(self) -> Remote | None:
        """Origin's refs; a remote that could not be read is refused here, when needed."""
        if self.remote_error:
            raise PreconditionError(self.remote_error)
        return self.remote

    def tags(self) -> dict[str, str]:
        """Local and origin's tags, peeled (origin's commit wins on a shared name)."""
        local = {n: t.commit or t.object for n, t in self.local.tags.items()}
        remote = self.origin()
        return {**local, **(remote.tags if remote else {})}
