"""``mlrelease bump --sync``: after a hand edit of the version files, ``[tool.bumpversion]
current_version`` follows them (the files are the truth). bump-my-version writes the key, and
nothing else: ``--no-configured-files`` leaves every version file as it is."""

from __future__ import annotations

import re

from mlrelease import version_files
from mlrelease.config import Config, read_toml
from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.project.bump import Bump, _bmv


def plan(config: Config) -> Bump:
    """What ``--sync`` changes: ``current_version`` to the one version every listed file
    carries (nothing when it carries it already); refused when the files disagree, naming
    each, since then no version is the truth."""
    source = str(config.pyproject_path)
    current = str(version_files.bumpversion_table(config.pyproject, source)["current_version"])
    found, problems = version_files.scan(config.root, config.pyproject, source)
    carried = version_files.hand_edit(found, problems, current)
    if carried is None and (problems or version_files.mismatches(found, current)):
        lines = [f"{p.file}: {p.message}" for p in problems]
        lines += [f"{o.file}:{o.line} carries {o.value}" for o in found if o.value != current]
        raise PreconditionError(
            "bump --sync: the version files do not carry one version, so none of them is the "
            f"truth: {'; '.join(lines)}. Make them agree by hand, then re-run."
        )
    text = config.pyproject_path.read_text(encoding="utf-8")
    key = re.search(r"^current_version\s*=", text, re.M)
    line = text.count("\n", 0, key.start()) + 1 if key else 0
    return Bump(current, carried or current, [("pyproject.toml", line)])


def execute(config: Config, synced: Bump) -> None:
    """Write the key (only pyproject.toml may be uncommitted beforehand: the hand edit may
    be), then check that every file now carries it; pyproject.toml is restored on failure."""
    if synced.noop:
        return
    if "pyproject.toml" in (git.dirty_files(config.root) if git.is_repo(config.root) else []):
        raise PreconditionError(
            "bump --sync: pyproject.toml has uncommitted changes; commit or stash them first, "
            "so the change is one reviewable edit of current_version."
        )
    path = config.pyproject_path
    saved = path.read_bytes()
    proc = _bmv(
        config.root,
        *("bump", "--current-version", synced.current, "--new-version", synced.new),
        *("--no-configured-files", "--allow-dirty"),
    )
    after = read_toml(path)
    found, problems = version_files.scan(config.root, after, str(path))
    wrong = problems or version_files.mismatches(found, synced.new)
    if proc.returncode != 0 or wrong:
        path.write_bytes(saved)
        shown = (proc.stderr or proc.stdout).strip() if proc.returncode else str(wrong)
        raise UserError(
            f"bump --sync: bump-my-version did not set current_version to {synced.new} "
            f"(exit {proc.returncode}): {shown}. pyproject.toml was restored."
        )
