"""Sessions of mlrelease: the same ones run by maintainers, contributors and GitHub Actions.

Tags: ``lint`` (static checks), ``release`` (what the release checklist runs).
Sessions that change files are ``default=False``.
"""

from __future__ import annotations

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"

PROJECT = nox.project.load_toml("pyproject.toml")


def _install(session: nox.Session, *groups: str) -> None:
    """Install mlrelease (editable) with the given dependency groups."""
    session.install("-e", ".", *nox.project.dependency_groups(PROJECT, *groups))


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (unit and integration, real git repositories and runtimes)."""
    _install(session, "test")
    session.run("pytest", *session.posargs)


@nox.session(tags=["lint"])
def lint(session: nox.Session) -> None:
    """Lint with ruff and type-check src, noxfile.py, tasks.py and scripts with mypy."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session(tags=["release"])
def release_verify(session: nox.Session) -> None:
    """Check every release exit criterion; exit 0 only when the release may ship."""
    _install(session, "test")
    session.run("mlrelease", "verify", *session.posargs)


@nox.session(tags=["release"], default=False)
def changelog(session: nox.Session) -> None:
    """Regenerate CHANGELOG.md from Conventional Commits (dry run unless `-- --execute`)."""
    _install(session, "release")
    session.run("mlrelease", "changelog", *session.posargs)


@nox.session(default=False)
def cli(session: nox.Session) -> None:
    """Run the mlrelease CLI with the release tools installed (`nox -s cli -- --help`)."""
    _install(session, "release")
    session.run("mlrelease", *session.posargs)


@nox.session(tags=["release"], default=False)
def ops_index(session: nox.Session) -> None:
    """Regenerate the supported-operators index and page (`-- --check`: fail when stale)."""
    _install(session, "ops")
    session.run("mlrelease", "ops", "index", *session.posargs)
