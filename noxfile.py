"""Sessions of mlrelease: the same ones run by maintainers, contributors and GitHub Actions.

Tags: ``lint`` (static checks), ``release`` (what the release checklist runs), ``docs``.
Sessions that change files are ``default=False``.
"""

from __future__ import annotations

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"

PROJECT = nox.project.load_toml("pyproject.toml")
WHEEL_PROJECTS = [".", "examples/native-adopter"]
"""Projects whose artifacts `nox -s wheels` builds: mlrelease (pure) and the native example."""


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
    """Lint with ruff, type-check with mypy, check the workflows with actionlint and zizmor."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("actionlint")
    session.run("zizmor", "--offline", ".github/workflows")


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
def wheels(session: nox.Session) -> None:
    """Build, audit and smoke-test sdists and wheels into dist/ (`-- --plan`: the CI matrix)."""
    _install(session, "wheels")
    args = session.posargs or ["build"]
    args = ["plan", *args[1:]] if args[0] == "--plan" else args
    if args[0] in ("plan", "build") and "--project" not in args:
        args += [f"--project={p}" for p in WHEEL_PROJECTS]
    session.run("mlrelease", "wheels", *args)


@nox.session(tags=["docs"], default=False)
def docs(session: nox.Session) -> None:
    """Build the docs (warnings are errors, internal links checked); serve them when interactive."""
    _install(session, "docs")
    serve = ["--serve"] if session.interactive else []
    session.run("mlrelease", "docs", "build", *serve, *session.posargs)


@nox.session(tags=["release"])
def verify_models(session: nox.Session) -> None:
    """Verify the default model set, or a Model Zoo submission (`-- path/to/submission/`)."""
    _install(session, "models")
    session.run("mlrelease", "models", "verify", *session.posargs)


@nox.session(tags=["release"], default=False)
def ops_index(session: nox.Session) -> None:
    """Regenerate the supported-operators index and page (`-- --check`: fail when stale)."""
    _install(session, "ops")
    session.run("mlrelease", "ops", "index", *session.posargs)
