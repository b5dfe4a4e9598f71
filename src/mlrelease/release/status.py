"""``release status``: where the release stands; changes nothing. One snapshot is read and
every verb's pure planner previews its next step on it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from packaging.version import Version
from rich.table import Table

from mlrelease import report, version_files
from mlrelease.config import Config
from mlrelease.docs import published
from mlrelease.errors import UserError
from mlrelease.project import changelog
from mlrelease.release import asks, branch_edits, bump_model, candidates, cut, prepare, rules
from mlrelease.release.checklist.fitting import OWN_COMMANDS, steps_for
from mlrelease.release.checklist.steps import command_line
from mlrelease.release.config import (
    ReleaseConfig,
    parse_release,
    series,
    series_text,
    version_model,
)
from mlrelease.release.plan import Plan
from mlrelease.release.promotion import final, gatekeeper
from mlrelease.release.world import queries, reader
from mlrelease.release.world.snapshot import World, parse_version

# --- status ---------------------------------------------------------------------------------


def _previews(world: World, config: Config, target: Version, at_rc: str | None) -> dict[str, str]:
    """What each verb would do next, planned on the one world (or why it refuses). With HEAD a
    release candidate (``at_rc``), no new commit is proposed: it would need another RC."""
    rel = config.table(ReleaseConfig)
    untagged = rel.rc_model == "bump"  # RCs are version bumps: no tag to promote
    cut_version = series_text(series(target))
    checks: list[tuple[str, Callable[[], Plan]]] = [
        ("cut", lambda: cut.plan_cut(world, config, cut_version)),
        ("prepare", lambda: prepare.plan_prepare(world, config, str(target))),
        (
            "rc",
            (lambda: bump_model.plan_rc_bump(world, config))
            if untagged
            else (lambda: candidates.plan_rc(world, config)),
        ),
        (
            "promote",
            (lambda: bump_model.plan_final(world, config, str(target)))
            if untagged
            else (lambda: final.plan_promote(world, config).plan),
        ),
    ]
    if rel.model == "trunk":  # releases are tagged on main: no branch to cut
        checks = checks[1:]
    found = {}
    for name, make in checks:
        try:
            plan = make()
            found[name] = (
                "nothing to do" if plan.noop else "; ".join(a.line[2:] for a in plan.actions)
            )
            if at_rc and name == "prepare" and not plan.noop:
                found[name] = _after_rc(config, target, at_rc)
        except UserError as exc:
            found[name] = f"refused: {exc}"
    return found


class _Values(dict[str, str]):
    """Placeholder values; a placeholder without one is shown as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _after_rc(config: Config, target: Version, at_rc: str) -> str:
    """The proposal with HEAD a release candidate: verify it, bind its files and promote it,
    each with the command the project's checklist runs for that step (the project's own where
    its ``checklist`` declares one, else the session, task or mlrelease command it has)."""
    rel, names = config.table(ReleaseConfig), config.names
    values = _Values(
        version=str(target),
        series=series_text(series(target)),
        branch=names.branch_for(series(target)),
        final_tag=names.final_tag(target),
        rc_tag=at_rc,
        index=rel.index,
        rc_index=rel.rc_index,
        artifacts=rel.artifacts,
    )
    steps = {step.id: step for step in steps_for(config) if step.run}

    def shown(ids: tuple[str, ...], default: list[str]) -> str:
        argv = next((steps[i].run for i in ids if i in steps), default)
        return command_line([word.format_map(values) for word in argv])

    verify = shown(("rc-verify", "verify"), OWN_COMMANDS["rc-verify"])
    bind = shown(("bind",), ["mlrelease", "release", "bind", "--rc", at_rc, "--execute", "--push"])
    promote = shown(("promote",), ["mlrelease", "release", "promote", "--rc", at_rc])
    return (
        f"not proposed: HEAD is {at_rc}, and a commit now would need another release candidate. "
        f"Next: verify {at_rc} (`{verify}`), bind its files (`{bind}`), then `{promote}`."
    )


def _edits(world: World, config: Config, version: str) -> dict[str, Any] | None:
    """The declared release-only edits and those the existing release branch lacks."""
    if config.table(ReleaseConfig).model == "trunk":
        return None
    try:
        missing = branch_edits.missing_edits(world, config, version)
        command = branch_edits.cut_command(world, config, version)
    except UserError as exc:
        return {"version": version, "missing": None, "error": str(exc)}
    if missing is None:
        return None
    return {"version": version, "missing": missing, "error": None, "command": command}


def _release_of(config: Config, carried: Version) -> Version:
    """The release the files are heading for: their own version's, or under
    ``version-source = "tag"`` the first of their series not yet tagged final."""
    model = version_model(config)
    if not model.from_tag:
        return Version(carried.base_version)
    parsed = filter(None, map(config.names.read_tag, queries.tags(config.root)))
    return model.release_of(carried, [v for v, rc in parsed if rc is None])


def status(config: Config, version: str | None = None) -> dict[str, Any]:
    """Where the release stands; changes nothing. Plain data (``--json`` prints it)."""
    root, rel = config.root, config.table(ReleaseConfig)
    names = config.names
    source = str(config.pyproject_path)
    current = str(version_files.bumpversion_table(config.pyproject, source)["current_version"])
    parsed = parse_version(current, "pyproject.toml")
    target = parse_release(version) if version else _release_of(config, parsed)
    found, problems = version_files.scan(root, config.pyproject, source)
    files = [{"file": o.file, "line": o.line, "version": o.value} for o in found]
    path = config.path(config.changelog)
    log_text = path.read_text(encoding="utf-8") if path.is_file() else ""
    release_branch = names.branch_for(series(target))
    wanted: list[reader.Ask] = [
        asks.Cut(series_text(series(target))),
        asks.Prepare(str(target)),
        asks.Bumped() if rel.rc_model == "bump" else asks.Candidate(),
    ]
    if rel.rc_model != "bump":
        wanted.append(asks.Release(version=str(target), known_index=True))
    world = reader.read(config, *wanted)  # one world for every verb previewed below
    remote_error = world.remote_error
    world = dataclasses.replace(world, remote_error=None)
    rcs = rules.rc_tags(world, names, target)
    final_tag = names.release_tag(target, world.tags()) or names.final_tag(target)
    released = rules.released_reason(world, config, target)
    report_path = config.path(rel.rc_report)
    verdict: dict[str, Any] = {"report": str(report_path), "verdict": None, "for_head": False}
    if report_path.is_file():
        try:
            r = report.read(report_path)
            verdict.update(
                verdict=r.verdict,
                commit=r.commit,
                for_head=r.commit == world.head,
                created=r.created,
            )
        except UserError as exc:
            verdict["error"] = str(exc)
    return {
        "version": current,
        "release": str(target),
        "consistent": not problems and not version_files.mismatches(found, current),
        "files": files,
        "problems": [f"{p.file}: {p.message}" for p in problems],
        "changelog": {"file": config.changelog, "section": changelog.has_section(log_text, target)},
        "branch": world.branch,
        "head": world.head,
        "release_branch": {
            "name": release_branch,
            "exists": queries.branch_exists(root, release_branch),
            "on_remote": world.remote is not None and release_branch in world.remote.heads,
        },
        "remote": {"name": rel.remote, "error": remote_error},
        "tags": {
            "rc": [rcs[n][0] for n in sorted(rcs)],
            "rebuilds": _rebuilds(rcs),
            "final": final_tag if final_tag in world.tags() else None,
            "local_only": [
                n for n in world.local_only_tags() if (names.read_tag(n) or (None,))[0] == target
            ],
        },
        # Invariant (i): a released version is offered no release candidate.
        "released": released,
        "next_rc": None if released else names.rc_tag_for(target, max(rcs, default=0) + 1),
        "release_edits": _edits(world, config, series_text(series(target))),
        "release_verify": verdict,
        "index": _held(world, config),
        "next": _previews(world, config, target, _at_head(rcs, world.head)),
        "docs": published.state(config).to_dict(),
    }


def _at_head(rcs: dict[int, tuple[str, str]], head: str | None) -> str | None:
    """The newest release candidate tagged on HEAD, if any."""
    return next((rcs[n][0] for n in sorted(rcs, reverse=True) if rcs[n][1] == head), None)


def _rebuilds(rcs: dict[int, tuple[str, str]]) -> dict[str, str]:
    """RC tag -> the earlier RC tag on the same commit: the candidate is a rebuild of it."""
    first: dict[str, str] = {}
    found = {}
    for number in sorted(rcs):
        name, commit = rcs[number]
        if commit in first:
            found[name] = first[commit]
        first.setdefault(commit, name)
    return found


def table(data: dict[str, Any]) -> Table:
    """The status as a two-column table (``release status`` without ``--json``)."""
    shown = Table(title=f"release {data['release']}", title_justify="left", show_header=False)
    shown.add_column("what", style="bold")
    shown.add_column("state", overflow="fold")
    files = ", ".join(f"{f['file']}:{f['line']}={f['version']}" for f in data["files"])
    consistent = "consistent" if data["consistent"] else "INCONSISTENT"
    rows: list[tuple[str, Any]] = [
        (
            "version",
            f"{data['version']} ({consistent}): {files}"
            + ("; " + "; ".join(data["problems"]) if data["problems"] else ""),
        ),
        (
            "changelog",
            f"{data['changelog']['file']}: "
            + ("has a section" if data["changelog"]["section"] else "no section")
            + f" for {data['release']}",
        ),
        ("branch", f"{data['branch'] or '(detached)'} at {(data['head'] or '?')[:12]}"),
        (
            "release branch",
            _where(data["release_branch"], data["remote"]["name"]),
        ),
        (
            "tags",
            _tags_line(data["tags"], data["remote"]["name"]),
        ),
        ("next RC", data["next_rc"] or f"none: {data['released']}"),
        ("release_verify", _verdict(data["release_verify"])),
    ]
    if data.get("release_edits"):
        rows.append(("release-only edits", _edits_line(data)))
    if data["remote"]["error"]:
        rows.append(("remote", data["remote"]["error"]))
    if data.get("index"):
        rows.append(("index", _index_line(data["index"])))
    rows.append(("docs", published.describe(data["docs"])))
    for name, what in data["next"].items():
        rows.append((f"next: {name}", what))
    for what, state in rows:
        shown.add_row(what, str(state))
    return shown


def _tags_line(tags: dict[str, Any], remote: str) -> str:
    """The release's tags that decide, and those only this clone has (named, never counted)."""
    rebuilds = tags.get("rebuilds", {})
    rcs = [f"{n} (a rebuild of {rebuilds[n]})" if n in rebuilds else n for n in tags["rc"]]
    shown = ", ".join(rcs + ([tags["final"]] if tags["final"] else [])) or "none"
    if tags.get("local_only"):
        shown += (
            f"; in this clone and not on {remote} as this clone has them (absent there, or "
            f"another object; they decide nothing): {', '.join(tags['local_only'])}"
        )
    return shown


def _held(world: World, config: Config) -> dict[str, Any] | None:
    """What the index the RC's files go to holds against its bound manifest (None: no index
    known); missing and foreign files by name."""
    held = world.promote.index if world.promote else None
    if held is None or world.target is None or world.target.rc is None:
        return None
    found: dict[str, Any] = {"url": held.url, "source": held.source, "error": held.error}
    found["files"] = [f.filename for f in held.files]
    try:
        _, tag, _ = gatekeeper.candidate(world, config, config.names, "status")
        manifest = gatekeeper.bound(world, world.target.rc, str(tag.commit), "status")
    except UserError as exc:
        found["manifest"] = str(exc)
        return found
    compared = gatekeeper.compare(held, manifest)
    found.update(dataclasses.asdict(compared), bound=len(manifest.files))
    return found


def _index_line(info: dict[str, Any]) -> str:
    where = f"{info['url']} ({info['source']})"
    if info["error"]:
        return f"{where}: {info['error']}"
    if "bound" not in info:
        return f"{where}: {len(info['files'])} files of this version; {info.get('manifest', '')}"
    parts = [
        f"{where}: holds {info['bound'] - len(info['missing'])} of {info['bound']} bound files"
    ]
    for key in ("missing", "foreign", "differ", "yanked", "odd", "metadata"):
        if info[key]:
            parts.append(f"{key.upper()}: {', '.join(info[key])}")
    return "; ".join(parts)


def _edits_line(data: dict[str, Any]) -> str:
    edits, branch = data["release_edits"], data["release_branch"]["name"]
    if edits["error"]:
        return str(edits["error"])
    if not edits["missing"]:
        return f"all on {branch}"
    return (
        f"MISSING on {branch}: {'; '.join(edits['missing'])}. `{edits['command']} --execute` "
        "commits them on the branch."
    )


def _verdict(info: dict[str, Any]) -> str:
    if info.get("error"):
        return str(info["error"])
    if info["verdict"] is None:
        return f"no report at {info['report']}"
    which = "HEAD" if info["for_head"] else f"{(info.get('commit') or '?')[:12]}, not HEAD"
    return f"{info['verdict']} for {which} ({info.get('created', '')})"


def _where(branch: dict[str, Any], remote: str) -> str:
    """``release/0.7 exists``, or where it is when this clone lacks it (origin is the truth)."""
    name, here, there = branch["name"], branch["exists"], branch["on_remote"]
    if here or not there:
        return f"{name} {'exists' if here else 'does not exist'}"
    return f"{name} exists on {remote}, not in this clone (`git switch --track {remote}/{name}`)"
