"""``release prepare`` (the version-bump commit with its changelog section) and ``release rc``
(the annotated, mlrelease-made release-candidate tag)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from packaging.version import Version

from mlrelease import changelog, git, versions
from mlrelease.config import load
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import repo, state
from mlrelease.release.flow import Flow, bump_call, parse_version, version_files
from mlrelease.release.plan import (
    Plan,
    begin_edit,
    call_action,
    end_edit,
    git_action,
    recovery,
)
from mlrelease.release.settings import (
    TABLE,
    Names,
    parse_release,
    series,
    series_text,
)

# --- prepare (the version-bump commit with its changelog section) ---------------------------


def plan_prepare(flow: Flow, version: str, push: bool = False) -> Plan:
    """``release prepare --version X.Y.Z``: set the release version and write its changelog."""
    target = parse_release(version)
    root = flow.root
    # Trunk model: a release is prepared, tagged and promoted on main itself.
    trunk = flow.rel.model == "trunk"
    branch = flow.rel.main_branch if trunk else flow.names.branch_for(series(target))
    plan = Plan("prepare", root)
    restore, restored = recovery(root, "prepare")
    plan.actions += restore
    if not repo.branch_exists(root, branch):
        raise PreconditionError(
            f"prepare: there is no branch {branch}; cut it first: "
            f"`mlrelease release cut --version {series_text(series(target))} --execute`."
        )
    carried = parse_version(repo.version_at(root, branch), branch)
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
                    "bump", f"bump-my-version: {carried} -> {target}", bump_call(root, str(target))
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
            bump=Names.of(config.release, str(config.pyproject_path)).final_tag(target),
            repository_url=changelog.repository_url(config.pyproject),
            other_changes=config.changelog_other_changes,
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
    if wanted is None and branch == flow.rel.main_branch and flow.rel.model == "trunk":
        # Trunk model: main carries the release; its series is the version's.
        table = versions.bumpversion_table(flow.config.pyproject, str(flow.config.pyproject_path))
        wanted = series(parse_version(str(table["current_version"]), "pyproject.toml"))
    if branch is None or wanted is None:
        where = f"on {branch}" if branch else "on a detached HEAD"
        example = flow.names.branch.template.format(major="X", minor="Y", patch="Z")
        raise PreconditionError(
            f"{name}: you are {where}, not on a release branch ({TABLE}.branch = "
            f"{flow.rel.branch!r}). Release candidates are tagged on the release branch: "
            f"`git switch {example}` (cut it "
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
    version = parse_version(current, "pyproject.toml")
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
    if flow.rel.rc_model == "bump":
        from mlrelease.release.untagged import plan_rc_bump

        return plan_rc_bump(flow, tag, push)
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
        plan.notes.append(f"HEAD ({state.short(head)}) is already {name}.")
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
                    f"rc: HEAD does not contain {last_name} ({state.short(last_commit)}); a new "
                    f"release candidate must build on the previous one. Was {branch} reset?"
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
