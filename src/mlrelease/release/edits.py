"""The file edits of a release commit, all-or-nothing and journalled with content hashes
(invariant (f)).

An :class:`EditSet` computes every new file first, without touching the work tree:
bump-my-version runs on a scratch copy of the version files, the changelog section and the
release-only edits are made in memory. Then the journal records each file's SHA-256 before and
after, and each file is installed with an atomic rename: a kill leaves every file either as it
was or as mlrelease wrote it, and recovery (:func:`~.rules.recovery`) restores only files that
hold what mlrelease wrote. A version file that is a symbolic link is edited through the file it
points at (the one that is committed), and a file's line endings are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease import version_files
from mlrelease.config import PYPROJECT, Config, read_toml
from mlrelease.edges.journal import drop_journal, write_journal
from mlrelease.errors import UserError
from mlrelease.project import bump, changelog, sync
from mlrelease.release.config import ReleaseEdit
from mlrelease.release.plan import Action, call_action

Compute = Callable[["EditSet"], None]


def keep_newlines(before: bytes, after: bytes) -> bytes:
    """``after`` with ``before``'s line endings: a CRLF file stays CRLF whoever rewrote it."""
    crlf = before.count(b"\r\n")
    if crlf and crlf == before.count(b"\n"):
        return after.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return after


@dataclass
class EditSet:
    """The files of one commit: computed, journalled, then installed."""

    root: Path
    purpose: str
    before: dict[str, bytes] = field(default_factory=dict)
    after: dict[str, bytes] = field(default_factory=dict)

    def set(self, path: str, data: bytes) -> None:
        """The new content of ``path`` (a file of the repository, links already followed)."""
        old = self.before.setdefault(path, (self.root / path).read_bytes())
        self.after[path] = keep_newlines(old, data)

    def journal(self, computes: list[Compute], files: list[str]) -> Action:
        """Compute the new files, then journal them (before and after hashes); the work tree
        is not touched yet."""

        def run() -> None:
            for compute in computes:
                compute(self)
            hashes = {}
            for f in files:
                before = self.before.get(f) or (self.root / f).read_bytes()
                after = self.after.get(f)
                hashes[f] = {
                    "before": hashlib.sha256(before).hexdigest(),
                    "after": hashlib.sha256(after).hexdigest() if after is not None else None,
                }
            write_journal(self.root, hashes, self.purpose)

        return call_action("journal", f"journal {', '.join(files)} (undone if interrupted)", run)

    def install(self, key: str, line: str, files: list[str]) -> Action:
        """Write ``files``' computed content, each with one atomic rename."""

        def run() -> None:
            for name in files:
                if name in self.after and self.after[name] != self.before.get(name):
                    replace(self.root / name, self.after[name])

        return call_action(key, line, run)

    def end(self) -> Action:
        return call_action("journal-end", "close the journal", lambda: drop_journal(self.root))


def replace(path: Path, data: bytes) -> None:
    """Write ``path`` atomically (a temporary file in its folder, then a rename), keeping its
    mode."""
    mode = path.stat().st_mode & 0o7777
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def bumped(
    new: str, listed: list[str], links: Mapping[str, str], hand: str | None = None
) -> Compute:
    """bump-my-version to ``new`` on a scratch copy of ``listed`` (pyproject.toml and the
    version files as the configuration names them; ``links``: link -> the file it points at);
    ``hand``: the files were edited by hand to this version, so current_version follows them
    first (``mlrelease bump --sync``)."""

    def compute(edits: EditSet) -> None:
        with tempfile.TemporaryDirectory(prefix="mlrelease-bump-") as tmp:
            scratch = Path(tmp)
            for name in listed:
                (scratch / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(edits.root / links.get(name, name), scratch / name)
            if hand is not None:
                synced = dataclasses.replace(Config(), root=scratch)
                synced = dataclasses.replace(synced, pyproject=read_toml(scratch / PYPROJECT))
                sync.execute(synced, sync.plan(synced))
            rewrite(scratch, new)
            for name in listed:
                edits.set(links.get(name, name), (scratch / name).read_bytes())

    return compute


def rewrite(scratch: Path, new: str) -> None:
    """bump-my-version to ``new`` in ``scratch`` (a copy of the version files only: the
    project's other files, which loading its whole configuration would check, are not there),
    then every occurrence checked."""
    data = read_toml(scratch / PYPROJECT)
    config = dataclasses.replace(Config(), root=scratch, pyproject=data)
    planned = bump.plan(config, to=new)
    if planned.noop or planned.from_tags:
        return
    proc = bump._bmv(scratch, "bump", "--new-version", new, "--allow-dirty")
    source = str(scratch / PYPROJECT)
    after = dataclasses.replace(config, pyproject=read_toml(scratch / PYPROJECT))
    found, problems = version_files.scan(scratch, after.pyproject, source)
    stale = version_files.mismatches(found, new)
    if proc.returncode != 0 or problems or stale or len(found) < len(planned.changes):
        shown = (proc.stderr or proc.stdout).strip() if proc.returncode else ""
        shown = shown or "; ".join(
            [f"{p.file}: {p.message}" for p in problems]
            + [f"{o.file}:{o.line} carries {o.value}" for o in stale]
        )
        raise UserError(
            f"bump-my-version did not write {new} (exit {proc.returncode}): "
            f"{shown or 'fewer files carry the new version'}. Nothing was changed."
        )


def changelog_section(config: Config, target: str, tag: str) -> Compute:
    """The changelog with ``target``'s section (git-changelog, nothing written)."""

    def compute(edits: EditSet) -> None:
        from packaging.version import Version

        text = changelog.generate(
            edits.root,
            config.changelog,
            bump=tag,
            repository_url=changelog.repository_url(config.pyproject),
            other_changes=config.changelog_other_changes,
            write=False,
        )
        if not changelog.has_section(text, Version(target)):
            raise UserError(f"git-changelog wrote no {target} section to {config.changelog}.")
        edits.set(config.changelog, text.encode("utf-8"))

    return compute


def edit_text(edit: ReleaseEdit, text: str, values: Mapping[str, str]) -> str:
    replacement = edit.replace.format(**values)
    if edit.regex:
        return re.sub(edit.search, replacement, text, flags=re.MULTILINE)
    return text.replace(edit.search, replacement)


def edit_needed(edit: ReleaseEdit, text: str) -> bool:
    return bool(re.search(edit.search, text, re.MULTILINE)) if edit.regex else edit.search in text


def release_edits(edits_: list[ReleaseEdit], values: Mapping[str, str]) -> Compute:
    """The release-only edits of ``release cut``, applied to the files' text in memory."""

    def compute(edits: EditSet) -> None:
        for edit in edits_:
            current = edits.after.get(edit.file) or (edits.root / edit.file).read_bytes()
            text = current.decode("utf-8").replace("\r\n", "\n")
            edits.set(edit.file, edit_text(edit, text, values).encode("utf-8"))

    return compute
