"""Version bumps through bump-my-version, dry-run unless executed, refused on a dirty tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from mlrelease import versions
from mlrelease.config import Config, read_toml
from mlrelease.edges import faults, git, installed, journal
from mlrelease.edges import proc as processes
from mlrelease.errors import PreconditionError, UserError

# `--part pre` increments the release-candidate / dev number (rc1 -> rc2); the other parts are
# bump-my-version's own (see [tool.bumpversion] parse).
PARTS = {"major": "major", "minor": "minor", "patch": "patch", "pre": "pre_n", "stage": "pre_l"}


@dataclass(frozen=True)
class Bump:
    """What a version bump will change: every occurrence of the current version, and the new
    one."""

    current: str
    new: str
    changes: list[tuple[str, int]]
    """(file, line) of each occurrence that the bump rewrites."""
    from_tags: bool = False
    """The version comes from git tags (``version-source = "scm"``): no file to rewrite."""

    @property
    def noop(self) -> bool:
        return self.current == self.new


def _tool() -> list[str]:
    installed.require("bumpversion", extra="release")  # this environment's, never PATH's
    return processes.python_module("bumpversion")


def _bmv(root: Path, *args: str) -> processes.CompletedProcess[str]:
    if faults.active():  # the kill harness: fault points inside bump-my-version's writes
        tool = processes.python_module("mlrelease.project.bump_faults")
        return processes.call([*tool, *args], cwd=root, env=faults.fault_env())
    return processes.call([*_tool(), *args], cwd=root)


def plan(config: Config, *, to: str | None = None, part: str | None = None) -> Bump:
    """Work out the new version and check every listed file carries the current one."""
    if (to is None) == (part is None):
        raise UserError(
            "bump: give exactly one of --to VERSION or --part {" + ",".join(PARTS) + "}."
        )
    source = str(config.pyproject_path)
    current = str(versions.bumpversion_table(config.pyproject, source)["current_version"])
    if to is not None:
        new = str(versions.parse(to, key="--to", source="command line"))
        if new != to:
            raise UserError(f"bump: --to {to!r} is not in canonical PEP 440 form; use {new!r}.")
    elif part not in PARTS:
        raise UserError(f"bump: --part {part!r}: expected one of {', '.join(PARTS)}.")
    if config.version_source == "scm":
        # Tag-derived versions (setuptools-scm, hatch-vcs): the release is the tag itself.
        return Bump(current, to or current, [], from_tags=True)
    new = _expressed(config, current, to=to, part=part)
    if config.version_source == "tag" and part in ("major", "minor", "patch"):
        # The files keep a development marker in the project's own style (2.14.0a0 ->
        # 2.15.0a0); bump-my-version alone resets the pre-release part to `.dev`.
        new = _expressed(config, current, to=_same_marker(current, new), part=None)
    found, problems = versions.scan(config.root, config.pyproject, source)
    stale = versions.mismatches(found, current)
    if problems or stale:
        lines = [f"{p.file}: {p.message}" for p in problems]
        lines += [f"{o.file}:{o.line} carries {o.value}, not {current}" for o in stale]
        raise PreconditionError(
            "bump: every listed file must carry the current version "
            + current
            + " first: "
            + "; ".join(lines)
            + ". Fix them (the `versions` gate shows the same) and re-run."
        )
    return Bump(current, new, [(o.file, o.line) for o in found])


def _same_marker(current: str, new: str) -> str:
    """``new``'s release with ``current``'s development marker (``a0``, ``b0``, ``.dev0``)."""
    was, release = Version(current), Version(new).base_version
    if was.pre is not None:
        return f"{release}{was.pre[0]}0"
    return f"{release}.dev0" if was.is_devrelease else release


def _expressed(config: Config, current: str, *, to: str | None, part: str | None) -> str:
    """The new version as bump-my-version writes it; refused when that is not what was asked.

    bump-my-version parses and serialises with ``[tool.bumpversion]`` ``parse`` and
    ``serialize``: with the default ``X.Y.Z`` ones, ``1.5.0.dev0`` would be written as
    ``1.5.0``. Such a bump fails here, before anything is written.
    """
    from bumpversion.bump import get_next_version
    from bumpversion.context import get_context
    from bumpversion.exceptions import BumpVersionError

    source = str(config.pyproject_path)
    bmv = versions.bumpversion_config(config.root, source)
    fix = (
        "Give [tool.bumpversion] a parse and serialize that cover it (`mlrelease init` proposes "
        "PEP 440 ones: X.Y.Z, X.Y.ZrcN, X.Y.Z.devN)."
    )
    old = bmv.version_config.parse(current)
    if old is None:
        raise UserError(
            f"bump: bump-my-version cannot parse the current version {current} with "
            f"tool.bumpversion.parse. {fix}"
        )
    try:
        if to is not None:
            new = bmv.version_config.parse(to)
            if new is None:
                raise UserError(
                    f"bump: bump-my-version cannot express {to}: tool.bumpversion.parse does "
                    f"not match it. {fix}"
                )
        else:
            new = get_next_version(old, bmv, PARTS[str(part)], None)
        written = bmv.version_config.serialize(new, get_context(bmv, old, new))
    except BumpVersionError as exc:
        raise UserError(f"bump: bump-my-version cannot increment {part}: {exc}") from None
    if to is not None and written != to:
        raise UserError(
            f"bump: bump-my-version cannot express {to}: its parse and serialize would write "
            f"{written!r}. {fix}"
        )
    return str(written)


def recover(root: Path, *, execute: bool) -> list[str]:
    """Undo an ``mlrelease bump`` killed mid-write (its journal names the files): restore them
    from HEAD. A dry run only refuses, saying so; it changes and deletes nothing."""
    data = journal.read_journal(root) if git.is_repo(root) else None
    if not data or not str(data.get("purpose", "")).startswith("mlrelease bump"):
        return []
    if not execute:
        raise PreconditionError(
            f"bump: an interrupted `{data['purpose']}` left {', '.join(data.get('files', []))} "
            "half-written; re-run with --execute: it restores them from HEAD and bumps again."
        )
    restored = journal.rollback(root)
    return [f"Restored {', '.join(restored) or 'nothing'} from HEAD (an interrupted bump)."]


def execute(config: Config, bump_plan: Bump, *, journalled: bool = False) -> None:
    """Rewrite the files. Refuses a dirty tree; restores every file if bump-my-version fails.
    With ``journalled``, the files are journalled first, so that :func:`recover` undoes a kill."""
    if bump_plan.noop or bump_plan.from_tags:
        return
    if git.is_repo(config.root):
        dirty = git.dirty_files(config.root)
        if dirty:
            raise PreconditionError(
                f"bump: the working tree has uncommitted changes ({', '.join(dirty[:5])}); "
                "commit or stash them first, so the bump is one reviewable change."
            )
    files = sorted({config.root / f for f, _ in bump_plan.changes} | {config.pyproject_path})
    saved = {path: path.read_bytes() for path in files}
    if journalled:
        names = [p.relative_to(config.root).as_posix() for p in files]
        purpose = f"mlrelease bump --to {bump_plan.new} --execute"
        journal.write_journal(config.root, names, purpose)
    proc = _bmv(config.root, "bump", "--new-version", bump_plan.new, "--allow-dirty")
    failure = (proc.stderr or proc.stdout).strip() if proc.returncode != 0 else ""
    if not failure:
        # Trust, then check: every occurrence now carries the new version.
        after = read_toml(config.pyproject_path)
        found, problems = versions.scan(config.root, after, str(config.pyproject_path))
        stale = versions.mismatches(found, bump_plan.new)
        if problems or stale or len(found) < len(bump_plan.changes):
            failure = (
                "after it ran, "
                + "; ".join(
                    [f"{p.file}: {p.message}" for p in problems]
                    + [f"{o.file}:{o.line} carries {o.value}" for o in stale]
                )
                or "after it ran, fewer files carry the new version"
            )
    if failure:
        for path, data in saved.items():
            path.write_bytes(data)
        if journalled:  # every file is restored: nothing is left to recover
            journal.drop_journal(config.root)
        raise UserError(
            f"bump-my-version did not write {bump_plan.new} (exit {proc.returncode}); every "
            f"file was restored: {failure}"
        )
    if journalled:
        faults.fault_point("bump:after:write")
        journal.drop_journal(config.root)
