"""The release world: one immutable snapshot of everything a release command decides on (pure:
no git, no files, no network).

:mod:`~mlrelease.release.world.reader` reads it once per command, before any decision;
every planner (cut, prepare, rc under either RC model, cherry-picks, bind, publish, promote)
looks facts up in it and never asks git. Tests build one by hand. A planner asking for a fact the
reader did not gather is a bug of the reader, said as such (:class:`NotGathered`). The release a
command is about (its version, its RC, its branch and final tag) is resolved once, into
:attr:`World.target`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease.edges.index import IndexFile
from mlrelease.errors import PreconditionError
from mlrelease.release.promotion.manifest import Entry
from mlrelease.release.promotion.verdict import RcVerdict
from mlrelease.wheels.differences import Difference

RC_MARKER = "Made-by: mlrelease release rc"
"""The line ``release rc`` writes into every RC tag's annotation; promotion requires it."""
FINAL_MARKER = "Made-by: mlrelease release promote"
"""The line ``release promote`` writes into the final tag's annotation."""
BOUND_PREFIX = "refs/mlrelease/bound/"
"""``refs/mlrelease/bound/<rc tag>/<sha256 of the manifest>``: the blob of the RC's manifest,
under a name any clone can check against the content (invariant (d))."""


class NotGathered(LookupError):
    """A planner looked up a fact its reader did not gather (a bug, not a user error)."""


def short(sha: str | None) -> str:
    return sha[:12] if sha else "?"


def parse_version(text: str, where: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise PreconditionError(f"{where} carries {text!r}, not a PEP 440 version.") from None


@dataclass(frozen=True)
class Tag:
    """A tag as one side sees it."""

    name: str
    tag_object: str
    """The tag object (annotated) or the commit itself (lightweight)."""
    commit: str | None
    """The commit it points at (peeled); None when that object is not here."""
    annotated: bool
    message: str = ""

    def made_by(self, marker: str) -> bool:
        return self.annotated and marker in self.message.splitlines()

    @property
    def made_by_mlrelease(self) -> bool:
        return self.made_by(RC_MARKER)


@dataclass(frozen=True)
class MadeTag:
    """A tag a release command made in this clone, as its record says
    (:mod:`mlrelease.release.world.made`)."""

    name: str
    commit: str
    tag_object: str | None
    """The tag object it made; None when only the intent was recorded (killed while git ran)."""
    verb: str = ""

    def names(self, tag: Tag, marker: str) -> bool:
        """Whether ``tag`` is the one this record made: its very object, or, for an intent
        alone, an annotated tag with ``marker`` on the recorded commit."""
        if self.tag_object is not None:
            return tag.tag_object == self.tag_object
        return tag.commit == self.commit and tag.made_by(marker)


@dataclass(frozen=True)
class Refs:
    """Branches, tags and bindings of one side (local, or origin)."""

    heads: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, Tag] = field(default_factory=dict)
    bindings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """RC tag name -> {SHA-256 the ref is named after: blob SHA of the manifest}."""


@dataclass(frozen=True)
class Remote:
    """Origin's refs, as read at the start of the command."""

    name: str
    refs: Refs
    fetch_url: str = ""
    """Where its refs are read from (``insteadOf`` applied)."""
    push_urls: tuple[str, ...] = ()
    """Where a push to it goes (``pushurl`` and ``pushInsteadOf`` applied)."""

    @property
    def heads(self) -> Mapping[str, str]:
        return self.refs.heads

    @property
    def tags(self) -> dict[str, str]:
        """Tag name -> peeled commit."""
        return {n: t.commit or t.tag_object for n, t in self.refs.tags.items()}

    @property
    def tag_objects(self) -> dict[str, str]:
        return {n: t.tag_object for n, t in self.refs.tags.items()}


@dataclass(frozen=True)
class Journal:
    """The edit journal as found: ``data`` is None when the file does not parse; ``hashes`` is
    the SHA-256 of each journalled file as it is now (None: the file is missing)."""

    path: str
    data: Mapping[str, Any] | None
    hashes: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Target:
    """The release a command is about, resolved once: the version, its RC (None when the
    command names none, or under ``rc-model = "bump"``), the branch it is made on and the
    final tag."""

    version: Version
    rc: str | None
    branch: str
    final: str


@dataclass(frozen=True)
class WorkTree:
    """The checked-out files' versions (``version_files.scan``) and changelog, for
    ``release rc``."""

    current: str
    """``[tool.bumpversion] current_version`` of the configuration the command read."""
    stale: tuple[str, ...] = ()
    """``file:line carries X`` for each occurrence not carrying ``current``; problems too."""
    changelog: str = ""
    hand_edit: str | None = None
    """The one other version every version file carries (``current`` is stale: a hand edit)."""


@dataclass(frozen=True)
class BranchCommit:
    """A commit of the release branch (since the merge base), as cherry-picks sees it."""

    sha: str
    subject: str
    picked_from: tuple[str, ...] = ()
    """The commits its ``(cherry picked from commit ...)`` lines name (maybe abbreviated)."""
    reverts: tuple[str, ...] = ()
    """The commits it reverts: every ``This reverts commit ...`` line (a squashed revert of
    several), and for a reverted merge every commit the merge brought in."""


@dataclass(frozen=True)
class PickFacts:
    """What ``release cherry-picks`` decides on, for one branch against main."""

    candidates: tuple[tuple[bool, str], ...] = ()
    """``git cherry branch main``: (an equal patch is on the branch, commit of main)."""
    info: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """commit -> (subject, values of the release trailer)."""
    on_branch: Mapping[str, str] = field(default_factory=dict)
    """patch id -> commit of the branch (since the merge base)."""
    own_patches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """commit of main -> its patch ids."""
    branch_commits: tuple[BranchCommit, ...] = ()
    """The branch's commits since the merge base, newest first."""
    main_reverts: Mapping[str, str] = field(default_factory=dict)
    """commit of main -> the later commit of main that reverts it."""
    marked: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """source commit -> (state, reason) recorded by ``--mark``."""
    milestone: str | None = None
    """The milestone file's text (``picks = "milestone"``); None otherwise."""


@dataclass(frozen=True)
class Index:
    """What an index holds of this project at this version, read once."""

    url: str
    """The simple page read (``.../simple/<project>/``)."""
    files: tuple[IndexFile, ...] = ()
    """The entries installers read as files of this version (by their URL or by the name they
    state, any spelling), each with its SHA-256 proven (``downloaded``: from its bytes)."""
    error: str | None = None
    """Why it could not be read (refused when a decision needs it)."""
    repository: str = ""
    """The upload URL the page was found through."""
    source: str = ""
    """Why this index was read: ``--repository-url``, the record of ``release publish``, or
    the configured ``index``."""
    others: tuple[IndexFile, ...] = ()
    """The page's other entries (other versions, other names, no distribution at all)."""


@dataclass(frozen=True)
class UpstreamOrigin:
    """A train member's upstream origin, read for its upstream record (train invariant T3)."""

    url: str
    refs: Refs | None = None
    blobs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """blob SHA -> (the SHA-256 of its bytes, its text) of the manifests it binds."""
    error: str | None = None
    """Why it could not be read (a record it decides on is then refused)."""


@dataclass(frozen=True)
class PromoteFacts:
    """What bind, publish and promote decide on beside the refs: the RC's verdict, the
    manifests bound to it (blob SHA -> text), the artifacts offered, the store and the index."""

    verdict: RcVerdict | None = None
    blobs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """blob SHA -> (the SHA-256 of its bytes, its text) of the manifests bound to the RC."""
    folder: str = "dist"
    found: tuple[Entry, ...] = ()
    """The artifacts in ``folder`` (wheels and sdists; other files are in ``others``)."""
    others: tuple[str, ...] = ()
    """Files of the folder that are neither (SHA256SUMS aside)."""
    findings: tuple[str, ...] = ()
    """Why the folder's files are not this release's (identity, completeness, the RC's tree),
    one line each; bind refuses on any."""
    accepted: tuple[Difference, ...] = ()
    """Members differing from the reference build by a class the project accepts."""
    reference: str = ""
    """The digest of the reference build the files were compared with."""
    unlike: tuple[str, ...] = ()
    """Files of the working tree, at the RC's commit, that a fresh checkout writes otherwise
    (read only when files were refused: :func:`mlrelease.edges.checkout.unlike_worktree`)."""
    stored: Mapping[str, int] = field(default_factory=dict)
    """SHA-256 -> size of the objects in this clone's content-addressed store."""
    index: Index | None = None
    published: Mapping[str, str] = field(default_factory=dict)
    """channel -> the index ``release publish`` sent the RC's files to from this clone."""
    upstreams: Mapping[str, UpstreamOrigin] = field(default_factory=dict)
    """The origins the upstream records of the RC's manifests name (and the one asked to
    bind), by URL."""


@dataclass(frozen=True)
class BumpFacts:
    """What the ``rc-model = "bump"`` planners decide on beside the refs."""

    rc_made: bool = False
    """A commit since main changed the version files to an ``rcN`` version."""


@dataclass(frozen=True)
class World:
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
    made: Mapping[str, MadeTag] = field(default_factory=dict)
    """Tag name -> the record of the tag a release command made here under that name."""
    common_dir: Path | None = None
    """The git folder every worktree shares, where this clone's records live (None: by hand)."""
    commits: Mapping[str, str | None] = field(default_factory=dict)
    """ref as named (``refs/heads/main``, a --from argument) -> its commit, None when absent."""
    versions: Mapping[str, str] = field(default_factory=dict)
    """ref or commit -> ``current_version`` committed there."""
    unreadable: Mapping[str, str] = field(default_factory=dict)
    """ref or commit -> why its version cannot be read (no pyproject.toml, no key)."""
    files: Mapping[tuple[str, str], str | None] = field(default_factory=dict)
    """(ref, path) -> the file's text there; None when it does not exist."""
    listings: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """(ref, glob) -> the files of ``ref``'s tree the pattern matches (release-only edits)."""
    existed: Mapping[str, bool] = field(default_factory=dict)
    """path -> a commit of the history had it (a release-only edit's file that was deleted)."""
    version_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """ref -> pyproject.toml and the ``[[tool.bumpversion.files]]`` there (links resolved)."""
    links: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """ref -> {a version file that is a symbolic link: the file it points at}."""
    hand_edits: Mapping[str, str | None] = field(default_factory=dict)
    """ref -> the one version every version file carries there when ``current_version``
    says another (edited by hand; :func:`mlrelease.version_files.hand_edit`), else None."""
    link_problems: Mapping[str, str] = field(default_factory=dict)
    """ref -> why a version file's link cannot be followed (it leaves the repository)."""
    ancestry: Mapping[tuple[str, str], bool] = field(default_factory=dict)
    """(a, b) -> a is an ancestor of b (or b itself), for the pairs a planner asks about."""
    worktree: WorkTree | None = None
    picks: PickFacts | None = None
    promote: PromoteFacts | None = None
    bumps: BumpFacts | None = None
    target: Target | None = None

    def _get(self, table: Mapping[Any, Any], key: Any, what: str) -> Any:
        if key not in table:
            raise NotGathered(f"the world holds no {what} for {key!r}")
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

    def ever_had(self, path: str) -> bool:
        found: bool = self._get(self.existed, path, "history of the file")
        return found

    def files_matching(self, ref: str, pattern: str) -> tuple[str, ...]:
        found: tuple[str, ...] = self._get(self.listings, (ref, pattern), "listing")
        return found

    def files_to_bump(self, ref: str) -> list[str]:
        """The files a version bump at ``ref`` writes (links followed), refused when a link
        leaves the repository."""
        if ref in self.link_problems:
            raise PreconditionError(self.link_problems[ref])
        return list(self._get(self.version_files, ref, "list of version files"))

    def links_at(self, ref: str) -> dict[str, str]:
        return dict(self.links.get(ref, {}))

    def is_ancestor(self, a: str, b: str) -> bool:
        if a == b:
            return True
        found: bool = self._get(self.ancestry, (a, b), "ancestry fact")
        return found

    def made_here(self, name: str, marker: str) -> bool:
        """Whether this clone's tag ``name`` was made here by a release command (its record),
        whatever its annotation says (a fork's tag carries the same ``Made-by`` line)."""
        tag, record = self.local.tags.get(name), self.made.get(name)
        return tag is not None and record is not None and record.names(tag, marker)

    def origin(self) -> Remote | None:
        """Origin's refs; a remote that could not be read is refused here, when needed."""
        if self.remote_error:
            raise PreconditionError(self.remote_error)
        return self.remote

    def tags(self) -> dict[str, str]:
        """The tags that decide, peeled: origin's when a remote is configured (origin is the
        truth: a tag only this clone has, hand-made or fetched from a fork, decides nothing),
        this clone's when none is."""
        remote = self.origin()
        if remote is not None:
            return remote.tags
        return {n: t.commit or t.tag_object for n, t in self.local.tags.items()}

    def local_only_tags(self) -> list[str]:
        """Tags this clone has and origin does not, or has as another object (empty without
        a remote): named to the user, never decided on."""
        remote = self.remote
        if remote is None:
            return []
        theirs = remote.tag_objects
        return sorted(n for n, t in self.local.tags.items() if theirs.get(n) != t.tag_object)

    def facts(self) -> PromoteFacts:
        if self.promote is None:
            raise NotGathered("the world holds no promotion facts")
        return self.promote

    def aimed(self) -> Target:
        if self.target is None:
            raise NotGathered("the world holds no resolved target")
        return self.target
