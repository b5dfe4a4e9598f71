"""The changelog: a section per release, generated from Conventional Commits (angular).

Generation is git-changelog's (``--convention angular``); this module checks the result and
finds the section a release needs.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease.edges import installed
from mlrelease.edges.proc import call, python_module
from mlrelease.errors import UserError

HEADING = re.compile(r"^(?P<level>#{1,2})[ \t]+(?P<text>[^\n]*?)[ \t]*$", re.M)
"""A Markdown heading of level 1 or 2 (conventional-changelog writes a minor release's section
at level 1, ``# 0.2.0 (2020-05-01)``, and a patch's at level 2)."""
TITLE = re.compile(r"\[(?P<bracketed>[^\]\n]+)\]|(?P<plain>.+?)(?:\s+-\s+.*)?$")
"""A heading's title: ``[1.4.0](compare link) (date)`` (conventional-changelog), ``[1.4.0] -
date`` (Keep a Changelog), ``1.4.0 - date``, ``1.4.0 (date)`` (towncrier)."""
MARKER = "<!-- insertion marker -->"


# A reStructuredText section title: a line underlined by = - ~ ^ or " at least as long as it.
RST_HEADING = re.compile(r"^(?P<title>[^\s.][^\n]*?)[ \t]*\n(?P<rule>([=\-~^\"])\3*)[ \t]*$", re.M)


def sections(text: str) -> list[str]:
    """Titles of the version sections, in order: ``Unreleased``, ``v1.4.0`` ...

    Markdown level-2 headings (``## 1.4.0``, ``## [1.4.0] - date``, ``## [1.4.0](link) (date)``),
    level-1 headings that name a version (conventional-changelog's ``# 0.2.0 (2020-05-01)``) and
    reStructuredText underlined titles (towncrier's ``1.4.0 (2024-05-01)`` over ``------``) count.
    """
    found = [(m.start(), title) for m in HEADING.finditer(text) if (title := _title(m))]
    found += [
        (m.start(), m["title"].strip())
        for m in RST_HEADING.finditer(text)
        if len(m["rule"]) >= len(m["title"].strip())
    ]
    return [title for _, title in sorted(found)]


def _title(heading: re.Match[str]) -> str | None:
    """The section title of a Markdown heading; a level-1 heading counts only when it names a
    version or Unreleased (``# Changelog`` is the document's title)."""
    match = TITLE.match(heading["text"])
    title = ((match["bracketed"] or match["plain"] or "") if match else "").strip()
    if not title:
        return None
    document_title = title.lower() != "unreleased" and _version_of(title) is None
    return None if len(heading["level"]) == 1 and document_title else title


def _version_of(title: str) -> Version | None:
    """The version inside a tag-like title (``v1.4.0``, ``rel-1.4.0``, ``1.4.0 (date)``)."""
    try:
        return Version(re.sub(r"^[^0-9]*", "", title.split()[0]))
    except InvalidVersion:
        return None


def required_title(version: Version) -> str:
    """What the section for ``version`` is called: Unreleased for a dev version."""
    return "Unreleased" if version.is_devrelease else version.base_version


def has_section(text: str, version: Version) -> bool:
    """True when the changelog has the section a release of ``version`` needs.

    A release candidate ``1.4.0rc2`` is covered by the ``1.4.0`` section (its notes are the
    release's notes) or by a section of its own.
    """
    wanted = required_title(version)
    for title in sections(text):
        if wanted == "Unreleased":
            if title.lower() == "unreleased":
                return True
            continue
        parsed = _version_of(title)
        if parsed is not None and (parsed == version or parsed == Version(wanted)):
            return True
    return False


def generate_command(
    root: Path, output: str, *, bump: str | None = None, other_changes: bool = True
) -> list[str]:
    """The git-changelog command that rewrites ``output`` in place (angular convention);
    ``other_changes`` keeps commits of no Conventional Commit type (``--include-all``)."""
    installed.require("git_changelog", extra="release")  # this environment's, never PATH's
    base = python_module("git_changelog")
    command = [
        *base,
        "--convention",
        "angular",
        "--template",
        "keepachangelog",
        "--in-place",
        "--output",
        output,
        "--marker-line",
        MARKER,
        "--versioning",
        "pep440",
        "--sections",
        "feat,fix,perf,refactor,revert,docs,build,ci,deps",
    ]
    if other_changes:
        command.append("--include-all")
    if bump:
        command += ["--bump", bump]
    return [*command, str(root)]


OTHER_TITLE = "### Other changes"
"""The section of commits with no Conventional Commit type (git-changelog calls it Misc)."""


ENTRY = re.compile(r"^(- )(.*?)( \(\[[0-9a-f]{7}\]\()", re.M)
"""An entry of git-changelog's keepachangelog template: ``- SUBJECT ([abc1234](url) by ...``."""
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
MARKDOWN_SPECIAL = re.compile(r"(?<!\\)([\[\]<>*_])")


def escape_subject(subject: str) -> str:
    """A commit subject as Markdown that shows its text: outside its code spans, the characters
    that would make a link, an HTML tag or emphasis (``[ ] < > * _``) are escaped, once (an
    escaped one stays as it is). A subject
    such as ``recognise "# [0.2.0](link) (date)" titles`` must not become a link to ``link``
    (the docs build fails on it under ``-W``, and GitHub renders a broken link)."""
    out: list[str] = []
    start = 0
    for span in CODE_SPAN.finditer(subject):
        out.append(MARKDOWN_SPECIAL.sub(r"\\\1", subject[start : span.start()]))
        out.append(span.group(0))
        start = span.end()
    out.append(MARKDOWN_SPECIAL.sub(r"\\\1", subject[start:]))
    return "".join(out)


def _edit_inserted(before: str, after: str) -> str:
    """Edit only the part git-changelog inserted (what the file already held is never
    rewritten): its "Misc" sections are titled "Other changes", and each entry's subject is
    escaped (:func:`escape_subject`), since commit subjects are text, not Markdown."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    start = after.rfind("\n", 0, start) + 1  # whole lines: an entry is edited as one
    stop = after.find("\n", len(after) - end)
    stop = len(after) if stop < 0 else stop
    middle = after[start:stop]
    middle = re.sub(r"^### Misc$", OTHER_TITLE, middle, flags=re.M)
    middle = ENTRY.sub(lambda m: m.group(1) + escape_subject(m.group(2)) + m.group(3), middle)
    return after[:start] + middle + after[stop:]


def bump_tag(bump: str | None, tag: Callable[[Version], str]) -> str | None:
    """What git-changelog's ``--bump`` gets: a release version becomes its tag (``tag`` spells
    it as the project does), so the new section's title and links name the real tag; ``auto``,
    ``major`` ... and other versions pass through."""
    if bump is None:
        return None
    try:
        version = Version(bump)
    except InvalidVersion:
        return bump
    if version.is_devrelease or version.is_postrelease or version.local:
        return bump
    if version.pre is not None and version.pre[0] != "rc":
        return bump
    return tag(version)


URL_KEYS = ("source", "repository", "code", "homepage")
CHANGELOG_REMOTE = "mlrelease-changelog"


def repository_url(pyproject: Mapping[str, Any]) -> str | None:
    """The project's repository URL from ``[project.urls]`` (Source, Repository, ...)."""
    urls = {str(k).lower(): v for k, v in pyproject.get("project", {}).get("urls", {}).items()}
    for key in URL_KEYS:
        url = urls.get(key)
        if isinstance(url, str) and url.startswith("https://"):
            return url.rstrip("/").removesuffix(".git")
    return None


def _remote_env(url: str | None) -> dict[str, str] | None:
    """Environment giving git-changelog the project's URL for commit and compare links.

    git-changelog reads the URL of a git remote. The project's declared URL is used instead of
    ``origin`` (which may be a local path or a fork) through a command-scoped remote, so the
    generated file is the same on every clone and the repository's config is untouched.
    """
    if url is None:
        return None
    env = dict(os.environ)
    count = int(env.get("GIT_CONFIG_COUNT", "0"))
    env.update(
        {
            "GIT_CONFIG_COUNT": str(count + 1),
            f"GIT_CONFIG_KEY_{count}": f"remote.{CHANGELOG_REMOTE}.url",
            f"GIT_CONFIG_VALUE_{count}": url,
            "GIT_CHANGELOG_REMOTE": CHANGELOG_REMOTE,
        }
    )
    return env


def adopted(output: str, text: str) -> str:
    """``text`` with git-changelog's marker where new versions go: a hand-written Markdown
    changelog without it (onnxmltools' CHANGELOGS.md) gets it above its newest version
    section, else under its title; its own sections are kept as they are."""
    if MARKER in text:
        return text
    if output.endswith(".rst"):
        raise UserError(f"{output}: the line '{MARKER}' is missing; add it where new versions go.")
    first = next((m for m in HEADING.finditer(text) if _title(m)), None)
    if first is not None:
        return f"{text[: first.start()]}{MARKER}\n\n{text[first.start() :]}"
    title = HEADING.search(text)
    if title is None:
        return f"{MARKER}\n\n{text}"
    return f"{text[: title.end()]}\n\n{MARKER}\n{text[title.end() :]}"


def _newest_only(start: str, written: str) -> str:
    """``written`` with only the first section git-changelog inserted at the marker of
    ``start``: a hand-written changelog's headings (``## 1.14.0``) are not its own, so it
    renders every release again; the versions before the new one are already there."""
    at = start.index(MARKER) + len(MARKER) + 1
    rest = start[at:]
    if not written.endswith(rest) or not written.startswith(start[:at]):
        return written
    inserted = written[at : len(written) - len(rest)]
    heads = [m.start() for m in re.finditer(r"^## ", inserted, re.M)]
    kept = inserted[: heads[1]] if len(heads) > 1 else inserted
    return start[:at] + kept.rstrip("\n") + "\n\n" + rest.lstrip("\n")


def generate(
    root: Path,
    output: str,
    *,
    bump: str | None = None,
    repository_url: str | None = None,
    other_changes: bool = True,
    write: bool = True,
) -> str:
    """Run git-changelog on ``root`` and return the new text of ``output``.

    git-changelog works on a copy outside the repository: with ``write=False`` (a dry run) the
    real file is never written, not even for a moment; with ``write=True`` it is replaced
    atomically, and only when the text changed. ``repository_url`` (see
    :func:`repository_url`) makes the commit and compare links point at the project's
    repository; without it they point at the ``origin`` remote, if any. ``other_changes`` keeps
    commits of no Conventional Commit type in an "Other changes" section.
    """
    path = root / output
    if not path.exists():
        raise UserError(
            f"{output}: no such file; create it with a first line '# Changelog' and a line "
            f"'{MARKER}' where new versions go."
        )
    before = path.read_text(encoding="utf-8")
    start = adopted(output, before)
    with tempfile.TemporaryDirectory(prefix="mlrelease-changelog-") as tmp:
        work = Path(tmp) / path.name
        work.write_text(start, encoding="utf-8")
        proc = call(
            generate_command(root, str(work), bump=bump, other_changes=other_changes),
            cwd=root,
            env=_remote_env(repository_url),
        )
        if proc.returncode != 0 and "already in changelog" in proc.stderr:
            return before  # the version's section exists: a second run changes nothing
        if proc.returncode != 0:
            raise UserError(f"git-changelog failed (exit {proc.returncode}): {proc.stderr.strip()}")
        written = work.read_text(encoding="utf-8")
        if start != before:  # git-changelog reads no section of theirs: the newest one only
            written = _newest_only(start, written)
        after = _edit_inserted(start, written)
    if write and after != before:
        staged = path.with_name(path.name + ".mlrelease-tmp")
        staged.write_text(after, encoding="utf-8")
        os.replace(staged, path)
    return after
