"""Which jobs can run on which event, read from the workflow files: the rule that no job with
write permissions or publishing credentials can run on a pull request or a release candidate's
tag, for every trigger a workflow declares (those the rehearsal runs and those it cannot).

For each trigger, the events it admits are built from the repository's own tag and branch
templates (``[tool.mlrelease.release]`` of pyproject.toml) and matched against the trigger's
filters as GitHub matches them. A job can run when the ``if:`` conditions that can be evaluated
before the event (``expressions.py``) do not rule it out, on it and on the jobs it needs
(GitHub skips a job whose need was skipped, unless its ``if:`` calls a status function), and
when its calling job can run, for a job of a reusable workflow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomllib
import yaml

WRITE_SCOPES = (
    "actions",
    "attestations",
    "checks",
    "contents",
    "deployments",
    "id-token",
    "issues",
    "packages",
    "pages",
    "pull-requests",
    "security-events",
    "statuses",
)
PUBLISH_ACTIONS = ("pypa/gh-action-pypi-publish",)
UNTRUSTED = ("pull_request", "pull_request_target", "rc-tag")
"""The event kinds on which no job may hold write permissions or publishing credentials."""
RC_WRITERS = {
    ("release.yml", "candidate"): "stores the RC's files as assets of its GitHub pre-release "
    "and attests them (contents, id-token, attestations: write); publishes nothing to PyPI",
    ("release.yml", "bind"): "pushes the RC's bound manifest ref "
    "refs/mlrelease/bound/<rc>/<sha256> (contents: write); publishes nothing",
}
"""The jobs that write on an RC tag by design, and what they write: declared here, one by one."""


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        raise ValueError(f"{path}: not a workflow (no `jobs:` mapping)")
    return data


def triggers(data: Mapping[Any, Any]) -> dict[str, Any]:
    """The ``on:`` mapping (YAML 1.1 reads the key ``on`` as True)."""
    on = data.get(True, data.get("on")) or {}
    if isinstance(on, str):
        return {on: None}
    return {name: None for name in on} if isinstance(on, list) else dict(on)


def filter_regex(pattern: str) -> re.Pattern[str]:
    """A GitHub branch/tag filter pattern (``*``, ``**``, ``?``, ``+``, ``[...]``) as a regex."""
    out, at = [], 0
    while at < len(pattern):
        char = pattern[at]
        if pattern.startswith("**", at):
            out.append(".*")
            at += 2
            continue
        if char == "[":
            end = pattern.index("]", at)
            out.append(pattern[at : end + 1])
            at = end + 1
            continue
        out.append({"*": "[^/]*", "?": "?", "+": "+"}.get(char, re.escape(char)))
        at += 1
    return re.compile("".join(out))


def matches(patterns: Iterable[str], name: str) -> bool:
    """Whether ``name`` passes a filter list: the last pattern that matches decides, a ``!``
    pattern excluding (GitHub's rule)."""
    passed = False
    for pattern in patterns:
        negative = pattern.startswith("!")
        if filter_regex(pattern.removeprefix("!")).fullmatch(name):
            passed = not negative
    return passed


@dataclass(frozen=True)
class Event:
    """One event a trigger admits: its kind, how it is named, its ``github`` context."""

    kind: str
    """pull_request, pull_request_target, rc-tag, final-tag or branch"""
    trigger: str
    label: str
    github: Mapping[str, Any]


def templates(repository: Path) -> dict[str, Any]:
    """The repository's ``[tool.mlrelease.release]`` table (its tag and branch templates)."""
    table = tomllib.loads((repository / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(table.get("tool", {}).get("mlrelease", {}).get("release", {}))


def samples(repository: Path) -> dict[str, str]:
    """A final tag, an RC tag, the main branch and a release branch of this repository, made
    by its own templates ([tool.mlrelease.release] in pyproject.toml)."""
    release = templates(repository)
    fields = {"major": 1, "minor": 2, "patch": 3, "rc": 1}
    return {
        "final-tag": release.get("tag", "v{major}.{minor}.{patch}").format(**fields),
        "rc-tag": release.get("rc-tag", "v{major}.{minor}.{patch}-rc{rc}").format(**fields),
        "branch": release.get("main-branch", "main"),
        "release-branch": release.get("branch", "release/{major}.{minor}").format(**fields),
    }


def _push(kind: str, name: str) -> Event:
    tag = kind.endswith("tag")
    ref = f"refs/{'tags' if tag else 'heads'}/{name}"
    github = {
        "event_name": "push",
        "ref": ref,
        "ref_name": name,
        "ref_type": "tag" if tag else "branch",
        "head_ref": "",
        "base_ref": "",
    }
    what = {"rc-tag": "RC tag", "final-tag": "final tag"}.get(kind, "branch")
    kind = "branch" if kind == "release-branch" else kind
    return Event(kind, "push", f"push of {what} {name}", github)


def events(data: Mapping[Any, Any], names: Mapping[str, str]) -> list[Event]:
    """The events of ``names`` (``samples``) that the workflow's triggers admit; a pull
    request's head branch is the author's choice, so it is never known."""
    out = []
    for trigger, spec in triggers(data).items():
        spec = spec if isinstance(spec, dict) else {}
        if trigger in ("pull_request", "pull_request_target"):
            github = {
                "event_name": trigger,
                "ref": "refs/pull/7/merge",
                "ref_name": "7/merge",
                "ref_type": "branch",
                "base_ref": names["branch"],
            }
            out.append(Event(trigger, trigger, f"a {trigger} (head branch: any)", github))
        if trigger != "push":
            continue
        branchy = {"branches", "branches-ignore"} & spec.keys()
        taggy = {"tags", "tags-ignore"} & spec.keys()
        for kind, name in names.items():
            key = "tags" if kind.endswith("tag") else "branches"
            if (branchy or taggy) and not ({key, f"{key}-ignore"} & spec.keys()):
                continue  # only the other kind of ref triggers this workflow
            if key in spec and not matches(spec[key], name):
                continue
            if f"{key}-ignore" in spec and matches(spec[f"{key}-ignore"], name):
                continue
            out.append(_push(kind, name))
    return out


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", template)
    return re.compile(r"\d+".join(re.escape(p) for p in parts))


def event_of(repository: Path, name: str, payload: Mapping[str, Any]) -> Event:
    """The event of a rehearsal run (``name`` as act is told it, its payload), of the kind its
    ref makes it: an RC tag or a final tag by the repository's templates, else a branch."""
    if name in ("pull_request", "pull_request_target"):
        return events({"on": {name: None}}, samples(repository))[0]
    ref = str(payload.get("ref", ""))
    if not ref.startswith("refs/tags/"):
        return _push("branch", ref.removeprefix("refs/heads/"))
    tag = ref.removeprefix("refs/tags/")
    rc = _template_regex(templates(repository).get("rc-tag", "v{major}.{minor}.{patch}-rc{rc}"))
    return _push("rc-tag" if rc.fullmatch(tag) else "final-tag", tag)
