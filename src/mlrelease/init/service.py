"""What ``mlrelease init`` does: read the repository, propose the tables that describe it, with
the reason for each, and (executed) append them to ``pyproject.toml``, the only file it ever
writes, read back with the composition root's loader."""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.table import Table

from mlrelease import requirements
from mlrelease.config import Loader
from mlrelease.edges import index as edge_index
from mlrelease.edges import installed
from mlrelease.errors import UserError
from mlrelease.init import (
    branch_history,
    carriers,
    detect,
    kept_table,
    propose,
    release_edits,
    shape,
    snapshot,
)
from mlrelease.init.version_source import package_dirs
from mlrelease.terminal import make_console
from mlrelease.wheels import fileset, matrix, platforms

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

# No markup: what init prints is full of TOML table names in brackets.
console = make_console(markup=False)


def _native_platforms(root: Path, pyproject: dict[str, Any]) -> tuple[list[str] | None, str]:
    """The required platforms of the project's declared build matrix (never this machine's)."""
    try:
        identifiers, declared = platforms.query(root, pyproject)
    except requirements.MissingDependency as exc:
        # A missing tool, never the project's config: the install line for this environment.
        message = exc.within(installed.environment())
        return (
            None,
            f"cibuildwheel could not list the builds ({message}); platforms left at defaults",
        )
    except UserError as exc:
        return None, f"cibuildwheel could not list the builds ({exc}); platforms left at defaults"
    required = platforms.pick_required({i.tag for i in identifiers}, declared.named_tags)
    archs = {p: a for p, a in declared.archs.items() if a}
    matrix = "; ".join(f"{p}: {' '.join(a)}" for p, a in archs.items())
    return required, (
        f"required-platforms: what cibuildwheel selects on the declared architectures "
        f"({matrix or 'none'}), from {'; '.join(declared.sources)}"
    )


def _files(index: str, name: str, current: dict[str, Any]) -> tuple[str, list[str]]:
    """The ``[tool.mlrelease.wheels.files]`` table that the newest final release of ``name`` on
    the simple index ``index`` ships, and why."""
    held = [f for f in edge_index.project_files(index, name) if f.version and not f.yanked]
    finals = [f.version for f in held if f.version and not f.version.is_prerelease]
    if not finals:
        return "", [f"files: {index} holds no final release of {name}; the set is derived"]
    newest = max(finals)
    names = [f.filename for f in held if f.version == newest]
    selector = current.get("tool", {}).get("cibuildwheel", {}).get("build", "")
    table, why = fileset.propose(
        names,
        fileset.requires_python(current),
        matrix.classifier_versions(current),
        selector if isinstance(selector, str) else " ".join(map(str, selector)),
    )
    why = [f"{w} ({name} {newest} on {index})" if i == 0 else w for i, w in enumerate(why)]
    return propose.section("[tool.mlrelease.wheels.files]", table), why


_HARD_CODED = re.compile(r"""^\s*(?P<key>release|version)\s*=\s*(['"])(?P<value>\d[^'"]*)\2""")


def hard_coded_versions(conf: Path) -> list[str]:
    """A note for each line of a Sphinx ``conf.py`` that writes a version literally
    (``release = "0.0.9"``): the site then declares it whatever the release is."""
    if not conf.is_file():
        return []
    notes = []
    for number, line in enumerate(
        conf.read_text(encoding="utf-8", errors="replace").splitlines(), 1
    ):
        found = _HARD_CODED.match(line)
        if found:
            notes.append(
                f"{conf.name}:{number} hard-codes {found['key']} = {found['value']!r}: the built "
                "site declares it whatever the release is, and the docs gate fails when it "
                "differs from the project's version; read it from the package instead "
                "(importlib.metadata.version)"
            )
    return notes


BUILD_FILES = ("setup.py", "CMakeLists.txt", "pyproject.toml", "noxfile.py", "setup.cfg")
"""Tracked files that may write a file during the build (torchvision's setup.py writes the
git-ignored ``torchvision/version.py``)."""


def _with_carriers(
    root: Path, snap: snapshot.Snapshot, found: detect.Detection
) -> detect.Detection:
    """Every other tracked file the repository spells the current version in, whole or split
    into part macros, where the place says it is this project's: proposed, or left with the
    reason (pyproject.toml's own version is bump-my-version's ``current_version``); a file
    git does not track is left, naming the build file that writes it."""
    v = found.version
    if not v.current or v.from_tags:
        return found
    # One read of the repository: the version whole, or a C preprocessor ``#define`` of a part.
    texts = snapshot.texts_containing(root, snap.files, v.current, "define")
    writers = {p: t for p, t in snap.texts.items() if p in BUILD_FILES and snap.is_tracked(p)}
    tracked = {p: t for p, t in texts.items() if snap.is_tracked(p)}
    built = {p: t for p, t in texts.items() if p not in tracked and v.current in t}
    output, made = carriers.written({p: t for p, t in tracked.items() if v.current in t}, writers)
    tracked = {p: t for p, t in tracked.items() if p not in output}
    known = {f.filename for f in v.files} | {"pyproject.toml"}
    names = {found.name or "", *(d.rsplit("/", 1)[-1] for d in package_dirs(snap, found.name))}
    more = carriers.carriers(tracked, v.current, known, names - {""})
    split = carriers.split_macros(tracked, v.current)
    why = "; ".join([v.why, *split.split]) if split.split else v.why
    left = made + carriers.untracked(built, snap.ignored, writers) + more.left + split.left
    files = [f for f in v.files if f.filename not in output]
    files += [*more.files, *split.files]
    version = dataclasses.replace(v, files=files, left=left, why=why)
    return dataclasses.replace(found, version=version)


def _with_branch(root: Path, snap: snapshot.Snapshot, found: detect.Detection) -> detect.Detection:
    """What the newest release branch's commits show (branch model): its release-only edits,
    whichever commits made them, and how fixes reached it (the picks mode)."""
    model = found.model
    series = re.search(r"\d+\.\d+", model.newest) if model.name == "branch" else None
    if series is None:
        return found
    commits = branch_history.branch_commits(root, model.main_branch, model.newest)
    skip = {f.filename for f in found.version.files} | {"pyproject.toml"}
    main = {p for p in snap.files if snap.is_tracked(p)}
    edits = release_edits.proposed_edits(commits, model.newest, series[0], skip, main)
    made = {e.file for e in edits.edits}
    had = branch_history.branch_files(root, model.newest, release_edits.WORKFLOWS)
    edits.edits = release_edits.widened(edits.edits, snap.texts, had)
    edits.also = sorted({e.file for e in edits.edits} - made)
    picks, picks_why = shape.picks_mode(commits, model.newest)
    upstream = ""
    if edits.upstream:
        named = [e for e in edits.edits if release_edits.UPSTREAM in e.replace]
        upstream = "torch" if any("pytorch" in e.search for e in named) else "upstream"
    return dataclasses.replace(
        found,
        release_edits=edits.edits,
        edits_notes=_edit_notes(edits, model, upstream),
        upstream=upstream if upstream != "upstream" else "",
        picks=picks,
        picks_why=picks_why,
    )


def _edit_notes(edits: release_edits.Found, model: shape.Model, upstream: str) -> list[str]:
    """What init says about the release-only edits it proposes, leaves out, or did not find."""
    newest = model.newest
    if not edits.edits and not edits.left:
        return [
            f"release-only edits: none found on {newest}: no commit of it since "
            f"{model.main_branch} changes a line to name the release, so `release cut` makes "
            "none; add [[tool.mlrelease.release.edits]] if a release branch needs some."
        ]
    notes = []
    if edits.edits:
        paired = (
            f"; {newest} paired with {upstream} {edits.upstream}: `release cut --upstream "
            f"X.Y` gives the {upstream} series a new branch pairs with (an existing branch "
            "says its own)"
            if edits.upstream
            else ""
        )
        notes.append(f"release-only edits: made by {', '.join(edits.commits)} of {newest}{paired}.")
    if edits.also:
        notes.append(
            f"release-only edits: the upstream pins also made in {', '.join(edits.also)}, "
            f"workflows {model.main_branch} added since {newest} that use what it pinned."
        )
    notes += [f"release-only edit left out: {why}." for why in edits.left]
    return notes


def _other_config(root: Path) -> tuple[str, str] | None:
    """The first file that bump-my-version reads before pyproject.toml and that configures it:
    its name and text."""
    for name in kept_table.OTHER_CONFIGS:
        path = root / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if kept_table.other_entries(name, text) is not None:
                return name, text
    return None


def run(
    root: Path,
    *,
    execute: bool,
    load_config: Loader,
    gate_extras: Callable[..., list[str]],
    index: str | None = None,
) -> int:
    """Detect, show the proposal and its reasons; with ``execute``, append it to pyproject,
    then read it back with ``load_config`` (the registry's: every table, checked).
    ``gate_extras`` is the registry's too: the extras the proposed gates need."""
    root = root.resolve()
    if not root.is_dir():
        raise UserError(f"init: {root} is not a folder; pass --root PATH of the project.")
    path = root / "pyproject.toml"
    before = path.read_bytes() if path.is_file() else None
    try:
        current: dict[str, Any] = tomllib.loads(before.decode("utf-8")) if before else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML ({exc}); fix it before running init.") from None
    if "mlrelease" in current.get("tool", {}):
        console.print(f"{path} already has [tool.mlrelease]; nothing to propose or write.")
        return 0
    snap = snapshot.take(root)
    found = _with_branch(root, snap, _with_carriers(root, snap, detect.detect(snap)))
    required, platform_note = (None, "")
    if found.build.kind == "native" and found.build.builder == "cibuildwheel":
        required, platform_note = _native_platforms(root, current)
    original = (before or b"").decode("utf-8")
    proposal = propose.propose(
        found, current, required_platforms=required, text=original, other=_other_config(root)
    )
    if platform_note:
        proposal.notes.append(platform_note)
    if found.docs:
        proposal.notes += hard_coded_versions(root / found.docs / "conf.py")
    if index:
        name = found.name or str(current.get("project", {}).get("name", ""))
        text, why = _files(index, name, current)
        proposal.text += f"\n{text}" if text else ""
        proposal.notes += why
    table = Table(title=f"mlrelease init: {root.name}", title_justify="left")
    table.add_column("topic")
    table.add_column("found", overflow="fold")
    table.add_column("why", overflow="fold")
    for f in found.findings():
        table.add_row(f.topic, f.found, f.why)
    console.print(table)
    verb = "Appending to" if execute else "Proposed additions to"
    console.print(f"{verb} {path.name}{'' if before else ' (a new file)'}:")
    print(proposal.text, end="")
    for note in proposal.notes:
        console.print(f"- {note}")
    console.print("New files you may add (init writes none): " + "; ".join(proposal.new_files))
    cibuildwheel = found.build.kind != "pure" or "cibuildwheel" in current.get("tool", {})
    extras = gate_extras(proposal.gates, cibuildwheel=cibuildwheel)
    if extras:
        line = requirements.install_line(installed.environment(), extras)
        console.print(f"What these gates need (`mlrelease doctor` checks it): `{line}`")
    if not execute:
        console.print("Dry run: nothing written. Re-run with --execute to write pyproject.toml.")
        return 0
    if original and not original.endswith("\n"):
        original += "\n"
    path.write_text(original + ("\n" if original else "") + proposal.text, encoding="utf-8")
    try:
        load_config(root)
    except UserError:
        # Never leave a pyproject.toml that mlrelease itself refuses.
        if before is None:
            path.unlink()
        else:
            path.write_bytes(before)
        raise
    console.print(f"Wrote {path}. Next: `mlrelease verify` (and commit pyproject.toml).")
    return 0
