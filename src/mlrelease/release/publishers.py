"""The project's own publish machinery, read from its GitHub workflows (pure: texts in): which
workflow publishes, with what (``pypa/gh-action-pypi-publish``, ``twine upload``...), to which
index, and on which event (the tags it filters, a published GitHub release, a branch push),
each publishing job's ``if:`` and those of the jobs it needs evaluated for that event
(:mod:`.expressions`).

``mlrelease init`` proposes the RC model under which no RC tag publishes a final version (or
says why none can); ``release rc`` refuses a tag the project's workflow would publish as a
final release; the checklist never publishes where the project's workflow already does."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mlrelease.release import expressions

PYPI = "https://upload.pypi.org/legacy/"
TEST_PYPI = "https://test.pypi.org/legacy/"
WORKFLOWS = ".github/workflows/*.y*ml"
"""Where a project's workflows are (a glob, as release-only edits spell files)."""
_GLOB = re.compile(r"[*?+\[!]")
_PUBLISHERS = ("uv publish", "poetry publish", "flit publish", "hatch publish", "maturin publish")


@dataclass(frozen=True)
class Publisher:
    """One job of one workflow that uploads distributions, and when it runs."""

    workflow: str
    index: str
    how: str
    tags: tuple[str, ...] = ()
    """The ``on: push: tags`` filters (``*`` when any tag push triggers it)."""
    tags_ignore: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()
    """The ``on: push: branches`` filters (``*`` when any branch push triggers it)."""
    release: bool = False
    """A published GitHub release triggers it."""
    skip_existing: bool = False
    """It skips the files the index holds already (``skip-existing``): run after another
    publisher, it publishes nothing twice."""
    conditions: tuple[str, ...] = field(default=(), compare=False)
    """The ``if:`` of the job and of every job it needs."""

    @property
    def where(self) -> str:
        return {PYPI: "PyPI", TEST_PYPI: "TestPyPI"}.get(self.index, self.index)

    def runs(self, context: Mapping[str, str]) -> bool:
        """Whether the job may run for the event ``context`` describes (unknown: it may)."""
        return all(expressions.evaluate(c, context) is not False for c in self.conditions)

    def on_tag(self, tag: str) -> bool:
        """Whether pushing ``tag`` may run the job."""
        triggered = any(_matches(f, tag) for f in self.tags) and not any(
            _matches(f, tag) for f in self.tags_ignore
        )
        return triggered and self.runs(expressions.push_of(f"refs/tags/{tag}"))

    def on_branch(self, branch: str) -> bool:
        """Whether pushing a commit to ``branch`` may run the job."""
        triggered = any(_matches(f, branch) for f in self.branches)
        return triggered and self.runs(expressions.push_of(f"refs/heads/{branch}"))

    @property
    def on_release(self) -> bool:
        return self.release and self.runs(expressions.RELEASE_EVENT)

    def trigger(self) -> str:
        """When it publishes, in words (``on tags v*``, ``when a GitHub release is published``)."""
        said = []
        tags = [f for f in self.tags if self.runs(expressions.push_of(f"refs/tags/{_sample(f)}"))]
        if tags:
            said.append(f"on tags {', '.join(tags)}")
        if self.release:
            said.append("when a GitHub release is published")
        pushed = [b for b in self.branches if _GLOB.search(b) or self.on_branch(b)]
        if pushed:
            said.append(f"on pushes to {', '.join(pushed)}")
        return " and ".join(said) or "when run by hand"

    def said(self) -> str:
        return f"{self.workflow} publishes to {self.where} ({self.how}) {self.trigger()}"


def _sample(pattern: str) -> str:
    """A name the filter ``pattern`` matches (``v[0-9]+.[0-9]+`` -> ``v0.0``), to evaluate a
    job's condition for the tags it filters."""
    sample = re.sub(r"\[\^?(.)[^\]]*\]", r"\1", pattern)
    return sample.replace("**", "1").replace("*", "1").replace("+", "").replace("?", "")


def _matches(pattern: str, name: str) -> bool:
    """GitHub's filter pattern: ``*`` any run without ``/``, ``**`` anything, ``?`` and ``+``
    zero-or-one and one-or-more of the character before, ``[...]`` a class."""
    out, at = "", 0
    while at < len(pattern):
        char = pattern[at]
        if pattern.startswith("**", at):
            out, at = out + ".*", at + 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char in "?+" and out:
            out += char
        elif char == "[":
            end = pattern.find("]", at)
            if end < 0:
                return False
            out, at = out + pattern[at : end + 1], end + 1
            continue
        else:
            out += re.escape(char)
        at += 1
    try:
        return re.fullmatch(out, name) is not None
    except re.error:
        return False


def _filters(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _triggers(doc: Mapping[Any, Any]) -> dict[str, tuple[str, ...] | bool]:
    """The tag, branch and release triggers of a workflow's ``on:`` (YAML 1.1 reads the bare
    key ``on`` as True)."""
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        on = {on: None}
    elif isinstance(on, list):
        on = {str(event): None for event in on}
    if not isinstance(on, Mapping):
        return {}
    found: dict[str, tuple[str, ...] | bool] = {"release": "release" in on}
    if "push" in on:
        push = on["push"] if isinstance(on["push"], Mapping) else {}
        has_tags = "tags" in push or "tags-ignore" in push
        has_branches = "branches" in push or "branches-ignore" in push
        found["tags"] = _filters(push.get("tags")) or (("**",) if not has_branches else ())
        found["tags_ignore"] = _filters(push.get("tags-ignore"))
        found["branches"] = _filters(push.get("branches")) or (("**",) if not has_tags else ())
    return found


def _index(step: Mapping[Any, Any], env: Mapping[Any, Any]) -> tuple[str, str, bool] | None:
    """(the index, how, whether it skips existing files) a step uploads with, or None when it
    uploads nothing."""
    uses = str(step.get("uses", ""))
    if uses.startswith("pypa/gh-action-pypi-publish"):
        given = step.get("with") or {}
        url = given.get("repository-url") or given.get("repository_url") or PYPI
        skip = str(given.get("skip-existing", given.get("skip_existing", ""))).lower() == "true"
        return str(url), "pypa/gh-action-pypi-publish", skip
    run = str(step.get("run", ""))
    if "twine upload" in run:
        named = re.search(r"--repository-url[= ](\S+)|(?:-r|--repository)[= ](\S+)", run)
        url = env.get("TWINE_REPOSITORY_URL") or PYPI
        if named and named[1]:
            url = named[1]
        elif named and named[2]:
            url = TEST_PYPI if named[2] == "testpypi" else named[2]
        return str(url), "twine upload", "--skip-existing" in run
    tool = next((t for t in _PUBLISHERS if t in run), None)
    if tool:
        return (TEST_PYPI if "test.pypi" in run else PYPI), tool, "--skip-existing" in run
    return None


def _conditions(
    jobs: Mapping[Any, Any], name: str, seen: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """The ``if:`` of job ``name`` and of the jobs it needs (a skipped need skips it, unless
    its own condition says ``always()``)."""
    job: Mapping[Any, Any] = jobs[name] if isinstance(jobs.get(name), Mapping) else {}
    own = str(job.get("if", "")) if job.get("if") not in (None, "") else ""
    found: tuple[str, ...] = (own,) if own else ()
    if "always()" in own or name in seen:
        return found
    needs = job.get("needs") or ()
    for need in (needs,) if isinstance(needs, str) else needs:
        found += _conditions(jobs, str(need), seen | {name})
    return found


def tag_samples(texts: Mapping[str, str]) -> dict[str, str]:
    """Each tag filter the workflows ``texts`` hold (path -> YAML text) name in their
    ``on: push: tags``, with a tag name it matches (``v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+`` ->
    ``v0.0.0-rc0``): which tags the project's own workflows build."""
    found: dict[str, str] = {}
    for path in sorted(texts):
        try:
            doc = yaml.safe_load(texts[path])
        except yaml.YAMLError:
            continue
        tags = _triggers(doc).get("tags", ()) if isinstance(doc, Mapping) else ()
        for pattern in tags if isinstance(tags, tuple) else ():
            found.setdefault(pattern, _sample(pattern))
    return found


def read(texts: Mapping[str, str]) -> list[Publisher]:
    """Every publishing job of the workflows ``texts`` holds (path -> YAML text); a workflow
    that does not parse publishes nothing known."""
    found = []
    for path in sorted(texts):
        try:
            doc = yaml.safe_load(texts[path])
        except yaml.YAMLError:
            continue
        if not isinstance(doc, Mapping) or not isinstance(doc.get("jobs"), Mapping):
            continue
        triggers = _triggers(doc)
        jobs = doc["jobs"]
        for name, job in jobs.items():
            if not isinstance(job, Mapping):
                continue
            env = {**(doc.get("env") or {}), **(job.get("env") or {})}
            for step in job.get("steps") or ():
                index = _index(step, env) if isinstance(step, Mapping) else None
                if index is not None:
                    found.append(_publisher(path, index, triggers, _conditions(jobs, str(name))))
                    break
    return found


def _publisher(
    path: str,
    index: tuple[str, str, bool],
    triggers: Mapping[str, Any],
    conditions: tuple[str, ...],
) -> Publisher:
    return Publisher(
        path,
        index[0],
        index[1],
        tuple(triggers.get("tags", ())),
        tuple(triggers.get("tags_ignore", ())),
        tuple(triggers.get("branches", ())),
        bool(triggers.get("release")),
        index[2],
        conditions,
    )


def on_disk(root: Path) -> list[Publisher]:
    """The publishers of the workflows in ``root``'s ``.github/workflows``."""
    folder = root / ".github" / "workflows"
    texts = {}
    for path in sorted(folder.glob("*.y*ml")) if folder.is_dir() else ():
        try:
            texts[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return read(texts)


def same_index(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")
