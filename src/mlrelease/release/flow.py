"""What the release commands share: :class:`Flow` (the configuration and the one snapshot of
local and origin refs promotion and binding decide on) and small helpers. The pure planners
live in :mod:`.cut`, :mod:`.candidates` (prepare, rc) and :mod:`.picks`, over the snapshot
:mod:`.observe` reads (:class:`~.snapshot.ReleaseState`); promotion's decisions are
:mod:`.decide`. Each returns a :class:`~mlrelease.release.plan.Plan` holding only what is still
to do.

The version model (PyTorch's): a release branch ``release/X.Y`` is cut from main, which moves
to ``X.Y+1.0.dev0``; ``release prepare`` sets the branch to the final version ``X.Y.Z`` and
writes its changelog section in one commit; RC tags ``vX.Y.Z-rcN`` mark candidate commits of
that final version (the artifacts an RC builds carry the final version string, so promotion
publishes those very files); ``release promote`` tags ``vX.Y.Z`` on exactly the RC's commit.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.edges import proc as processes
from mlrelease.edges.journal import read_journal
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.project import bump
from mlrelease.release import repo, state
from mlrelease.release.config import TABLE, ReleaseConfig
from mlrelease.release.plan import Action


@dataclass
class Flow:
    """The configuration and repository the commands work on; local and origin refs are read
    once per command (:mod:`~mlrelease.release.state`), before any decision."""

    config: Config
    names: Names
    _remote: state.Remote | None = None
    _remote_read: bool = False
    _local: state.Refs | None = None

    @classmethod
    def of(cls, config: Config) -> Flow:
        if not git.is_repo(config.root):
            raise UserError(f"{config.root} is not a git repository; the release flow needs one.")
        busy = state.in_progress(repo.git_dir(config.root))
        if busy:
            raise PreconditionError(f"{busy} Nothing was changed.")
        lock = repo.git_dir(config.root) / "index.lock"
        if lock.exists():
            raise PreconditionError(
                f"{lock} exists: a git command is running here, or one was killed and left its "
                "lock behind (a killed release command can). If no git process is running, "
                f"remove it (`rm {lock}`), check `git status`, and re-run."
            )
        return cls(config, config.names)

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def rel(self) -> ReleaseConfig:
        return self.config.table(ReleaseConfig)

    def remote(self) -> state.Remote | None:
        """Origin's refs (objects fetched by SHA, no local ref moved); None without a remote."""
        if not self._remote_read:
            self._remote = state.read_origin(self.root, self.rel.remote)
            self._remote_read = True
        return self._remote

    def local(self) -> state.Refs:
        if self._local is None:
            self._local = state.read_local(self.root)
        return self._local

    def require_remote(self, verb: str) -> state.Remote:
        remote = self.remote()
        if remote is None:
            raise PreconditionError(
                f"{verb} --push: no remote {self.rel.remote!r} is configured here "
                f"({TABLE}.remote); add it with `git remote add` or drop --push."
            )
        return remote

    def tags(self) -> dict[str, str]:
        """Local and origin's tags, peeled (a name taken on either side is taken; origin's
        commit wins, and :meth:`check_tags` refuses a name the two sides disagree on)."""
        remote = self.remote()
        local = {n: t.commit or t.object for n, t in self.local().tags.items()}
        return {**local, **(remote.tags if remote else {})}

    def check_tags(self, verb: str, version: Version) -> None:
        """Refuse when a tag of ``version`` differs here and on origin (origin is the truth)."""
        remote = self.remote()
        names = {
            n
            for n in {*self.local().tags, *(remote.refs.tags if remote else {})}
            if (parsed := self.names.parse_tag(n)) and parsed[0] == version
        }
        conflicts = state.tag_conflicts(self.local(), remote, names)
        if conflicts:
            raise PreconditionError(f"{verb}: {'; '.join(conflicts)}.")

    def rc_tags(self, version: Version) -> dict[int, tuple[str, str]]:
        """RC number -> (tag, commit) for the release candidates of ``version``."""
        found: dict[int, tuple[str, str]] = {}
        for name, commit in self.tags().items():
            parsed = self.names.parse_tag(name)
            if parsed and parsed[0] == version and parsed[1] is not None:
                found[parsed[1]] = (name, commit)
        return found

    def push_action(self, refs: list[str], changed: set[str]) -> Action | None:
        """:func:`~.rules.push_action` on the refs this flow read (``rc-model = "bump"``)."""
        from mlrelease.release import observe, rules
        from mlrelease.release.snapshot import ReleaseState

        snap = ReleaseState(self.root, local=self.local(), remote=self.remote())
        observe.pushable(snap, [r for r in refs if not r.startswith("refs/tags/")])
        return rules.push_action(snap, self.rel.remote, refs, changed)

    def require_clean(
        self,
        name: str,
        ignore: AbstractSet[str] = frozenset(),
        why: str = "",
    ) -> None:
        dirty = [f for f in git.dirty_files(self.root) if f not in ignore]
        if dirty:
            shown = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
            journal = read_journal(self.root)
            hint = (
                f" An interrupted `{journal.get('purpose')}` left files half-edited: re-run it "
                "with --execute to undo and redo it."
                if journal
                else " Commit or stash them first (`git stash -u`), then re-run."
            )
            raise PreconditionError(
                f"{name}: the working tree has uncommitted changes ({shown}){why}.{hint}"
            )


def parse_version(text: str, where: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise PreconditionError(f"{where} carries {text!r}, not a PEP 440 version.") from None


def version_files(root: Path, ref: str) -> list[str]:
    """pyproject.toml and every file listed in ``[[tool.bumpversion.files]]`` at ``ref``."""
    from mlrelease.release import observe
    from mlrelease.release.snapshot import ReleaseState

    snap = ReleaseState(root)
    observe.version_files(snap, ref)
    return snap.files_to_bump(ref)


def bump_call(config: Config, new: str) -> Callable[[], None]:
    def run() -> None:
        fresh = config.reload()  # the checked-out branch's configuration, as of now
        bump.execute(fresh, bump.plan(fresh, to=new))

    return run


def _resolve_argv(command: list[str]) -> list[str]:
    """``mlrelease ...`` runs with this interpreter (no PATH lookup); anything else as given."""
    if command and command[0] == "mlrelease":
        return processes.python_module("mlrelease", *command[1:])
    return command
