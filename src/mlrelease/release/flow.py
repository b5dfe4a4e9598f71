"""The release commands as planners: each reads the repository, checks its preconditions and
returns a :class:`~mlrelease.release.plan.Plan` holding only what is still to do.

The version model (PyTorch's): a release branch ``release/X.Y`` is cut from main, which moves
to ``X.Y+1.0.dev0``; ``release prepare`` sets the branch to the final version ``X.Y.Z`` and
writes its changelog section in one commit; RC tags ``vX.Y.Z-rcN`` mark candidate commits of
that final version (the artifacts an RC builds carry the final version string, so promotion
publishes those very files); ``release promote`` tags ``vX.Y.Z`` on exactly the RC's commit.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease import bump, changelog, git, report, versions
from mlrelease.config import Config, load
from mlrelease.errors import ConfigError, PreconditionError, UserError
from mlrelease.release import repo, state
from mlrelease.release.plan import (
    Action,
    Plan,
    begin_edit,
    call_action,
    end_edit,
    git_action,
    read_journal,
    recovery,
)
from mlrelease.release.settings import (
    TABLE,
    Names,
    ReleaseConfig,
    ReleaseEdit,
    parse_release,
    parse_series,
    series,
    series_text,
)


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
        lock = repo.git_dir(config.root) / "index.lock"
        if lock.exists():
            raise PreconditionError(
                f"{lock} exists: a git command is running here, or one was killed and left its "
                "lock behind (a killed release command can). If no git process is running, "
                f"remove it (`rm {lock}`), check `git status`, and re-run."
            )
        return cls(config, Names.of(config.release, str(config.pyproject_path)))

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def rel(self) -> ReleaseConfig:
        return self.config.release

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
        """``git push --atomic REMOTE refs...`` for the refs the remote lacks or will lack.

        Checked here, while planning, so before the first change: origin is not ahead of a
        branch to push, and a tag to push is absent on origin or the very same tag object."""
        remote = self.require_remote("push")
        needed: list[str] = []
        for ref in refs:
            if ref.startswith("refs/tags/"):
                name = ref[len("refs/tags/") :]
                theirs, mine = remote.tag_objects.get(name), repo.tag_object(self.root, name)
                if theirs and ref in changed:
                    raise PreconditionError(
                        f"push: {remote.name} already has a tag {name} "
                        f"({state.short(remote.tags.get(name))}) that this command would create; "
                        f"fetch it (`git fetch {remote.name} tag {name}`) and re-run."
                    )
                if ref in changed or theirs != mine:
                    needed.append(ref)
            else:
                local = repo.commit_of(self.root, f"refs/heads/{ref}")
                theirs = remote.heads.get(ref)
                if (
                    theirs
                    and theirs != local
                    and not (local and repo.is_ancestor(self.root, theirs, local))
                ):
                    raise PreconditionError(
                        f"push: {remote.name}/{ref} ({state.short(theirs)}) has commits that "
                        f"local {ref} ({state.short(local)}) lacks; nothing was changed. Bring "
                        f"them in first (`git switch {ref} && git pull --ff-only "
                        f"{remote.name} {ref}`), then re-run."
                    )
                if ref in changed or theirs != local:
                    needed.append(ref)
        if not needed:
            return None
        return git_action("push", "push", "--atomic", remote.name, *needed)

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


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "?"


def _version(text: str, where: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise PreconditionError(f"{where} carries {text!r}, not a PEP 440 version.") from None


def version_files(root: Path, ref: str) -> list[str]:
    """pyproject.toml and every file listed in ``[[tool.bumpversion.files]]`` at ``ref``."""
    table = repo.pyproject_at(root, ref).get("tool", {}).get("bumpversion", {})
    tracked = git.run(root, "ls-tree", "-r", "--name-only", ref).splitlines()
    files = {"pyproject.toml"}
    for entry in table.get("files", []) if isinstance(table, Mapping) else []:
        if isinstance(entry.get("filename"), str):
            files.add(entry["filename"])
        elif isinstance(entry.get("glob"), str):
            files.update(fnmatch.filter(tracked, entry["glob"]))
    return sorted(files)


def _bump_call(root: Path, new: str) -> Callable[[], None]:
    def run() -> None:
        config = load(root)  # the checked-out branch's configuration, as of now
        bump.execute(config, bump.plan(config, to=new))

    return run


# --- cut ------------------------------------------------------------------------------------


def _edit_text(edit: ReleaseEdit, text: str, values: Mapping[str, str]) -> str:
    replacement = edit.replace.format(**values)
    if edit.regex:
        return re.sub(edit.search, replacement, text, flags=re.MULTILINE)
    return text.replace(edit.search, replacement)


def _edit_needed(edit: ReleaseEdit, text: str) -> bool:
    return bool(re.search(edit.search, text, re.MULTILINE)) if edit.regex else edit.search in text


def _edits_call(root: Path, edit: ReleaseEdit, values: Mapping[str, str]) -> Callable[[], None]:
    def run() -> None:
        path = root / edit.file
        text = path.read_text(encoding="utf-8")
        new = _edit_text(edit, text, values)
        tmp = path.with_name(path.name + ".mlrelease-tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(path)  # each file is old or new, never half-written

    return run


def plan_cut(flow: Flow, version: str, from_ref: str | None = None, push: bool = False) -> Plan:
    """``release cut --version X.Y``: branch, release-only edits, main to the next .dev."""
    wanted = parse_series(version)
    root, rel = flow.root, flow.rel
    branch = flow.names.branch_for(wanted)
    plan = Plan("cut", root)
    restore, restored = recovery(root, "cut")
    plan.actions += restore
    main = rel.main_branch
    if git.current_branch(root) is None:
        raise PreconditionError(
            f"cut: HEAD is detached (at {_short(git.head(root))}); cut switches branches and a "
            "commit made on a detached HEAD would be left behind. Switch to a branch first "
            f"(`git switch {main}`), or pass --from {_short(git.head(root))} from a branch."
        )
    if repo.commit_of(root, f"refs/heads/{main}") is None:
        raise PreconditionError(
            f"cut: no local branch {main!r} ({TABLE}.main-branch); fetch it or set the key."
        )
    source = str(flow.config.pyproject_path)
    for i, edit in enumerate(rel.edits):
        try:
            edit.replace.format(branch="", series="", major="", minor="")
            if edit.regex:
                re.compile(edit.search)
        except (KeyError, IndexError, ValueError, re.error) as exc:
            raise ConfigError(
                f"{TABLE}.edits[{i}]",
                "a valid search/replace pair",
                f"{edit!r} ({exc})",
                source=source,
            ) from None

    # 1. the branch
    start = from_ref or main
    if repo.branch_exists(root, branch):
        plan.notes.append(f"{branch} exists ({_short(repo.commit_of(root, branch))}).")
        base = branch
    else:
        if from_ref and repo.commit_of(root, from_ref) is None:
            raise PreconditionError(f"cut: --from {from_ref}: no such branch, tag or commit.")
        carried = _version(repo.version_at(root, start), start)
        if series(carried) != wanted:
            raise PreconditionError(
                f"cut: {start} carries {carried}, not a {version} version. Cut "
                f"--version {series_text(series(carried))}, or pass --from a commit of the "
                f"{version} development."
            )
        plan.actions.append(git_action("branch", "branch", branch, start))
        base = start

    # 2. main moves to the next development version
    main_version = _version(repo.version_at(root, main), main)
    next_dev = f"{wanted[0]}.{wanted[1] + 1}.0.dev0"
    bump_main = False
    if series(main_version) == wanted:
        if not main_version.is_devrelease:
            raise PreconditionError(
                f"cut: {main} carries {main_version}, a release version; main must carry a "
                f".dev version (e.g. {wanted[0]}.{wanted[1]}.0.dev0). Fix it with "
                f"`mlrelease bump --to {wanted[0]}.{wanted[1]}.0.dev0 --execute` and commit."
            )
        bump_main = True
    elif series(main_version) < wanted:
        raise PreconditionError(
            f"cut: {main} carries {main_version}: the {version} development has not started on "
            f"{main}. Bump main to {wanted[0]}.{wanted[1]}.0.dev0 first, or cut "
            f"{series_text(series(main_version))}."
        )
    else:
        plan.notes.append(f"{main} already carries {main_version}.")

    # 3. release-only edits, checked against the branch (or what it will be created from)
    values = {"branch": branch, "series": version, "major": str(wanted[0]), "minor": str(wanted[1])}
    edits: list[ReleaseEdit] = []
    for i, edit in enumerate(rel.edits):
        text = repo.show(root, base, edit.file)
        if text is None:
            raise ConfigError(
                f"{TABLE}.edits[{i}].file",
                f"a file that exists on {base}",
                repr(edit.file),
                source=source,
            )
        if _edit_needed(edit, text):
            if _edit_needed(edit, _edit_text(edit, text, values)):
                raise ConfigError(
                    f"{TABLE}.edits[{i}]",
                    "an edit whose result no longer matches its search "
                    "(so a second cut finds nothing to do)",
                    repr(edit),
                    source=source,
                )
            edits.append(edit)
    if rel.edits and not edits:
        plan.notes.append(f"the release-only edits are on {branch}.")

    # 4. order: main first (it is usually checked out), then the branch; end on the branch.
    position = git.current_branch(root)
    changed: set[str] = set()
    if bump_main:
        if position != main:
            plan.actions.append(git_action("switch-main", "switch", main))
            position = main
        files = version_files(root, main)
        plan.actions += [
            begin_edit(root, files, f"mlrelease release cut --version {version} --execute"),
            call_action(
                "bump",
                f"bump-my-version: {main_version} -> {next_dev} in {', '.join(files)}",
                _bump_call(root, next_dev),
            ),
            git_action(
                "commit-main",
                "commit",
                "-m",
                f"chore(release): open {next_dev} on {main} after cutting {branch}",
                "--",
                *files,
            ),
            end_edit(root),
        ]
        changed.add(main)
    if edits:
        if position != branch:
            plan.actions.append(git_action("switch-branch", "switch", branch))
            position = branch
        files = sorted({e.file for e in edits})
        plan.actions.append(
            begin_edit(root, files, f"mlrelease release cut --version {version} --execute")
        )
        for edit in edits:
            plan.actions.append(
                call_action(
                    f"edit:{edit.file}",
                    f"edit {edit.file}: {edit.search!r} -> {edit.replace.format(**values)!r}",
                    _edits_call(root, edit, values),
                )
            )
        plan.actions += [
            git_action(
                "commit-branch",
                "commit",
                "-m",
                f"chore(release): release-only edits for {branch}",
                "--",
                *files,
            ),
            end_edit(root),
        ]
    if (
        plan.actions
        and position != branch
        and not all(a.key.startswith("journal") or a.key == "restore" for a in plan.actions)
    ):
        plan.actions.append(git_action("switch-branch", "switch", branch))
    if any(a.git_args and a.git_args[0] in ("switch", "commit") for a in plan.actions):
        flow.require_clean("cut", restored, " and cut switches branches")
    if "branch" in {a.key for a in plan.actions}:
        changed.add(branch)
    if push:
        _check_remote_main(flow, main)
        refs = [branch]
        remote = flow.remote()
        theirs = remote.heads.get(main) if remote else None
        # main is pushed for the version bump only: other unpushed commits on it are not cut's.
        if (
            main in changed
            or theirs is None
            or series(_version(repo.version_at(root, theirs), f"{flow.rel.remote}/{main}"))
            <= wanted
        ):
            refs.append(main)
        action = flow.push_action(refs, changed)
        if action:
            plan.actions.append(action)
    return plan


def _check_remote_main(flow: Flow, main: str) -> None:
    remote = flow.remote()
    theirs = remote.heads.get(main) if remote else None
    if theirs and not (
        repo.commit_of(flow.root, theirs)
        and repo.is_ancestor(flow.root, theirs, f"refs/heads/{main}")
    ):
        raise PreconditionError(
            f"cut --push: {remote.name if remote else ''}/{main} has commits that local {main} "
            f"lacks; run `git switch {main} && git pull --ff-only` and re-run."
        )


# --- prepare (the version-bump commit with its changelog section) ---------------------------


def plan_prepare(flow: Flow, version: str, push: bool = False) -> Plan:
    """``release prepare --version X.Y.Z``: set the release version and write its changelog."""
    target = parse_release(version)
    root = flow.root
    branch = flow.names.branch_for(series(target))
    plan = Plan("prepare", root)
    restore, restored = recovery(root, "prepare")
    plan.actions += restore
    if not repo.branch_exists(root, branch):
        raise PreconditionError(
            f"prepare: there is no branch {branch}; cut it first: "
            f"`mlrelease release cut --version {series_text(series(target))} --execute`."
        )
    carried = _version(repo.version_at(root, branch), branch)
    flow.check_tags("prepare", target)
    tags = flow.tags()
    final = flow.names.final_tag(target)
    log_text = repo.show(root, branch, flow.config.changelog)
    if log_text is None:
        raise PreconditionError(
            f"prepare: {flow.config.changelog} does not exist on {branch} "
            "([tool.mlrelease] changelog); create it with a '# Changelog' title and the line "
            f"'{changelog.MARKER}'."
        )
    need_bump = str(carried) != str(target)
    need_log = not changelog.has_section(log_text, target)
    if final in tags and (need_bump or need_log):
        raise PreconditionError(
            f"prepare: {target} is released ({final} exists); prepare the next patch version, "
            f"e.g. --version {target.major}.{target.minor}.{target.micro + 1}."
        )
    if need_bump:
        if carried > target:
            raise PreconditionError(
                f"prepare: {branch} already carries {carried}, newer than {target}."
            )
        if not carried.is_devrelease and flow.names.final_tag(carried) not in tags:
            raise PreconditionError(
                f"prepare: {branch} carries {carried}, which was never released (no tag "
                f"{flow.names.final_tag(carried)}). Release it first, or bump by hand if you "
                "mean to skip it."
            )
    else:
        plan.notes.append(f"{branch} carries {target}.")
    if not need_log:
        plan.notes.append(f"{flow.config.changelog} has a {target} section.")
    changed: set[str] = set()
    if need_bump or need_log:
        if git.current_branch(root) != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        flow.require_clean("prepare", restored)
        files = sorted(
            set(version_files(root, branch) if need_bump else [])
            | ({flow.config.changelog} if need_log else set())
        )
        plan.actions.append(
            begin_edit(root, files, f"mlrelease release prepare --version {version} --execute")
        )
        if need_bump:
            plan.actions.append(
                call_action(
                    "bump", f"bump-my-version: {carried} -> {target}", _bump_call(root, str(target))
                )
            )
        if need_log:
            plan.actions.append(
                call_action(
                    "changelog",
                    f"git-changelog: write the {target} section of {flow.config.changelog}",
                    _changelog_call(root, target),
                )
            )
        plan.actions += [
            git_action("commit", "commit", "-m", f"chore(release): prepare {target}", "--", *files),
            end_edit(root),
        ]
        changed.add(branch)
    if push:
        action = flow.push_action([branch], changed)
        if action:
            plan.actions.append(action)
    return plan


def _changelog_call(root: Path, target: Version) -> Callable[[], None]:
    def run() -> None:
        config = load(root)
        text = changelog.generate(
            root,
            config.changelog,
            bump=str(target),
            repository_url=changelog.repository_url(config.pyproject),
        )
        if not changelog.has_section(text, target):
            raise UserError(f"git-changelog wrote no {target} section to {config.changelog}.")

    return run


# --- rc -------------------------------------------------------------------------------------


def _branch_version(flow: Flow, name: str) -> tuple[str, tuple[int, int], Version]:
    """On a release branch with consistent, final version files: (branch, series, version)."""
    root = flow.root
    branch = git.current_branch(root)
    wanted = flow.names.series_of_branch(branch)
    if branch is None or wanted is None:
        where = f"on {branch}" if branch else "on a detached HEAD"
        raise PreconditionError(
            f"{name}: you are {where}, not on a release branch ({TABLE}.branch = "
            f"{flow.rel.branch!r}). Release candidates are tagged on the release branch: "
            f"`git switch {flow.names.branch.template.format(major='X', minor='Y')}` (cut it "
            "with `mlrelease release cut --version X.Y` if it does not exist)."
        )
    flow.require_clean(name)
    source = str(flow.config.pyproject_path)
    current = str(versions.bumpversion_table(flow.config.pyproject, source)["current_version"])
    found, problems = versions.scan(root, flow.config.pyproject, source)
    stale = versions.mismatches(found, current)
    if problems or stale:
        lines = [f"{p.file}: {p.message}" for p in problems]
        lines += [f"{o.file}:{o.line} carries {o.value}" for o in stale]
        raise PreconditionError(
            f"{name}: the version files disagree (current_version {current}): "
            f"{'; '.join(lines)}. Fix them (`nox -s release_verify -- --only versions`)."
        )
    version = _version(current, "pyproject.toml")
    if (
        version.is_devrelease
        or version.is_prerelease
        or version.is_postrelease
        or series(version) != wanted
    ):
        raise PreconditionError(
            f"{name}: {branch} carries {version}; a release candidate needs the final version "
            f"of the {series_text(wanted)} series. Run `mlrelease release prepare --version "
            f"{wanted[0]}.{wanted[1]}.0 --execute` (or the patch version you are releasing)."
        )
    path = flow.config.path(flow.config.changelog)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if not changelog.has_section(text, version):
        raise PreconditionError(
            f"{name}: {flow.config.changelog} has no {version} section. Run `mlrelease release "
            f"prepare --version {version} --execute`, which writes it."
        )
    return branch, wanted, version


def plan_rc(flow: Flow, tag: str | None = None, push: bool = False) -> Plan:
    """``release rc``: the annotated tag vX.Y.Z-rcN (N = next free number) on HEAD."""
    root = flow.root
    plan = Plan("rc", root)
    branch, _, version = _branch_version(flow, "rc")
    if tag is not None:
        parsed = flow.names.parse_tag(tag)
        if parsed is None or parsed[1] is None:
            example = flow.names.rc_tag_for(version, 1)
            raise UserError(
                f"rc --tag {tag!r}: not a release-candidate tag of the configured pattern "
                f"{flow.rel.rc_tag!r} ({TABLE}.rc-tag), e.g. {example!r}. Omit --tag to use "
                "the next free number."
            )
        if parsed[0] != version:
            raise UserError(
                f"rc --tag {tag}: tags {parsed[0]}, but {branch} carries {version}. Omit --tag."
            )
    flow.check_tags("rc", version)
    tags = flow.tags()
    final = flow.names.final_tag(version)
    head = git.head(root)
    rcs = flow.rc_tags(version)
    at_head = sorted(n for n, (_, commit) in rcs.items() if commit == head)
    if final in tags and not at_head:
        raise PreconditionError(
            f"rc: {version} is already released ({final}); prepare the next patch version "
            f"(`mlrelease release prepare --version {version.major}.{version.minor}."
            f"{version.micro + 1} --execute`)."
        )
    changed: set[str] = set()
    if at_head:
        name = rcs[at_head[-1]][0]
        if tag is not None and tag != name:
            raise PreconditionError(
                f"rc: HEAD is already release candidate {name}; tag a new commit for {tag}."
            )
        plan.notes.append(f"HEAD ({_short(head)}) is already {name}.")
    else:
        number = max(rcs, default=0) + 1
        name = flow.names.rc_tag_for(version, number)
        if tag is not None and tag != name:
            taken = ", ".join(rcs[n][0] for n in sorted(rcs)) or "none"
            raise UserError(
                f"rc --tag {tag}: the next free release-candidate number is {number} ({name}; "
                f"taken: {taken}). Omit --tag, or pass --tag {name}."
            )
        if rcs:
            last_name, last_commit = rcs[max(rcs)]
            if not repo.is_ancestor(root, last_commit, "HEAD"):
                raise PreconditionError(
                    f"rc: HEAD does not contain {last_name} ({_short(last_commit)}); a new release "
                    f"candidate must build on the previous one. Was {branch} reset?"
                )
        subject = f"{version} release candidate {number}"
        plan.actions.append(
            git_action("tag", "tag", "-a", name, "-m", subject, "-m", state.RC_MARKER)
        )
        changed.add(f"refs/tags/{name}")
    if push:
        action = flow.push_action([branch, f"refs/tags/{name}"], changed)
        if action:
            plan.actions.append(action)
    return plan


def _resolve_argv(command: list[str]) -> list[str]:
    """``mlrelease ...`` runs with this interpreter (no PATH lookup); anything else as given."""
    import sys

    if command and command[0] == "mlrelease":
        return [sys.executable, "-m", "mlrelease", *command[1:]]
    return command


# --- cherry-picks ---------------------------------------------------------------------------


@dataclass
class Pick:
    commit: str
    subject: str
    picked: bool
    on_branch: str | None = None
    adapted: bool = False
    """Picked with changes: found by its ``(cherry picked from commit ...)`` line only."""


@dataclass
class CherryPicks:
    branch: str
    main: str
    series: str
    trailer: str
    picks: list[Pick] = field(default_factory=list)
    plan: Plan | None = None

    @property
    def missing(self) -> list[Pick]:
        return [p for p in self.picks if not p.picked]

    def markdown(self) -> str:
        picked = len(self.picks) - len(self.missing)
        lines = [
            f"## Cherry-picks for `{self.branch}`",
            "",
            f"Commits on `{self.main}` marked `{self.trailer}: {self.series}`, compared with "
            f"`{self.branch}` by patch identity (`git cherry`) and by the `(cherry picked from "
            "commit ...)` line: a rebased, hand-made or adapted pick counts as picked.",
            "",
        ]
        if not self.picks:
            return "\n".join([*lines, "No commit is marked for this release.", ""])
        lines += ["| | commit | subject | on the branch |", "|---|---|---|---|"]
        for p in self.picks:
            subject = p.subject.replace("|", "\\|")
            if p.picked:
                where = f"`{p.on_branch[:12]}`" if p.on_branch else "yes"
                how = "picked (adapted)" if p.adapted else "picked"
                lines.append(f"| - [x] {how} | `{p.commit[:12]}` | {subject} | {where} |")
            else:
                lines.append(
                    f"| - [ ] missing | `{p.commit[:12]}` | {subject} | "
                    f"`git cherry-pick -x {p.commit[:12]}` |"
                )
        lines += ["", f"**{picked} of {len(self.picks)} picked, {len(self.missing)} missing.**", ""]
        return "\n".join(lines)


def cherry_picks(flow: Flow, branch: str | None, push: bool = False) -> CherryPicks:
    """Fixes on main marked for the branch's series: picked (same patch id) or missing."""
    root = flow.root
    branch = branch or git.current_branch(root)
    wanted = flow.names.series_of_branch(branch)
    if branch is None or wanted is None:
        raise UserError(
            f"cherry-picks: {branch or 'a detached HEAD'} is not a release branch "
            f"({TABLE}.branch = {flow.rel.branch!r}); pass --branch release/X.Y."
        )
    if not repo.branch_exists(root, branch):
        raise PreconditionError(f"cherry-picks: no branch {branch}; cut it first.")
    main = flow.rel.main_branch
    text = series_text(wanted)
    result = CherryPicks(branch, main, text, flow.rel.trailer)
    candidates = repo.cherry(root, branch, main)
    base = repo.merge_base(root, branch, main)
    on_branch = repo.patch_ids(root, f"{base}..{branch}" if base else branch)
    by_trailer = repo.picked_from(root, f"{base}..{branch}" if base else branch)
    for equivalent, sha in candidates:
        subject, targets = repo.commit_info(root, sha, flow.rel.trailer)
        values = {v.strip() for t in targets for v in re.split(r"[,\s]+", t) if v.strip()}
        if text not in values:
            continue
        pick = Pick(sha, subject, equivalent)
        if not equivalent and sha in by_trailer:
            pick = Pick(sha, subject, True, by_trailer[sha], adapted=True)
        elif equivalent:
            mine = repo.patch_ids(root, f"{sha}^!")
            pick.on_branch = next((on_branch[p] for p in mine if p in on_branch), None)
        result.picks.append(pick)
    plan = Plan("cherry-picks", root)
    changed: set[str] = set()
    if result.missing:
        if git.current_branch(root) != branch:
            plan.actions.append(git_action("switch", "switch", branch))
        flow.require_clean("cherry-picks")
        for p in result.missing:
            plan.actions.append(
                git_action(
                    f"pick:{p.commit[:12]}",
                    "cherry-pick",
                    "-x",
                    p.commit,
                    undo=("cherry-pick", "--abort"),
                )
            )
        changed.add(branch)
    else:
        plan.notes.append(f"every fix marked {flow.rel.trailer}: {text} is on {branch}.")
    if push:
        action = flow.push_action([branch], changed)
        if action:
            plan.actions.append(action)
    result.plan = plan
    return result


# --- status ---------------------------------------------------------------------------------


def status(flow: Flow, version: str | None = None) -> dict[str, Any]:
    """Where the release stands; changes nothing. Plain data (``--json`` prints it)."""
    from mlrelease.release import promotion  # it builds on this module

    root, config, names = flow.root, flow.config, flow.names
    source = str(config.pyproject_path)
    current = str(versions.bumpversion_table(config.pyproject, source)["current_version"])
    parsed = _version(current, "pyproject.toml")
    target = parse_release(version) if version else Version(parsed.base_version)
    found, problems = versions.scan(root, config.pyproject, source)
    files = [{"file": o.file, "line": o.line, "version": o.value} for o in found]
    path = config.path(config.changelog)
    log_text = path.read_text(encoding="utf-8") if path.is_file() else ""
    branch = git.current_branch(root)
    release_branch = names.branch_for(series(target))
    remote_error = None
    try:
        flow.remote()
    except PreconditionError as exc:
        remote_error = str(exc)
        flow._remote, flow._remote_read = None, True
    rcs = flow.rc_tags(target)
    final = names.final_tag(target)
    tags = flow.tags()
    head = git.head(root)
    report_path = config.path(flow.rel.rc_report)
    verdict: dict[str, Any] = {"report": str(report_path), "verdict": None, "for_head": False}
    if report_path.is_file():
        try:
            r = report.read(report_path)
            verdict.update(
                verdict=r.verdict, commit=r.commit, for_head=r.commit == head, created=r.created
            )
        except UserError as exc:
            verdict["error"] = str(exc)
    next_steps: dict[str, str] = {}
    checks: list[tuple[str, Callable[[], Plan]]] = [
        ("cut", lambda: plan_cut(flow, series_text(series(target)))),
        ("prepare", lambda: plan_prepare(flow, str(target))),
        ("rc", lambda: plan_rc(flow)),
        ("promote", lambda: promotion.plan_promote(flow, None, str(target)).plan),
    ]
    for name, make in checks:
        try:
            plan = make()
            next_steps[name] = (
                "nothing to do" if plan.noop else "; ".join(a.line[2:] for a in plan.actions)
            )
        except UserError as exc:
            next_steps[name] = f"refused: {exc}"
    return {
        "version": current,
        "release": str(target),
        "consistent": not problems and not versions.mismatches(found, current),
        "files": files,
        "problems": [f"{p.file}: {p.message}" for p in problems],
        "changelog": {"file": config.changelog, "section": changelog.has_section(log_text, target)},
        "branch": branch,
        "head": head,
        "release_branch": {
            "name": release_branch,
            "exists": repo.branch_exists(root, release_branch),
        },
        "remote": {"name": flow.rel.remote, "error": remote_error},
        "tags": {"rc": [rcs[n][0] for n in sorted(rcs)], "final": final if final in tags else None},
        "next_rc": names.rc_tag_for(target, max(rcs, default=0) + 1),
        "release_verify": verdict,
        "next": next_steps,
    }
