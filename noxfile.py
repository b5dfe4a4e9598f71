"""Sessions of mlrelease: the same ones run by maintainers, contributors and GitHub Actions.

Tags: ``lint`` (static checks), ``release`` (what the release checklist runs), ``perf``
(release performance sessions; ``perf_gpu`` needs a CUDA device).
Sessions that change files are ``default=False``.
"""

from __future__ import annotations

import shutil

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"

PROJECT = nox.project.load_toml("pyproject.toml")

# Sessions that install torch use pip: pip reads the machine's find-links (here /opt/wheels, the
# CPU torch wheel); uv ignores pip's configuration and would fetch the CUDA build (GBs).
TORCH_BACKEND = "virtualenv"


def _install(session: nox.Session, *groups: str) -> None:
    """Install mlrelease (editable) with the given dependency groups."""
    session.install("-e", ".", *nox.project.dependency_groups(PROJECT, *groups))


@nox.session(venv_backend=TORCH_BACKEND)
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


@nox.session(tags=["release"], venv_backend=TORCH_BACKEND)
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


@nox.session(tags=["perf"], venv_backend=TORCH_BACKEND, default=False)
def perf(session: nox.Session) -> None:
    """Run the `cpu` perf profile; write results, plots and docs/perf; compare with the baseline."""
    _install(session, "perf")
    session.run("mlrelease", "perf", "run", "--profile", "cpu", *session.posargs)


@nox.session(tags=["perf", "gpu"], venv_backend=TORCH_BACKEND, default=False)
def perf_gpu(session: nox.Session) -> None:
    """Run the `gpu` perf profile (the seed's full matrix) on a CUDA device; skip elsewhere."""
    if shutil.which("nvidia-smi") is None:
        session.skip("no CUDA device here: nvidia-smi is not on PATH (no NVIDIA driver)")
    _install(session, "perf")
    # onnxruntime-gpu ships the same `onnxruntime` module as the CPU package: swap them.
    session.run("python", "-m", "pip", "uninstall", "--yes", "onnxruntime")
    session.install(*nox.project.dependency_groups(PROJECT, "perf-gpu"))
    session.run("mlrelease", "perf", "run", "--profile", "gpu", *session.posargs)


@nox.session(tags=["perf"], default=False)
def perf_merge(session: nox.Session) -> None:
    """Merge devices' perf results.json files into docs/perf/report.md (`-- FILE...`)."""
    _install(session, "perf-report")
    session.run("mlrelease", "perf", "merge", *session.posargs)
