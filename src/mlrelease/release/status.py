"""``release status``: where the release stands; changes nothing. One snapshot is read and
every verb's pure planner previews its next step on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from packaging.version import Version
from rich.table import Table

from mlrelease import report, versions
from mlrelease.docs import published
from mlrelease.edges import git
from mlrelease.errors import UserError
from mlrelease.project import changelog
from mlrelease.release import candidates, cut, observe, promotion, repo, rules
from mlrelease.release.config import ReleaseConfig, parse_release, series, series_text
from mlrelease.release.flow import Flow, parse_version
from mlrelease.release.plan import (
    Plan,
)
from mlrelease.release.untagged import plan_rc_bump
from mlrelease.wheels.promote import PYPI_UPLOAD_URL

# --- status ---------------------------------------------------------------------------------


def status(flow: Flow, version: str | None = None) -> dict[str, Any]:
    """Where the release stands; changes nothing. Plain data (``--json`` prints it)."""
    root, config, names = flow.root, flow.config, flow.names
    source = str(config.pyproject_path)
    current = str(versions.bumpversion_table(config.pyproject, source)["current_version"])
    parsed = parse_version(current, "pyproject.toml")
    target = parse_release(version) if version else Version(parsed.base_version)
    found, problems = versions.scan(root, config.pyproject, source)
    files = [{"file": o.file, "line": o.line, "version": o.value} for o in found]
    path = config.path(config.changelog)
    log_text = path.read_text(encoding="utf-8") if path.is_file() else ""
    branch = git.current_branch(root)
    release_branch = names.branch_for(series(target))
    snap = observe.base(config)  # one snapshot for every verb previewed below
    remote_error, snap.remote_error = snap.remote_error, None
    rcs = rules.rc_tags(snap, names, target)
    final = names.final_tag(target)
    tags = snap.tags()
    head = snap.head
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
    cut_version = series_text(series(target))

    def plan_cut() -> Plan:
        observe.for_cut(config, cut_version, None, snap)
        return cut.plan_cut(snap, config, cut_version)

    def plan_prepare() -> Plan:
        observe.for_prepare(config, str(target), snap)
        return candidates.plan_prepare(snap, config, str(target))

    untagged = (
        config.table(ReleaseConfig).rc_model == "bump"
    )  # RCs are version bumps: no tag to promote

    def plan_rc() -> Plan:
        if untagged:
            return plan_rc_bump(flow)
        observe.for_rc(config, snap)
        return candidates.plan_rc(snap, config)

    def plan_promote() -> Plan:
        if untagged:
            return promotion.plan_untagged_final(flow, None, str(target), False, False).plan
        observe.for_promote(config, None, str(target), None, False, None, PYPI_UPLOAD_URL, snap)
        return promotion.plan_promote(snap, config, None, str(target)).plan

    checks: list[tuple[str, Callable[[], Plan]]] = [
        ("cut", plan_cut),
        ("prepare", plan_prepare),
        ("rc", plan_rc),
        ("promote", plan_promote),
    ]
    if flow.rel.model == "trunk":  # releases are tagged on main: no branch to cut
        checks = checks[1:]
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
        "docs": published.state(config).to_dict(),
    }


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
            f"{data['release_branch']['name']} "
            + ("exists" if data["release_branch"]["exists"] else "does not exist"),
        ),
        (
            "tags",
            ", ".join(
                data["tags"]["rc"] + ([data["tags"]["final"]] if data["tags"]["final"] else [])
            )
            or "none",
        ),
        ("next RC", data["next_rc"]),
        ("release_verify", _verdict(data["release_verify"])),
    ]
    if data["remote"]["error"]:
        rows.append(("remote", data["remote"]["error"]))
    rows.append(("docs", published.describe(data["docs"])))
    for name, what in data["next"].items():
        rows.append((f"next: {name}", what))
    for what, state in rows:
        shown.add_row(what, str(state))
    return shown


def _verdict(info: dict[str, Any]) -> str:
    if info.get("error"):
        return str(info["error"])
    if info["verdict"] is None:
        return f"no report at {info['report']}"
    which = "HEAD" if info["for_head"] else f"{(info.get('commit') or '?')[:12]}, not HEAD"
    return f"{info['verdict']} for {which} ({info.get('created', '')})"
