"""Freeze one version's docs from its release tag into the versioned site.

``plan`` checks every precondition and describes the change without writing anything;
``execute`` carries it out: a git worktree at the tag, a fresh environment with the tag's own
docs dependency group (and the project as it was at the tag), a Sphinx build with the version
injected on the command line (``-D version=... -D release=...``) and in the environment
(:data:`VERSION_ENV`, for the switcher's ``version_match``), then the new folder and
``switcher.json``. ``conf.py`` is never edited. A failure before the last step leaves the site
as it was; the worktree and the environment are removed either way.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import Version

from mlrelease import versions
from mlrelease.config import Config
from mlrelease.docs import site, sphinx_run, switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.docs.switcher import Entry
from mlrelease.edges import git
from mlrelease.edges.proc import call, display, python_module
from mlrelease.errors import PreconditionError, UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

VERSION_ENV = "MLRELEASE_DOCS_VERSION"
"""Set for a frozen build: the version the switcher marks as current (``main`` for dev docs)."""


class BuildFailed(UserError):
    """Sphinx (or installing the tag's dependencies) failed; the site was not changed."""

    exit_code = 1


@dataclass(frozen=True)
class Freeze:
    """What a freeze will do; every precondition has been checked."""

    name: str
    """The site folder and switcher version: ``1.4.0``, or ``main`` for the dev docs."""
    ref: str
    """What is built: the tag (``v1.4.0``), or ``HEAD`` for the dev docs."""
    commit: str
    release: str | None
    """The version injected into Sphinx; None for the dev docs (conf.py's own)."""
    root: Path
    source: str
    group: str
    requirements: list[str]
    """The current config's docs group, flattened, when the tag's pyproject predates it
    (empty: the tag's own group is installed)."""
    install_project: bool
    site: Path
    replaces: bool
    before: list[Entry] | None
    after: list[Entry]

    @property
    def target(self) -> Path:
        return self.site / self.name


def release_version(text: str) -> Version:
    """``1.4.0``, ``v1.4.0``, ``1.4.0rc2`` or ``v1.4.0-rc2`` -> the release's version."""
    tagged = versions.tag_to_version(text)
    if tagged is not None:
        return tagged
    version = versions.parse(text, key="--version", source="the command line")
    try:
        versions.version_to_tag(version)
    except ValueError as exc:
        raise UserError(
            f"--version {text}: {exc}. Freeze a release such as 1.4.0 or a "
            "release candidate such as 1.4.0rc1."
        ) from None
    return version


def plan(
    config: Config,
    docs: DocsConfig,
    *,
    version: str | None = None,
    dev: bool = False,
    site_dir: Path | None = None,
    force: bool = False,
) -> Freeze:
    """Check the preconditions of freezing ``version`` (or the dev docs) and describe it."""
    root = config.root
    docs.validate(str(config.pyproject_path))
    if not git.is_repo(root):
        raise PreconditionError(f"{root} is not a git repository: docs are frozen from tags.")
    name, ref, release, commit = _source(config, version, dev)
    pyproject = _toml_at(root, commit, "pyproject.toml", ref)
    groups = pyproject.get("dependency-groups", {})
    requirements: list[str] = []
    if docs.group not in groups:
        # A tag older than the docs group: the build environment comes from the current config.
        current = config.pyproject.get("dependency-groups", {})
        if docs.group not in current:
            raise PreconditionError(
                f"neither {ref}:pyproject.toml nor the current pyproject.toml has "
                f"[dependency-groups] {docs.group}: expected the group listing what the docs "
                f"need (tool.mlrelease.docs.group), found {', '.join(current) or 'no groups'}."
            )
        requirements = flatten_group(current, docs.group)
    if not _exists_at(root, commit, f"{docs.source}/conf.py"):
        raise PreconditionError(
            f"{ref} has no {docs.source}/conf.py: expected a Sphinx project in the folder "
            "tool.mlrelease.docs.source names."
        )
    site_dir = (site_dir if site_dir is not None else config.path(docs.site)).resolve()
    target = site_dir / name
    if target.exists() and not dev and not force:
        raise PreconditionError(
            f"{target} already holds the frozen docs of {name}; nothing was changed. "
            "Pass --force to rebuild them from the tag."
        )
    if site.is_checkout(site_dir):
        dirty = git.dirty_files(site_dir)
        if dirty:
            raise PreconditionError(
                f"the site checkout {site_dir} has uncommitted changes ({', '.join(dirty[:5])}): "
                "a freeze commits there. Commit or discard them first."
            )
    before = site.read_switcher(site_dir)
    listed = switcher.versions(before or [])
    has_dev = dev or (site_dir / switcher.DEV).is_dir() or switcher.has_dev(before or [])
    after = switcher.entries([*listed, *([] if dev else [name])], docs.base_url, dev=has_dev)
    return Freeze(
        name=name,
        ref=ref,
        commit=commit,
        release=release,
        root=root,
        source=docs.source,
        group=docs.group,
        requirements=requirements,
        install_project="project" in pyproject,
        site=site_dir,
        replaces=target.exists(),
        before=before,
        after=after,
    )


def _source(config: Config, version: str | None, dev: bool) -> tuple[str, str, str | None, str]:
    """(site folder name, ref, release version, commit) of what is frozen: the release tag of
    ``version`` as the project spells its tags, or HEAD for the dev docs."""
    root = config.root
    if dev:
        commit = git.head(root)
        if commit is None:
            raise PreconditionError(f"{root} has no commit yet: there is nothing to build.")
        return switcher.DEV, "HEAD", None, commit
    if not version:
        raise UserError("Give --version X.Y.Z (a release tag's version) or --dev.")
    parsed = release_version(version)
    # The tag as the project spells its tags ([tool.mlrelease.release] tag / rc-tag).
    names = config.names
    ref = names.rc_tag_for(parsed, parsed.pre[1]) if parsed.pre else names.final_tag(parsed)
    name = str(parsed)
    commit = git.run(
        root, "rev-parse", "--verify", "--quiet", f"refs/tags/{ref}^{{commit}}", check=False
    )
    if not commit:
        found = git.run(root, "tag", "--list", "v*", "--sort=-v:refname", check=False)
        tags = [t for t in found.split() if versions.tag_to_version(t) is not None]
        shown = ", ".join(tags[:10]) or "none"
        raise PreconditionError(
            f"tag {ref} does not exist in {root}: docs of {name} are frozen from it. "
            f"Release tags found: {shown}. Create the tag first, or fetch it "
            "(git fetch --tags)."
        )
    return name, ref, name, commit


def execute(plan: Freeze, *, log: Path, step: Callable[[str], Any] | None = None) -> str | None:
    """Build and publish; returns the site commit when the site is a git checkout."""
    say = step or (lambda message: None)
    temporary = Path(tempfile.mkdtemp(prefix=f"mlrelease-docs-{plan.name}-"))
    worktree = temporary / "src"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("", encoding="utf-8")
    try:
        say(f"checking out {plan.ref} ({plan.commit[:12]}) in a worktree")
        git.run(plan.root, "worktree", "add", "--detach", str(worktree), plan.commit)
        say(f"installing {plan.ref}'s [dependency-groups] {plan.group}")
        python = _environment(temporary / "env", worktree, plan, log)
        say(f"building the docs of {plan.name}")
        overrides = {"version": plan.release, "release": plan.release} if plan.release else {}
        result = sphinx_run.build(
            worktree / plan.source,
            temporary / "html" / "out",
            strict=False,
            doctrees=temporary / "doctrees",
            overrides=overrides,
            env={VERSION_ENV: plan.name},
            python=python,
            log=temporary / "sphinx.log",
            cwd=worktree,
        )
        _append(log, (temporary / "sphinx.log").read_text(encoding="utf-8"))
        if result.returncode != 0:
            raise BuildFailed(
                f"Sphinx failed building {plan.ref} (exit {result.returncode}); the site was not "
                f"changed. Last lines of {log}:\n{_tail(log)}"
            )
        say(f"writing {plan.name}/ and {switcher.FILENAME} in the site")
        plan.site.mkdir(parents=True, exist_ok=True)
        site.replace_folder(temporary / "html" / "out", plan.target)
        site.write_index(plan.site, plan.after)
        if site.is_checkout(plan.site):
            what = "dev docs" if plan.release is None else "docs"
            return site.commit(
                plan.site, f"docs: freeze {plan.name} {what} from {plan.ref} ({plan.commit[:12]})"
            )
        return None
    finally:
        git.run(plan.root, "worktree", "remove", "--force", str(worktree), check=False)
        git.run(plan.root, "worktree", "prune", check=False)
        shutil.rmtree(temporary, ignore_errors=True)


def _environment(env_dir: Path, worktree: Path, plan: Freeze, log: Path) -> str:
    """A fresh virtual environment with the tag's docs group (and the project at the tag)."""
    bindir = "Scripts" if os.name == "nt" else "bin"
    python = str(env_dir / bindir / ("python.exe" if os.name == "nt" else "python"))
    project = [str(worktree)] if plan.install_project else []
    # The tag's own group, or the current config's requirements for a tag that predates it.
    wanted = list(plan.requirements) if plan.requirements else ["--group", plan.group]
    uv = shutil.which("uv")
    if uv:  # uv when present: an order of magnitude faster than pip for a fresh environment
        steps = [
            [uv, "venv", "--quiet", "--python", sys.executable, str(env_dir)],
            [uv, "pip", "install", "--quiet", "--python", python, *project, *wanted],
        ]
    else:  # pip reads dependency groups (--group) from 25.1 on
        steps = [
            python_module("venv", str(env_dir)),
            python_module(
                "pip", "install", "--quiet", "--upgrade", "pip>=25.1", interpreter=python
            ),
            python_module("pip", "install", "--quiet", *project, *wanted, interpreter=python),
        ]
    for args in steps:
        proc = call(args, cwd=worktree)
        _append(log, f"$ {display(args)}\n{proc.stdout}{proc.stderr}")
        if proc.returncode != 0:
            raise BuildFailed(
                f"installing {plan.ref}'s docs dependencies failed (exit {proc.returncode}); the "
                f"site was not changed. Last lines of {log}:\n{_tail(log)}"
            )
    return python


def flatten_group(groups: dict[str, Any], name: str, seen: tuple[str, ...] = ()) -> list[str]:
    """The requirements of dependency group ``name``, its ``include-group`` entries expanded."""
    if name in seen or name not in groups:
        raise PreconditionError(
            f"[dependency-groups] {name}: "
            + ("includes itself" if name in seen else "does not exist")
            + f" (reached through {' -> '.join((*seen, name))})."
        )
    out: list[str] = []
    for item in groups[name]:
        if isinstance(item, dict) and "include-group" in item:
            out += flatten_group(groups, str(item["include-group"]), (*seen, name))
        else:
            out.append(str(item))
    return out


def _toml_at(root: Path, commit: str, path: str, ref: str) -> dict[str, Any]:
    text = git.run(root, "show", f"{commit}:{path}", check=False)
    if not text:
        raise PreconditionError(f"{ref} has no {path}: expected the project file at the tag.")
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PreconditionError(f"{ref}:{path} is not valid TOML ({exc}).") from None
    return data


def _exists_at(root: Path, commit: str, path: str) -> bool:
    return bool(git.run(root, "ls-tree", "--name-only", commit, "--", path, check=False))


def _append(log: Path, text: str) -> None:
    with log.open("a", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")


def _tail(log: Path, lines: int = 20) -> str:
    return "\n".join(log.read_text(encoding="utf-8").splitlines()[-lines:])
