"""The published site against the release tags: every final release is frozen and listed.

Torch-TensorRT backfilled the docs of releases nobody had frozen; a site whose switcher lists
only older versions looks fine to every check that reads the site alone. Here the release tags
are the truth: every final release tag (the configured tag pattern, no release candidate) needs
a frozen ``X.Y.Z/index.html`` and a switcher entry on the *published* site, and the newest final
release is the ``preferred`` one.

The published site is read, in order, from the pages branch (``origin/gh-pages``, else a local
``gh-pages``), the site folder when it holds a ``switcher.json``, or ``BASE-URL/switcher.json``
when the base URL is an ``http(s)`` address. :func:`problems` is pure; :func:`read` is the edge.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

from mlrelease import versions
from mlrelease.config import Config
from mlrelease.docs import switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.edges import git, web
from mlrelease.errors import UserError
from mlrelease.naming import Names


@dataclass(frozen=True)
class Site:
    """What the published site holds: its switcher entries and its frozen folders."""

    source: str
    """Where it was read: ``origin/gh-pages``, a folder, or a URL."""
    entries: list[dict[str, Any]] | None
    """The switcher's entries; None when the site has no (valid) switcher.json."""
    folders: frozenset[str] | None = None
    """Folders holding an ``index.html``; None when they cannot be listed (a URL)."""
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SiteState:
    """The docs row of ``release status`` and the checklist's view of the docs freeze."""

    source: str | None
    released: list[str]
    """Final releases per the tags, oldest first."""
    frozen: list[str]
    """Released versions that are frozen and listed on the site."""
    problems: list[str]

    def is_frozen(self, version: str) -> bool:
        return version in self.frozen

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "released": self.released,
            "frozen": self.frozen,
            "problems": self.problems,
        }


def final_releases(
    tags: Iterable[str], names: Names, since: Version | None = None
) -> dict[Version, str]:
    """Final release versions -> their tag, for the tags that match the tag pattern (none
    older than ``since``)."""
    out: dict[Version, str] = {}
    for tag in tags:
        parsed = names.parse_tag(tag.strip())
        if parsed is not None and parsed[1] is None and (since is None or parsed[0] >= since):
            out[parsed[0]] = tag.strip()
    return out


def problems(released: dict[Version, str], site: Site | None) -> list[str]:
    """What the published site lacks for the released versions (pure)."""
    if not released:
        return []
    newest = max(released)
    if site is None:
        shown = ", ".join(released[v] for v in sorted(released)[-5:])
        return [
            f"no published docs site found, but {len(released)} release(s) are tagged "
            f"({shown}): freeze each with `mlrelease docs freeze --version X.Y.Z --execute "
            "--site <gh-pages checkout>` and push the pages branch"
        ]
    found = list(site.errors)
    if site.entries is None:
        return found or [f"{site.source}: no switcher.json; freeze a release to write it"]
    listed = {_version(e.get("version")) for e in site.entries} - {None}
    for version in sorted(released):
        tag, name = released[version], str(version)
        missing = []
        if site.folders is not None and name not in site.folders:
            missing.append(f"no frozen folder {name}/index.html")
        if version not in listed:
            missing.append(f"no entry for {name} in switcher.json")
        if missing:
            found.append(
                f"release {tag} is not frozen on the published site {site.source}: "
                f"{' and '.join(missing)}. Run `mlrelease docs freeze --version {name} "
                "--execute` on a checkout of the pages branch and push it"
            )
    marked = _version(switcher.preferred(site.entries))
    if marked != newest:
        found.append(
            f"switcher.json on {site.source} marks "
            f"{'no version' if marked is None else marked} as preferred; the newest final "
            f"release is {newest} ({released[newest]}): freeze it (the freeze rewrites the "
            "switcher with it preferred)"
        )
    return found


def read(config: Config) -> Site | None:
    """The published site, from the first source that has one; None when none has."""
    docs, root = config.table(DocsConfig), config.root
    for ref in (f"refs/remotes/origin/{docs.pages_branch}", f"refs/heads/{docs.pages_branch}"):
        if git.is_repo(root) and git.run(
            root, "rev-parse", "--verify", "--quiet", ref, check=False
        ):
            return _from_ref(root, ref)
    folder = config.path(docs.site)
    if (folder / switcher.FILENAME).is_file():
        return _from_folder(folder)
    if docs.base_url.startswith(("http://", "https://")):
        return _from_url(docs.base_url + switcher.FILENAME)
    return None


def state(config: Config) -> SiteState:
    """The released versions, which of them the published site holds, and what is wrong."""
    names = config.names
    tags = git.run(config.root, "tag", "--list").splitlines() if git.is_repo(config.root) else []
    since = None
    if config.table(DocsConfig).frozen_since:
        since = versions.parse(
            config.table(DocsConfig).frozen_since,
            key="tool.mlrelease.docs.frozen-since",
            source=str(config.pyproject_path),
        )
    released = final_releases(tags, names, since)
    site = read(config) if released else None
    found = problems(released, site)
    frozen = []
    if site is not None and site.entries is not None:
        listed = {_version(e.get("version")) for e in site.entries}
        frozen = [
            str(v)
            for v in sorted(released)
            if v in listed and (site.folders is None or str(v) in site.folders)
        ]
    return SiteState(
        site.source if site else None, [str(v) for v in sorted(released)], frozen, found
    )


def _version(text: Any) -> Version | None:
    try:
        return Version(str(text)) if text not in (None, switcher.DEV) else None
    except ValueError:
        return None


def _parse(text: str, source: str) -> tuple[list[dict[str, Any]] | None, list[str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"{source}: switcher.json is not valid JSON ({exc})"]
    found = switcher.problems(data)
    if found:
        return None, [f"{source}: switcher.json: {p}" for p in found]
    return list(data), []


def _from_ref(root: Path, ref: str) -> Site:
    label = ref.removeprefix("refs/remotes/").removeprefix("refs/heads/")
    listing = git.run(root, "ls-tree", "-r", "--name-only", ref, check=False).splitlines()
    folders = frozenset(
        p.split("/")[0] for p in listing if p.count("/") == 1 and p.endswith("/index.html")
    )
    text = git.run(root, "show", f"{ref}:{switcher.FILENAME}", check=False)
    if not text:
        return Site(label, None, folders, [f"{label}: no switcher.json"])
    entries, errors = _parse(text, label)
    return Site(label, entries, folders, errors)


def _from_folder(folder: Path) -> Site:
    folders = frozenset(p.parent.name for p in folder.glob("*/index.html"))
    entries, errors = _parse((folder / switcher.FILENAME).read_text(encoding="utf-8"), str(folder))
    return Site(str(folder), entries, folders, errors)


def _from_url(url: str) -> Site:
    try:
        answer = web.get(url, timeout=20)  # read() passes http(s) only
        if answer.status == 404:
            return Site(url, None, None, [f"{url}: cannot read the published switcher (HTTP 404)"])
        text = answer.body.decode("utf-8")
    except (UserError, UnicodeDecodeError) as exc:
        return Site(url, None, None, [f"{url}: cannot read the published switcher ({exc})"])
    entries, errors = _parse(text, url)
    return Site(url, entries, None, errors)


def is_freeze_step(argv: Iterable[str]) -> bool:
    """Whether a checklist step's command freezes docs (``docs.freeze`` / ``docs freeze``)."""
    words = list(argv)
    return "docs.freeze" in words or any(
        a == "docs" and b == "freeze" for a, b in itertools.pairwise(words)
    )


def freeze_detected(config: Config, version: str) -> tuple[bool, str]:
    """(frozen, how it was seen): the checklist's docs-freeze step, read from the site."""
    found = state(config)
    where = found.source or "no published site"
    if found.is_frozen(version):
        return True, f"detected: {version} is frozen and listed on {where}"
    return False, f"not on the published site ({where})"


def describe(data: dict[str, Any]) -> str:
    """The docs row of ``release status`` from :meth:`SiteState.to_dict`."""
    released, frozen = data["released"], data["frozen"]
    if not released:
        return "no final release tagged yet: nothing to freeze"
    head = f"{len(frozen)}/{len(released)} final releases frozen on {data['source'] or 'no site'}"
    return head + ("; " + "; ".join(data["problems"]) if data["problems"] else "")
