"""Version bumps through bump-my-version, dry-run unless executed, refused on a dirty tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from mlrelease import version_files, versions
from mlrelease.config import Config, read_toml
from mlrelease.edges import faults, git, installed, journal
from mlrelease.edges import proc as processes
from mlrelease.errors import PreconditionError, UserError

PARTS = ("major", "minor", "patch", "pre", "stage")
"""What ``--part`` increments (:func:`next_version`): a release number, the pre-release or
development number (``pre``: rc1 -> rc2, a0 -> a1, .dev0 -> .dev1), or the pre-release stage
(``stage``: a -> b -> rc)."""
_STAGES = ("a", "b", "rc")


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


def _bmv(root: Path, verb: str, *args: str) -> processes.CompletedProcess[str]:
    """bump-my-version's ``verb`` in ``root``, on ``pyproject.toml``'s ``[tool.bumpversion]``.

    Left to itself, bump-my-version reads the first of ``.bumpversion.toml``,
    ``.bumpversion.cfg``, ``setup.cfg`` and ``pyproject.toml`` that configures it. Every check
    of mlrelease reads pyproject.toml's table (:func:`version_files.bumpversion_config`), so
    the write is held to that same table: another file's files and version are never written.
    """
    args = (verb, "--config-file", "pyproject.toml", *args)
    if faults.active():  # the kill harness: fault points inside bump-my-version's writes
        tool = processes.python_module("mlrelease.project.bump_faults")
        return processes.call([*tool, *args], cwd=root, env=faults.fault_env())
    return processes.call([*_tool(), *args], cwd=root)


def plan(config: Config, *, to: str | None = None, part: str | None = None) -> Bump:
    """Work out the new version and check every listed file carries the current one.

    Every bump goes through here (``mlrelease bump``, and ``release cut``/``prepare``/``rc``,
    which pass ``to``). Before anything is written, the new version is a PEP 440 version in
    its canonical form, which bump-my-version writes exactly; a part bump's is also greater
    than the current one and in its marker style (:func:`next_version`), or refused.
    """
    if (to is None) == (part is None):
        raise UserError(
            "bump: give exactly one of --to VERSION or --part {" + ",".join(PARTS) + "}."
        )
    source = str(config.pyproject_path)
    current = str(version_files.bumpversion_table(config.pyproject, source)["current_version"])
    if to is not None:
        new = str(versions.parse(to, key="--to", source="command line"))
        if new != to:
            raise UserError(f"bump: --to {to!r} is not in canonical PEP 440 form; use {new!r}.")
    elif part not in PARTS:
        raise UserError(f"bump: --part {part!r}: expected one of {', '.join(PARTS)}.")
    if config.version_source == "scm":
        # Tag-derived versions (setuptools-scm, hatch-vcs): the release is the tag itself.
        return Bump(current, to or current, [], from_tags=True)
    found, problems = version_files.scan(config.root, config.pyproject, source)
    carried = version_files.hand_edit(found, problems, current)
    if carried is not None:  # before a part is computed from the stale key
        raise PreconditionError(
            f"bump: {version_files.stale_current(current, carried)}.",
            repair=version_files.SYNC_REPAIR,
        )
    if part is not None:
        key = "tool.bumpversion.current_version"
        new = str(next_version(versions.parse(current, key=key, source=source), part))
    _expressible(config, current, new)
    stale = version_files.mismatches(found, current)
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


def next_version(current: Version, part: str) -> Version:
    """The version ``--part`` gives ``current``: always greater, in the same development-marker
    style (:func:`versions.same_style`), so the same kind of version the files carried.

    ``major``/``minor``/``patch`` increment that release number and keep the marker, its
    numbers at 0 (``0.12.0a0`` -> ``0.13.0a0``, ``1.4.0.dev3`` -> ``1.4.1.dev0``, ``0.19.0`` ->
    ``0.20.0``); ``pre`` increments the pre-release number, else the development number
    (``2.14.0a0`` -> ``2.14.0a1``, ``1.4.0.dev0`` -> ``1.4.0.dev1``); ``stage`` moves ``a`` to
    ``b`` to ``rc``. Anything else is refused (:class:`UserError`, saying what to use).
    """
    dev = ".dev0" if current.is_devrelease else ""
    if part in ("major", "minor", "patch"):
        return versions.restyled(_release(current, PARTS.index(part)), current)
    if part == "pre" and current.pre is not None:
        return Version(f"{current.base_version}{current.pre[0]}{current.pre[1] + 1}{dev}")
    if part == "pre" and current.dev is not None:
        post = f".post{current.post}" if current.post is not None else ""
        return Version(f"{current.base_version}{post}.dev{current.dev + 1}")
    if part == "stage" and current.pre is not None and current.pre[0] != "rc":
        stage = _STAGES[_STAGES.index(current.pre[0]) + 1]
        return Version(f"{current.base_version}{stage}0{dev}")
    raise UserError(_refusal(current, part))


def _release(current: Version, index: int) -> str:
    """``current``'s release (epoch included) with number ``index`` incremented and the later
    ones at 0, as many numbers as it has (at least ``index + 1``)."""
    numbers = [*current.release, *[0] * (index + 1 - len(current.release))]
    numbers[index:] = [numbers[index] + 1] + [0] * (len(numbers) - index - 1)
    epoch = f"{current.epoch}!" if current.epoch else ""
    return epoch + ".".join(map(str, numbers))


def _refusal(current: Version, part: str) -> str:
    """Why ``--part`` has no version to give ``current``, and what to use instead."""
    minor, patch = _release(current, 1), _release(current, 2)
    base = current.base_version
    head = f"bump: --part {part} cannot bump {current}"
    if current.pre is not None:  # `stage` at rc
        return (
            f"{head}: rc is the last pre-release stage. The release is `--to {base}`; the next "
            f"candidate is `--part pre` ({next_version(current, 'pre')})."
        )
    if current.dev is not None:  # `stage` on X.Y.Z.devN
        return (
            f"{head}: it would turn its development marker (.devN) into a pre-release (aN), "
            f"another marker style. Use `--part pre` ({next_version(current, 'pre')}), or "
            f"`--to {base}a0` to change the style on purpose."
        )
    nothing = "stage to advance" if part == "stage" else "or development number to increment"
    return (
        f"{head}: it is {versions.kind(current)}, with no pre-release {nothing}, and "
        f"a pre-release of it ({base}rc1) would sort before it. Use `--part minor` ({minor}) or "
        f"`--part patch` ({patch}), or `--to {minor}a0` to start the next version with a "
        "development marker."
    )


def _expressible(config: Config, current: str, new: str) -> None:
    """Refuse a version bump-my-version would not write exactly as ``new``.

    bump-my-version parses and serialises with ``[tool.bumpversion]`` ``parse`` and
    ``serialize``: with the default ``X.Y.Z`` ones, ``1.5.0.dev0`` would be written as
    ``1.5.0``. Such a bump fails here, before anything is written.
    """
    from bumpversion.context import get_context
    from bumpversion.exceptions import BumpVersionError

    bmv = version_files.bumpversion_config(config.root, str(config.pyproject_path))
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
    parsed = bmv.version_config.parse(new)
    if parsed is None:
        raise UserError(
            f"bump: bump-my-version cannot express {new}: tool.bumpversion.parse does not match "
            f"it. {fix}"
        )
    try:
        written = bmv.version_config.serialize(parsed, get_context(bmv, old, parsed))
    except BumpVersionError as exc:
        raise UserError(f"bump: bump-my-version cannot write {new}: {exc}") from None
    if written != new:
        raise UserError(
            f"bump: bump-my-version cannot express {new}: its parse and serialize would write "
            f"{written!r}. {fix}"
        )


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
        found, problems = version_files.scan(config.root, after, str(config.pyproject_path))
        stale = version_files.mismatches(found, bump_plan.new)
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
