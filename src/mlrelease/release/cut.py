"""``release cut``: the release branch, its release-only edits, main to the next .dev.

:func:`plan_cut` is pure: it decides on a :class:`~.snapshot.ReleaseState` only."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from mlrelease.config import Config
from mlrelease.errors import ConfigError, PreconditionError
from mlrelease.release import rules, state
from mlrelease.release.config import (
    TABLE,
    ReleaseConfig,
    ReleaseEdit,
    parse_series,
    series,
    series_text,
)
from mlrelease.release.flow import bump_call, parse_version
from mlrelease.release.plan import Plan, begin_edit, call_action, end_edit, git_action
from mlrelease.release.snapshot import ReleaseState

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


def plan_cut(
    snap: ReleaseState,
    config: Config,
    version: str,
    from_ref: str | None = None,
    push: bool = False,
) -> Plan:
    """``release cut --version X.Y``: branch, release-only edits, main to the next .dev."""
    wanted = parse_series(version)
    root, rel = snap.root, config.table(ReleaseConfig)
    names = config.names
    branch = names.branch_for(wanted)
    plan = Plan("cut", root)
    rules.preflight(snap, "cut")
    restore, restored = rules.recovery(snap, "cut")
    plan.actions += restore
    main = rel.main_branch
    if snap.branch is None:
        at = state.short(snap.head)
        raise PreconditionError(
            f"cut: HEAD is detached (at {at}); cut switches branches and a commit made on a "
            f"detached HEAD would be left behind. Switch to a branch first (`git switch {main}`), "
            f"or pass --from {at} from a branch."
        )
    if snap.commit(f"refs/heads/{main}") is None:
        raise PreconditionError(
            f"cut: no local branch {main!r} ({TABLE}.main-branch); fetch it or set the key."
        )
    source = str(config.pyproject_path)
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
    if branch in snap.local.heads:
        plan.notes.append(f"{branch} exists ({state.short(snap.local.heads[branch])}).")
        base = branch
    else:
        remote = snap.origin()  # origin is the truth: someone may have cut it already
        if remote and branch in remote.heads:
            raise PreconditionError(
                f"cut: {remote.name} already has {branch} ({state.short(remote.heads[branch])}) "
                f"and this clone does not; take it instead of cutting another: `git switch "
                f"--track {remote.name}/{branch}` (after `git fetch {remote.name}`)."
            )
        if from_ref and snap.commit(from_ref) is None:
            raise PreconditionError(f"cut: --from {from_ref}: no such branch, tag or commit.")
        carried = parse_version(snap.version_at(start), start)
        if series(carried) != wanted:
            raise PreconditionError(
                f"cut: {start} carries {carried}, not a {version} version. Cut "
                f"--version {series_text(series(carried))}, or pass --from a commit of the "
                f"{version} development."
            )
        plan.actions.append(git_action("branch", "branch", branch, start))
        base = start

    # 2. main moves to the next development version
    main_version = parse_version(snap.version_at(main), main)
    # rc-model "bump" (ONNX): main carries the plain next version (1.23.0), no .dev.
    untagged = rel.rc_model == "bump"
    next_dev = f"{wanted[0]}.{wanted[1] + 1}.0" + ("" if untagged else ".dev0")
    bump_main = False
    if series(main_version) == wanted:
        # Trunk model: main carries the released version until the next bump; cutting a
        # maintenance branch from it is what moves main on.
        if not main_version.is_devrelease and rel.model != "trunk" and not untagged:
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
        text = snap.file_at(base, edit.file)
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
    position = snap.branch
    changed: set[str] = set()
    purpose = f"mlrelease release cut --version {version} --execute"
    if bump_main:
        if position != main:
            plan.actions.append(git_action("switch-main", "switch", main))
            position = main
        files = snap.files_to_bump(main)
        plan.actions += [
            begin_edit(root, files, purpose),
            call_action(
                "bump",
                f"bump-my-version: {main_version} -> {next_dev} in {', '.join(files)}",
                bump_call(config, next_dev),
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
        plan.actions.append(begin_edit(root, files, purpose))
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
        rules.require_clean(snap, "cut", restored, " and cut switches branches")
    if "branch" in {a.key for a in plan.actions}:
        changed.add(branch)
    if push:
        remote = rules.require_remote(snap, "cut", rel.remote)
        theirs = remote.heads.get(main)
        if theirs and not snap.is_ancestor(theirs, snap.local.heads[main]):
            raise PreconditionError(
                f"cut --push: {remote.name}/{main} has commits that local {main} lacks; run "
                f"`git switch {main} && git pull --ff-only` and re-run."
            )
        refs = [branch]
        # main is pushed for the version bump only: other unpushed commits on it are not cut's.
        if (
            main in changed
            or theirs is None
            or series(parse_version(snap.version_at(theirs), f"{remote.name}/{main}")) <= wanted
        ):
            refs.append(main)
        action = rules.push_action(snap, rel.remote, refs, changed)
        if action:
            plan.actions.append(action)
    return plan
