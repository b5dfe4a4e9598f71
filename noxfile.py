"""Sessions of mlrelease: the same ones run by maintainers, contributors and GitHub Actions.

Tags: ``lint`` (static checks), ``release`` (what the release checklist runs), ``docs``,
``perf`` (release performance sessions; ``perf_gpu`` needs a CUDA device).
Sessions that change files are ``default=False``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nox

# The sessions' bodies are the ones adopters get (mlrelease_nox): it releases itself with itself.
# nox runs this file with its own interpreter, where mlrelease need not be installed.
sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
import mlrelease_nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"

PROJECT = nox.project.load_toml("pyproject.toml")
WHEEL_PROJECTS = [".", "examples/native-adopter"]
"""Projects whose artifacts `nox -s wheels` builds: mlrelease (pure) and the native example."""

# Sessions that install torch use pip: pip reads the machine's find-links (a local wheelhouse);
# uv ignores pip's configuration.
TORCH_BACKEND = "virtualenv"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
"""Where torch's CPU build comes from when no local wheel has it (PyPI's Linux wheel is CUDA)."""


def _install(session: nox.Session, *groups: str) -> None:
    """Install mlrelease (editable) with the given dependency groups: their ``mlrelease[...]``
    entries become extras of the editable install (pip cannot match them to ``-e .``)."""
    extras: set[str] = set()
    rest: list[str] = []
    for requirement in nox.project.dependency_groups(PROJECT, *groups):
        included = re.fullmatch(r"mlrelease\[([^\]]*)\]", requirement)
        if included:
            extras.update(e.strip() for e in included.group(1).split(","))
        else:
            rest.append(requirement)
    session.install("-e", f".[{','.join(sorted(extras))}]" if extras else ".", *rest)


def _install_cpu_torch(session: nox.Session) -> None:
    """Install the pinned torch as a CPU build, before the groups that need it: from a local
    wheelhouse (pip's find-links) when it has the pin, else from the PyTorch CPU index."""
    pin = next(r for r in nox.project.dependency_groups(PROJECT, "perf") if r.startswith("torch"))
    python = [session.virtualenv.bin + "/python", "-m", "pip", "install", "--quiet"]
    local = subprocess.run([*python, "--no-index", "--no-deps", pin], check=False)
    if local.returncode != 0:
        # Beside the default index: `2.13.0+cpu` sorts above `2.13.0`, so pip takes the CPU build.
        session.install("--extra-index-url", TORCH_CPU_INDEX, pin)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit and integration lanes (real git repositories, runtimes, builds; no torch)."""
    _install(session, "test")
    session.run(
        "pytest", *(session.posargs or ["tests/unit", "tests/integration", "tests/defects"])
    )


@nox.session(default=False)
def tests_unit(session: nox.Session) -> None:
    """Run the unit lane alone: pure code, no subprocess, no torch (well under a minute)."""
    _install(session, "test")
    session.run("pytest", "tests/unit", *session.posargs)


# A fresh venv each time: uv keeps an installed version that still satisfies a range, so a
# reused venv would not go down to a lowered bound.
@nox.session(venv_backend="uv", reuse_venv=False, default=False)
def tests_lowest(session: nox.Session) -> None:
    """Prove the extras' lower bounds: every direct requirement at its lowest version (uv's
    lowest-direct resolution of `mlrelease[all]`); the unit lane and the bump/changelog tests."""
    session.install("--resolution", "lowest-direct", "-e", ".[all]", "--group", "test-lowest")
    session.run("pytest", *(session.posargs or ["tests/unit", "tests/integration/project"]))


@nox.session(tags=["perf"], venv_backend=TORCH_BACKEND, default=False)
def tests_perf(session: nox.Session) -> None:
    """Run the perf-integration lane: real profile runs with CPU torch and the ONNX exporter."""
    _install_cpu_torch(session)
    _install(session, "test-perf")
    session.run("pytest", "tests/perf_integration", *session.posargs)


@nox.session(tags=["lint"])
def lint(session: nox.Session) -> None:
    """Lint with ruff, type-check with mypy, check the workflows with actionlint and zizmor."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("actionlint")
    session.run("zizmor", "--offline", ".github/workflows")


@nox.session(tags=["release"], venv_backend=TORCH_BACKEND)
def release_verify(session: nox.Session) -> None:
    """Check every release exit criterion; exit 0 only when the release may ship."""
    _install_cpu_torch(session)  # the perf gate exports and runs the perf models
    _install(session, "test-perf")
    mlrelease_nox.run_verify(session)


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
    mlrelease_nox.run_wheels(session, WHEEL_PROJECTS)


@nox.session(tags=["docs"], default=False)
def docs(session: nox.Session) -> None:
    """Build the docs (warnings are errors, internal links checked); serve them when interactive."""
    _install(session, "docs")
    mlrelease_nox.run_docs(session)


@nox.session(tags=["release"])
def verify_models(session: nox.Session) -> None:
    """Verify the default model set, or a Model Zoo submission (`-- path/to/submission/`)."""
    _install(session, "models")
    session.run("mlrelease", "models", "verify", *session.posargs)


@nox.session(tags=["release"], default=False)
def downstream(session: nox.Session) -> None:
    """Verify a release candidate with its consumers' own tests (`mlrelease downstream ...`)."""
    _install(session, "downstream")
    session.run("mlrelease", "downstream", *(session.posargs or ["run"]))


@nox.session(tags=["release"], default=False)
def ops_index(session: nox.Session) -> None:
    """Regenerate the supported-operators index and page (`-- --check`: fail when stale)."""
    _install(session, "ops")
    mlrelease_nox.run_ops_index(session)  # regenerates (the command alone is a dry run)


@nox.session(tags=["perf"], venv_backend=TORCH_BACKEND, default=False)
def perf(session: nox.Session) -> None:
    """Run the `cpu` perf profile; write results, plots and docs/perf; compare with the baseline."""
    _install_cpu_torch(session)
    _install(session, "perf")
    mlrelease_nox.run_perf(session, "cpu")


@nox.session(tags=["perf", "gpu"], venv_backend=TORCH_BACKEND, default=False)
def perf_gpu(session: nox.Session) -> None:
    """Run the `gpu` perf profile (the seed's full matrix) on a CUDA device; skip elsewhere."""
    if shutil.which("nvidia-smi") is None:
        session.skip("no CUDA device here: nvidia-smi is not on PATH (no NVIDIA driver)")
    _install(session, "perf-gpu")  # its own stack: onnxruntime-gpu, never beside onnxruntime
    mlrelease_nox.run_perf(session, "gpu")


@nox.session(tags=["perf"], default=False)
def perf_merge(session: nox.Session) -> None:
    """Merge devices' perf results.json files into docs/perf/report.md (`-- FILE...`)."""
    _install(session, "perf-report")
    session.run("mlrelease", "perf", "merge", *session.posargs)


@nox.session(tags=["docs"], default=False)
def defects_doc(session: nox.Session) -> None:
    """Write docs/defects.md from the incident tests in tests/defects (`-- --check`: drift)."""
    session.run("python", "scripts/defects_doc.py", *session.posargs)


@nox.session(tags=["release"], default=False)
def adoption(session: nox.Session) -> None:
    """Adopt mlrelease in real ONNX / PyTorch projects from PyPI; writes docs/adoption.md."""
    _install(session, "wheels")  # bump-my-version, cibuildwheel: what init and verify call
    session.run("python", "scripts/adoption_matrix.py", *session.posargs)
