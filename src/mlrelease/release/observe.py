"""Reading the :class:`~.snapshot.ReleaseState` a command decides on (the edge: git and files).

Read once per command, before the planner runs: local and origin refs, the checkout, and the
facts at the refs the command's arguments name (versions, files, version files, ancestry of
the branches it may push, the patches of a cherry-pick range). ``release status`` reads one
snapshot and extends it for each verb it previews.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path

from packaging.version import InvalidVersion, Version

from mlrelease import report, versions
from mlrelease.config import Config
from mlrelease.edges import git, journal
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release import manifest, repo, rules, state
from mlrelease.release.config import ReleaseConfig, parse_release, parse_series, series
from mlrelease.release.picks import OVERRIDE
from mlrelease.release.snapshot import (
    BindFacts,
    Journal,
    PickFacts,
    PromoteFacts,
    ReleaseState,
    WorkTree,
)
from mlrelease.wheels import artifacts, published


def base(config: Config) -> ReleaseState:
    """The checkout and the local and origin refs (origin's objects fetched, no ref moved)."""
    root = config.root
    if not git.is_repo(root):
        raise UserError(f"{root} is not a git repository; the release flow needs one.")
    git_dir = repo.git_dir(root)
    lock = git_dir / "index.lock"
    snap = ReleaseState(
        root=root,
        local=state.read_local(root),
        branch=git.current_branch(root),
        head=git.head(root),
        dirty=tuple(git.dirty_files(root)),
        busy=state.in_progress(git_dir),
        lock=str(lock) if lock.exists() else None,
    )
    if journal.journal_path(root).exists():
        snap.journal = Journal(str(journal.journal_path(root)), journal.read_journal(root))
    try:
        snap.remote = state.read_origin(root, config.table(ReleaseConfig).remote)
    except PreconditionError as exc:
        snap.remote_error = str(exc)
    return snap


def _names(config: Config) -> Names:
    return config.names


def _commit(snap: ReleaseState, ref: str) -> str | None:
    if ref not in snap.commits:
        snap.commits[ref] = repo.commit_of(snap.root, ref)
    return snap.commits[ref]


def _version(snap: ReleaseState, ref: str) -> None:
    if ref in snap.versions or ref in snap.unreadable:
        return
    try:
        snap.versions[ref] = repo.version_at(snap.root, ref)
    except PreconditionError as exc:
        snap.unreadable[ref] = str(exc)


def _file(snap: ReleaseState, ref: str, path: str) -> None:
    if (ref, path) not in snap.files:
        snap.files[(ref, path)] = repo.show(snap.root, ref, path)


def version_files(snap: ReleaseState, ref: str) -> None:
    """pyproject.toml and every file listed in ``[[tool.bumpversion.files]]`` at ``ref``."""
    if ref in snap.version_files or _commit(snap, ref) is None:
        return
    try:
        table = repo.pyproject_at(snap.root, ref).get("tool", {}).get("bumpversion", {})
    except PreconditionError:
        table = {}
    tracked = git.run(snap.root, "ls-tree", "-r", "--name-only", ref).splitlines()
    files = {"pyproject.toml"}
    for entry in table.get("files", []) if isinstance(table, Mapping) else []:
        if isinstance(entry.get("filename"), str):
            files.add(entry["filename"])
        elif isinstance(entry.get("glob"), str):
            files.update(fnmatch.filter(tracked, entry["glob"]))
    snap.version_files[ref] = tuple(sorted(files))


def _ancestry(snap: ReleaseState, a: str | None, b: str | None) -> None:
    if a and b and a != b and (a, b) not in snap.ancestry:
        snap.ancestry[(a, b)] = bool(repo.commit_of(snap.root, a)) and repo.is_ancestor(
            snap.root, a, b
        )


def pushable(snap: ReleaseState, branches: list[str]) -> None:
    """Ancestry of origin's tip of each branch in the local one (may the push go ahead?)."""
    remote = snap.remote
    for name in branches:
        theirs = remote.heads.get(name) if remote else None
        _ancestry(snap, theirs, snap.local.heads.get(name))


def for_cut(config: Config, version: str, from_ref: str | None, snap: ReleaseState) -> None:
    """What ``release cut --version X.Y [--from REF]`` decides on."""
    rel = config.table(ReleaseConfig)
    main = rel.main_branch
    branch = _names(config).branch_for(parse_series(version))
    start = from_ref or main
    _commit(snap, f"refs/heads/{main}")
    if from_ref:
        _commit(snap, from_ref)
    has_start = _commit(snap, start) is not None
    if has_start:
        _version(snap, start)
    if snap.local.heads.get(main):
        _version(snap, main)
        version_files(snap, main)
    base_ref = branch if branch in snap.local.heads else start
    if branch in snap.local.heads or has_start:
        for edit in rel.edits:
            _file(snap, base_ref, edit.file)
    theirs = snap.remote.heads.get(main) if snap.remote else None
    if theirs:
        _version(snap, theirs)
    pushable(snap, [main, branch])


def for_prepare(config: Config, version: str, snap: ReleaseState) -> None:
    """What ``release prepare --version X.Y.Z`` decides on."""
    target = parse_release(version)
    rel = config.table(ReleaseConfig)
    branch = rel.main_branch if rel.model == "trunk" else _names(config).branch_for(series(target))
    if branch in snap.local.heads:
        _version(snap, branch)
        _file(snap, branch, config.changelog)
        version_files(snap, branch)
    pushable(snap, [branch])


def for_rc(config: Config, snap: ReleaseState) -> None:
    """What ``release rc`` decides on: the checked-out files and the RCs HEAD must contain."""
    source = str(config.pyproject_path)
    current = str(versions.bumpversion_table(config.pyproject, source)["current_version"])
    found, problems = versions.scan(config.root, config.pyproject, source)
    stale = [f"{p.file}: {p.message}" for p in problems]
    stale += [f"{o.file}:{o.line} carries {o.value}" for o in versions.mismatches(found, current)]
    path = config.path(config.changelog)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    snap.worktree = WorkTree(current, tuple(stale), text)
    try:
        version: Version | None = Version(current)
    except InvalidVersion:
        version = None
    names = _names(config)
    tags = {n: t.commit or t.object for n, t in snap.local.tags.items()}
    if snap.remote:
        tags.update(snap.remote.tags)
    for name, commit in tags.items():
        parsed = names.parse_tag(name)
        if version is not None and parsed and parsed[0] == version:
            _ancestry(snap, commit, snap.head)
    if snap.branch:
        pushable(snap, [snap.branch])


def for_picks(config: Config, branch: str | None, snap: ReleaseState) -> None:
    """What ``release cherry-picks`` decides on: main's commits against the branch's."""
    root, main = snap.root, config.table(ReleaseConfig).main_branch
    branch = branch or snap.branch
    if branch is None or branch not in snap.local.heads:
        return
    trailer = config.table(ReleaseConfig).trailer
    base_commit = repo.merge_base(root, branch, main)
    span = f"{base_commit}..{branch}" if base_commit else branch
    candidates = tuple(repo.cherry(root, branch, main))
    info: dict[str, tuple[str, tuple[str, ...]]] = {}
    own: dict[str, tuple[str, ...]] = {}
    for equivalent, sha in candidates:
        subject, values = repo.commit_info(root, sha, trailer)
        info[sha] = (subject, tuple(values))
        if equivalent:
            own[sha] = tuple(repo.patch_ids(root, f"{sha}^!"))
    snap.picks = PickFacts(
        candidates=candidates,
        info=info,
        on_branch=repo.patch_ids(root, span),
        own_patches=own,
        by_trailer=repo.picked_from(root, span),
        marked=repo.overrides(root, span, OVERRIDE),
    )
    pushable(snap, [branch])


def rc_reachability(config: Config, rc: str, snap: ReleaseState) -> None:
    """Whether the RC tag ``rc`` (origin's, or the local one without a remote) is on its
    branch's tip there, and the version committed at it."""
    parsed = _names(config).parse_tag(rc)
    if parsed is None:
        return
    rel = config.table(ReleaseConfig)
    branch = (
        rel.main_branch if rel.model == "trunk" else _names(config).branch_for(series(parsed[0]))
    )
    side = snap.remote.refs if snap.remote else snap.local
    tag = side.tags.get(rc)
    if tag is not None and tag.commit:
        _ancestry(snap, tag.commit, side.heads.get(branch))
        _version(snap, tag.commit)


def for_promote(
    config: Config,
    rc: str | None,
    version: str | None,
    report_path: Path | None,
    publish: bool,
    artifacts: str | None,
    repository_url: str,
    snap: ReleaseState,
) -> None:
    """What ``release promote`` decides on: the RC's reachability, its verdict, its bound
    manifests, the files to publish and (publishing) what the index holds."""
    names, rel = _names(config), config.table(ReleaseConfig)
    if rc is None and version is not None and snap.remote_error is None:
        try:
            found = rules.rc_tags(snap, names, parse_release(version))
        except UserError:
            found = {}
        rc = found[max(found)][0] if found else None
    blobs: dict[str, str] = {}
    if rc is not None:
        rc_reachability(config, rc, snap)
        blobs = _manifests(snap, rc)
    path = report_path or config.path(rel.rc_report)
    verdict, error = None, None
    if path.is_file():
        try:
            verdict = report.read(path)
        except UserError as exc:
            error = str(exc)
    folder = config.path(artifacts or rel.artifacts)
    held = None
    if publish:
        held = published.index_files(
            repository_url, str(config.pyproject.get("project", {}).get("name", ""))
        )
    snap.promote = PromoteFacts(
        report_path=str(path),
        report=verdict,
        report_error=error,
        blobs=blobs,
        folder=str(folder),
        found=manifest.entries(folder) if folder.is_dir() else (),
        index=held,
        index_url=published.simple_url(repository_url),
    )


def _manifests(snap: ReleaseState, rc: str) -> dict[str, str]:
    """blob SHA -> text of the manifests bound to ``rc`` here and on origin."""
    remote = snap.remote
    shas = {snap.local.manifests.get(rc), remote.refs.manifests.get(rc) if remote else None}
    return {sha: git.run(snap.root, "cat-file", "blob", sha) + "\n" for sha in shas if sha}


def for_bind(config: Config, rc: str, folder: str | None, snap: ReleaseState) -> None:
    """What ``release bind`` decides on: the RC, the built files and the manifests bound."""
    rc_reachability(config, rc, snap)
    side = snap.remote.refs if snap.remote else snap.local
    tag = side.tags.get(rc)
    path = config.path(folder or config.table(ReleaseConfig).artifacts)
    findings = tuple(str(f) for f in artifacts.verify_sums(path)) if path.is_dir() else ()
    found = manifest.entries(path) if path.is_dir() else ()
    made_blob = None
    if tag is not None and tag.commit:
        text = manifest.Manifest(rc, tag.commit, found).text()
        made_blob = git.run(snap.root, "hash-object", "--stdin", input=text)
    snap.bind = BindFacts(str(path), findings, found, made_blob, _manifests(snap, rc))


def journal_state(root: Path) -> ReleaseState:
    """HEAD, the dirty files and the edit journal: what :func:`.rules.recovery` decides on."""
    snap = ReleaseState(root, head=git.head(root), dirty=tuple(git.dirty_files(root)))
    if journal.journal_path(root).exists():
        snap.journal = Journal(str(journal.journal_path(root)), journal.read_journal(root))
    return snap
