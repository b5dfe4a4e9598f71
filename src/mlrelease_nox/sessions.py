"""The sessions an adopter's noxfile.py gets with ``from mlrelease_nox.sessions import *``.

Each installs what it needs into its own virtual environment: the mlrelease that nox runs with,
with the extras of the session (``release_verify``: the extras of the configured gates), and
the project itself where its tests or docs need it. Tags: ``release``, ``docs``, ``perf``.
"""

from __future__ import annotations

import shutil

import nox

from mlrelease_nox import (
    gate_extras,
    install,
    pyproject,
    run_docs,
    run_ops_index,
    run_perf,
    run_verify,
    run_wheels,
)

__all__ = [
    "changelog",
    "docs",
    "mlrelease",
    "ops_index",
    "perf",
    "perf_gpu",
    "release_verify",
    "verify_models",
    "wheels",
]

BACKEND = "uv|virtualenv"
"""uv where it is installed (an order of magnitude faster), else virtualenv and pip."""


@nox.session(tags=["release"], venv_backend=BACKEND)
def release_verify(session: nox.Session) -> None:
    """Check every release exit criterion; exit 0 only when the release may ship."""
    install(session, *gate_extras(pyproject()), project=True)
    run_verify(session)


@nox.session(tags=["release"], venv_backend=BACKEND, default=False)
def changelog(session: nox.Session) -> None:
    """Regenerate the changelog from Conventional Commits (dry run unless `-- --execute`)."""
    install(session, "release")
    session.run("mlrelease", "changelog", *session.posargs)


@nox.session(venv_backend=BACKEND, default=False)
def mlrelease(session: nox.Session) -> None:
    """Run any mlrelease command with the release and wheel tools (`nox -s mlrelease -- release
    status`): `release bind` builds the RC's reference, `publish` uploads with twine."""
    install(session, "release", "wheels")
    session.run("mlrelease", *session.posargs)


@nox.session(tags=["release"], venv_backend=BACKEND, default=False)
def wheels(session: nox.Session) -> None:
    """Build, audit and smoke-test the sdist and wheels into dist/ (`-- --plan`: the CI matrix)."""
    install(session, "wheels")
    run_wheels(session)


@nox.session(tags=["docs"], venv_backend=BACKEND, default=False)
def docs(session: nox.Session) -> None:
    """Build the docs (warnings are errors, internal links checked); serve when interactive."""
    install(session, "docs", project=True)
    run_docs(session)


@nox.session(tags=["release"], venv_backend=BACKEND, default=False)
def verify_models(session: nox.Session) -> None:
    """Verify the project's models, or a submission (`-- path/to/submission/`)."""
    install(session, "models")
    session.run("mlrelease", "models", "verify", *session.posargs)


@nox.session(tags=["release"], venv_backend=BACKEND, default=False)
def ops_index(session: nox.Session) -> None:
    """Regenerate the supported-operators index and page (`-- --check`: fail when stale)."""
    install(session, "ops", project=True)
    run_ops_index(session)


@nox.session(tags=["perf"], venv_backend=BACKEND, default=False)
def perf(session: nox.Session) -> None:
    """Run the `cpu` perf profile (torch's CPU build); compare with the baseline."""
    install(session, "perf", project=True)
    run_perf(session, "cpu")


@nox.session(tags=["perf", "gpu"], venv_backend=BACKEND, default=False)
def perf_gpu(session: nox.Session) -> None:
    """Run the `gpu` perf profile on a CUDA device; skip elsewhere."""
    if shutil.which("nvidia-smi") is None:
        session.skip("no CUDA device here: nvidia-smi is not on PATH (no NVIDIA driver)")
    install(session, "perf-gpu", project=True)
    run_perf(session, "gpu")
