"""Sessions of mlrelease: the same ones run by maintainers, contributors and GitHub Actions.

Tags: ``lint`` (static checks), ``release`` (what the release checklist runs), ``docs``,
``perf`` (release performance sessions; ``perf_gpu`` needs a CUDA device).
Sessions that change files are ``default=False``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nox

# The sessions' bodies are the ones adopters get (mlrelease_nox): it releases itself with itself.
# nox runs this file with its own interpreter, where mlrelease need not be installed.
sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
import mlrelease_nox

nox.needs_version = ">=2025.2.9"
# uv creates the environments and installs (`pip install nox uv`, as the README says); without
# uv, nox falls back to virtualenv and pip, slower but the same sessions.
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"

PROJECT = nox.project.load_toml("pyproject.toml")
WHEEL_PROJECTS = [".", "examples/native-adopter"]
"""Projects whose artifacts `nox -s wheels` builds: mlrelease (pure) and the native example."""

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
"""Where torch's CPU build comes from when no local wheel has it (PyPI's Linux wheel is CUDA)."""
WHEELHOUSE_VARIABLES = ("UV_FIND_LINKS", "PIP_FIND_LINKS")
"""The machine's local wheel folders, as pip and uv spell them (uv reads only its own)."""
PYTEST_PARALLEL = ["-n", "auto", "--dist", "loadgroup"]
"""pytest-xdist: one worker per CPU, the tests of one expensive fixture on one worker
(tests/conftest.py `SHARED_BUILDS`); `-- -n 0` runs in one process."""

WORKFLOWS_PARALLEL = ["-n", "auto", "--dist", "loadscope", "--no-loadscope-reorder"]
"""The rehearsal's modules on a worker per CPU, each module (its clone and act runs) on one, in
the order tests/workflows/conftest.py gives them (the longest first); `-- -n 0` runs in one
process."""

TEST_LANES = ["tests/unit", "tests/integration", "tests/defects"]
"""What `nox -s tests` runs (the perf-integration lane is `nox -s tests_perf`)."""
PYTEST_REPORT = ["-p", "no:cacheprovider", "--durations", "20"]
"""No cache folder written into the tree (it would change the tree a reused verdict is keyed
by), and the slowest tests listed at the end of every run."""

_clock = {"imported": time.monotonic(), "installs": 0}
"""When nox loaded this file, and how many installs ran since (0: the first session)."""


def _install(session: nox.Session, *groups: str) -> None:
    """Install mlrelease (editable) with the given dependency groups: their ``mlrelease[...]``
    entries become extras of the editable install (pip cannot match them to ``-e .``)."""
    _clock["installs"] += 1
    extras: set[str] = set()
    rest: list[str] = []
    for requirement in nox.project.dependency_groups(PROJECT, *groups):
        included = re.fullmatch(r"mlrelease\[([^\]]*)\]", requirement)
        if included:
            extras.update(e.strip() for e in included.group(1).split(","))
        else:
            rest.append(requirement)
    session.install("-e", f".[{','.join(sorted(extras))}]" if extras else ".", *rest)


def _wheelhouses() -> list[Path]:
    """Local folders of wheels this machine declares (`$PIP_FIND_LINKS`, `$UV_FIND_LINKS`)."""
    names = [n for v in WHEELHOUSE_VARIABLES for n in re.split(r"[\s,]+", os.environ.get(v, ""))]
    return [Path(n) for n in dict.fromkeys(names) if n and Path(n).is_dir()]


def _install_cpu_torch(session: nox.Session) -> None:
    """Install the pinned torch as a CPU build, before the groups that need it: from the
    machine's wheelhouse when it has the pin's CPU wheel for this Python (no network), else
    from the PyTorch CPU index."""
    pin = next(r for r in nox.project.dependency_groups(PROJECT, "perf") if r.startswith("torch"))
    version = pin.partition("==")[2]
    python = str(session.python or f"{sys.version_info[0]}.{sys.version_info[1]}")
    wheel = f"torch-{version}+cpu-cp{python.replace('.', '')}-*.whl"
    folders = _wheelhouses()
    links = [arg for folder in folders for arg in ("--find-links", str(folder))]
    if any(any(folder.glob(wheel)) for folder in folders):
        session.install(*links, pin)
        return
    # Beside the default index: `2.13.0+cpu` sorts above `2.13.0`, so the CPU build wins
    # (pip compares every index; uv only under unsafe-best-match).
    best = ["--index-strategy", "unsafe-best-match"] if session.venv_backend == "uv" else []
    session.install(*links, "--extra-index-url", TORCH_CPU_INDEX, *best, pin)


class _SetupTimes:
    """Seconds spent preparing a session's environment, for the end of its report."""

    def __init__(self) -> None:
        # nox creates the environment between loading this file and calling the first session.
        first = _clock["installs"] == 0
        self.steps = {"venv": time.monotonic() - _clock["imported"]} if first else {}

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        yield
        self.steps[name] = round(time.monotonic() - start, 2)

    def env(self) -> dict[str, str]:
        return {"MLRELEASE_SETUP_TIMES": json.dumps(self.steps)}


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit and integration lanes (real git repositories, runtimes, builds; no torch).

    Once per tree and environment: the pass of an identical run is reused and says so
    (`mlrelease tests run`); `nox -s tests -- --rerun` runs anyway, other arguments go to pytest.
    """
    _install(session, "test")
    rerun = session.posargs[:1] == ["--rerun"]
    args = session.posargs[1:] if rerun else session.posargs
    suite = ["pytest", *PYTEST_PARALLEL, *PYTEST_REPORT, *(args or TEST_LANES)]
    session.run("mlrelease", "tests", "run", *(["--rerun"] if rerun else []), "--", *suite)


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


@nox.session(tags=["perf"], default=False)
def tests_perf(session: nox.Session) -> None:
    """Run the perf-integration lane: real profile runs with CPU torch and the ONNX exporter."""
    _install_cpu_torch(session)
    _install(session, "test-perf")
    # One xdist worker per core: each test times one single-threaded perf worker at a time, so
    # two tests share a 2-core machine as a loaded CI machine shares it (the lane's tests are
    # made for that); a module's shared profile runs stay on one worker (its xdist_group).
    workers = ("-n", "auto", "--dist", "loadgroup")
    session.run("pytest", *workers, "tests/perf_integration", *session.posargs)


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
    setup = _SetupTimes()  # the report ends with these and each gate's time
    with setup.step("torch (CPU)"):
        _install_cpu_torch(session)  # the perf gate exports and runs the perf models
    with setup.step("install"):
        _install(session, "test-perf")
    mlrelease_nox.run_verify(session, env=setup.env())


@nox.session(default=False)
def workflows(session: nox.Session) -> None:
    """Rehearse the workflows' Linux jobs with nektos/act in a temporary clone (tests/workflows)."""
    session.install(*nox.project.dependency_groups(PROJECT, "workflows"))  # act, not mlrelease
    tmp = Path(session.create_tmp()) / "pytest"  # its own: pytest prunes the shared one's runs
    args = session.posargs or ["tests/workflows"]
    session.run("pytest", "-p", "no:cacheprovider", *WORKFLOWS_PARALLEL, f"--basetemp={tmp}", *args)


@nox.session(tags=["release"], default=False)
def changelog(session: nox.Session) -> None:
    """Regenerate CHANGELOG.md from Conventional Commits (dry run unless `-- --execute`)."""
    _install(session, "release")
    session.run("mlrelease", "changelog", *session.posargs)


@nox.session(default=False)
def mlrelease(session: nox.Session) -> None:
    """Run any mlrelease command with the release and wheel tools (`nox -s mlrelease -- --help`):
    `release bind` builds the RC's reference with pypa/build, publish uploads with twine."""
    _install(session, "release", "wheels")
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


@nox.session(tags=["perf"], default=False)
def perf(session: nox.Session) -> None:
    """Run the `cpu` perf profile; write results, plots and docs/perf; compare with the baseline."""
    _install_cpu_torch(session)
    _install(session, "perf")
    mlrelease_nox.run_perf(session, "cpu")


@nox.session(tags=["perf", "gpu"], default=False)
def perf_gpu(session: nox.Session) -> None:
    """Run the `gpu` perf profile (the seed's full matrix) on a CUDA device; skip elsewhere."""
    if shutil.which("nvidia-smi") is None:
        session.skip("no CUDA device here: nvidia-smi is not on PATH (no NVIDIA driver)")
    _install(session, "perf-gpu")  # its own stack: onnxruntime-gpu, never beside onnxruntime
    mlrelease_nox.run_perf(session, "gpu")


@nox.session(tags=["perf", "gpu"], default=False, venv_backend="none")
def perf_gpu_here(session: nox.Session) -> None:
    """Run the `gpu` profile on this machine's own CUDA stack, installing nothing (no network).

    The interpreter is `$MLRELEASE_PERF_PYTHON`, else `python3` on PATH: it needs mlrelease's
    dependencies and has whatever frameworks it has; mlrelease runs from this checkout. Prints
    the framework versions it found first."""
    if shutil.which("nvidia-smi") is None:
        session.skip("no CUDA device here: nvidia-smi is not on PATH (no NVIDIA driver)")
    python = os.environ.get("MLRELEASE_PERF_PYTHON") or shutil.which("python3") or sys.executable
    paths = [str(Path("src").resolve()), os.environ.get("PYTHONPATH", "")]
    mlrelease_nox.run_perf_here(
        session, "gpu", python, env={"PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    )


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


@nox.session(tags=["release"], default=False)
def adoption_corpus(session: nox.Session) -> None:
    """Replay real releases with the commands, step by step; writes the adoption-corpus page.

    docs/case-studies/adoption-corpus.md; `-- --check`: drift. The histories: `-- --mirrors DIR`
    or `-- --clone`; without them the page is checked against the recorded results."""
    _install(session, "wheels")  # bump-my-version, git-changelog, cibuildwheel: what it calls
    session.run("python", "scripts/adoption_corpus.py", *session.posargs)
