"""The build matrix: cibuildwheel's build identifiers per platform, grouped into CI jobs.

cibuildwheel is the authority on what ``[tool.cibuildwheel]`` selects: :func:`query` asks it
(``--print-build-identifiers --platform P``, which works offline on any OS) and everything else
here is pure. Each (platform, architecture) becomes one job on a native GitHub runner; the
workflow's matrix is this plan's JSON, never a hand-kept list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mlrelease import requirements
from mlrelease.edges import installed
from mlrelease.edges.proc import call, python_module
from mlrelease.errors import UserError

PLATFORMS = ("linux", "windows", "macos")
"""cibuildwheel platforms that have native GitHub runners."""

DEFAULT_RUNNERS = {
    "linux/x86_64": "ubuntu-24.04",
    "linux/i686": "ubuntu-24.04",
    "linux/aarch64": "ubuntu-24.04-arm",
    "windows/AMD64": "windows-2025",
    "windows/x86": "windows-2025",
    "windows/ARM64": "windows-11-arm",
    "macos/arm64": "macos-15",
    "macos/universal2": "macos-15",
    "macos/x86_64": "macos-15-intel",
}
"""GitHub-hosted runner per ``platform/arch``: every build runs natively, no emulation."""

BUILD_RUNNER = "ubuntu-24.04"
"""Where the sdist (and a pure wheel) is built."""

IDENTIFIER_RE = re.compile(r"^(?P<python>(?:cp|pp|gp)\d+t?)-(?P<tag>[a-z0-9_]+)$")
CLASSIFIER_RE = re.compile(r"^Programming Language :: Python :: (?P<version>3\.\d+)$")


@dataclass(frozen=True)
class Identifier:
    """A cibuildwheel build identifier, e.g. ``cp312-win_arm64``."""

    python: str
    """``cp312``, ``cp313t`` (free-threaded), ``pp310`` (PyPy), ..."""
    tag: str
    """The platform tag: ``win_arm64``, ``manylinux_x86_64``, ``macosx_arm64``, ..."""

    def __str__(self) -> str:
        return f"{self.python}-{self.tag}"

    @property
    def cpython_version(self) -> str | None:
        """``3.12`` for ``cp312`` (and None for PyPy, GraalPy or free-threaded builds)."""
        match = re.fullmatch(r"cp3(\d+)", self.python)
        return f"3.{match[1]}" if match else None


def parse_identifier(text: str) -> Identifier:
    match = IDENTIFIER_RE.match(text.strip())
    if not match:
        raise ValueError(f"not a cibuildwheel build identifier: {text!r}")
    return Identifier(match["python"], match["tag"])


def platform_arch(tag: str) -> tuple[str, str]:
    """The cibuildwheel ``--platform`` and ``--archs`` values that build platform ``tag``."""
    if tag.startswith(("manylinux_", "musllinux_")):
        return "linux", tag.split("_", 1)[1]
    windows = {"win32": "x86", "win_amd64": "AMD64", "win_arm64": "ARM64"}
    if tag in windows:
        return "windows", windows[tag]
    if tag.startswith("macosx_"):
        return "macos", tag.split("_", 1)[1]
    raise ValueError(f"no cibuildwheel platform builds the tag {tag!r}")


@dataclass(frozen=True)
class Job:
    """One CI job of the wheel workflow (one matrix entry)."""

    project: str
    """Project folder, relative to the repository root (``.``, ``examples/native-adopter``)."""
    name: str
    """Distribution name."""
    builder: str
    """``sdist``, ``build`` (sdist + pure wheel), ``cibuildwheel``, or ``smoke`` (install the
    pure wheel built by the ``build`` job and run the smoke command)."""
    runner: str
    platform: str = ""
    archs: str = ""
    identifiers: str = ""
    """Space-separated build identifiers of this job (what cibuildwheel builds and tests)."""
    python: str = "3.12"
    """The Python the job sets up to run nox (and, for ``smoke``, the wheel)."""
    artifact: str = ""
    """Build jobs: the artifact they upload (unique in the run). Smoke jobs: the artifact of
    the pure wheel they download."""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class BuildMatrix:
    """The jobs for one or more projects, and the identifiers they came from."""

    jobs: list[Job] = field(default_factory=list)
    identifiers: dict[str, list[Identifier]] = field(default_factory=dict)
    """Per project folder: every identifier cibuildwheel selected."""

    def matrix(self) -> dict[str, list[dict[str, str]]]:
        """The JSON the workflow's ``fromJSON`` consumes: build jobs, then smoke jobs."""
        return {
            "build": [j.to_dict() for j in self.jobs if j.builder != "smoke"],
            "smoke": [j.to_dict() for j in self.jobs if j.builder == "smoke"],
        }

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """The plan as a table, one row a job: project, job, runner, platform tags, pythons."""
        labels = {"build": "sdist + pure wheel", "sdist": "sdist"}
        rows = []
        for job in self.jobs:
            members = [parse_identifier(i) for i in job.identifiers.split()]
            tags = sorted({i.tag for i in members})
            pythons = sorted({i.python for i in members}, key=lambda s: (len(s), s))
            what = labels.get(job.builder, f"{job.builder} {job.platform}/{job.archs}")
            rows.append(
                (job.project, what, job.runner, " ".join(tags) or "-", " ".join(pythons) or "-")
            )
        return rows


CONFIG_WORDS = re.compile(r"tool\.cibuildwheel|CIBW_|pyproject\.toml|\boption|\bselector", re.I)
"""What cibuildwheel's message says when the project's configuration is the cause."""


def query_failure(platform: str, project: Path, code: int, output: str) -> UserError:
    """The error for a failed ``--print-build-identifiers``: a module missing from this
    environment is a missing tool (the one missing-dependency error with its install line, never
    "fix the config"); the config is named only when cibuildwheel's message is about it."""
    missing = requirements.missing_module(output)
    if missing:
        return requirements.MissingDependency(
            missing, needed_by="cibuildwheel (the `wheels` gate's build plan)", extra="wheels"
        )
    head = (
        f"cibuildwheel --print-build-identifiers --platform {platform} failed in {project} "
        f"(exit {code}): {output.strip()[-800:]}"
    )
    if CONFIG_WORDS.search(output):
        return UserError(f"{head} Fix [tool.cibuildwheel] in its pyproject.toml.")
    return UserError(
        f"{head} This is cibuildwheel's own failure, not a setting mlrelease can name: run "
        f"`python -m cibuildwheel --print-build-identifiers --platform {platform}` in "
        f"{project} to see it. If the wheels are built by something else (a workflow, a "
        'script), set [tool.mlrelease.wheels] builder = "external".'
    )


def query(
    project: Path,
    platforms: Sequence[str] = PLATFORMS,
    archs: Mapping[str, Sequence[str]] | None = None,
) -> list[Identifier]:
    """Ask cibuildwheel which identifiers ``[tool.cibuildwheel]`` of ``project`` selects;
    ``archs`` (per platform) overrides its ``archs``, whose default means this machine's."""
    installed.require("cibuildwheel", extra="wheels")  # this environment's, never PATH's
    command = python_module("cibuildwheel")
    found: list[Identifier] = []
    for platform in platforms:
        proc = call(
            [
                *command,
                *("--print-build-identifiers", "--platform", platform),
                *(("--archs", ",".join(archs[platform])) if archs else ()),
                ".",
            ],
            cwd=project,
            timeout=120,
        )
        if proc.returncode != 0:
            raise query_failure(platform, project, proc.returncode, proc.stderr or proc.stdout)
        found += [parse_identifier(line) for line in proc.stdout.splitlines() if line.strip()]
    return found


def make_jobs(
    project: str,
    name: str,
    kind: str,
    identifiers: Iterable[Identifier],
    runners: Mapping[str, str] | None = None,
) -> list[Job]:
    """Group identifiers into one job per (platform, arch) on its native runner.

    A native project gets an ``sdist`` job and one ``cibuildwheel`` job per group. A pure one
    gets a single ``build`` job (sdist + ``py3-none-any`` wheel) and one ``smoke`` job per
    group, which installs that very wheel on the group's runner.
    """
    table = {**DEFAULT_RUNNERS, **(runners or {})}
    groups: dict[tuple[str, str], list[Identifier]] = {}
    for ident in identifiers:
        groups.setdefault(platform_arch(ident.tag), []).append(ident)
    slug = name.replace("_", "-")
    first = Job(
        project,
        name,
        "build" if kind == "pure" else "sdist",
        BUILD_RUNNER,
        artifact=f"dist-{slug}-{'pure' if kind == 'pure' else 'sdist'}",
    )
    jobs = [first]
    for (platform, arch), members in groups.items():
        key = f"{platform}/{arch}"
        if key not in table:
            raise UserError(
                f"{project}: no GitHub runner is known for {key} (identifiers "
                f"{', '.join(map(str, members[:3]))}). Add it to [tool.mlrelease.wheels] "
                f'runners, e.g. runners = {{"{key}" = "<runner label>"}}, or drop the arch '
                "from [tool.cibuildwheel]."
            )
        versions = sorted(
            {v for v in (i.cpython_version for i in members) if v},
            key=lambda v: tuple(int(p) for p in v.split(".")),
        )
        jobs.append(
            Job(
                project,
                name,
                "smoke" if kind == "pure" else "cibuildwheel",
                table[key],
                platform=platform,
                archs=arch,
                identifiers=" ".join(str(i) for i in members),
                python=versions[-1] if versions else "3.12",
                # a smoke job downloads the pure wheel's artifact; a build job uploads its own
                artifact=first.artifact if kind == "pure" else f"dist-{slug}-{platform}-{arch}",
            )
        )
    return jobs


def classifier_versions(pyproject: Mapping[str, Any]) -> list[str]:
    """CPython versions the project declares (``Programming Language :: Python :: 3.X``)."""
    classifiers = pyproject.get("project", {}).get("classifiers", [])
    found = {m["version"] for c in classifiers if (m := CLASSIFIER_RE.match(str(c)))}
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def coverage_problems(
    identifiers: Sequence[Identifier],
    required_platforms: Sequence[str],
    versions: Sequence[str],
) -> list[str]:
    """What the identifiers lack: a required platform, or a declared CPython on one."""
    by_tag: dict[str, set[str]] = {}
    for ident in identifiers:
        by_tag.setdefault(ident.tag, set()).add(ident.cpython_version or "")
    problems = []
    for tag in required_platforms:
        if tag not in by_tag:
            problems.append(f"required platform `{tag}` has no build identifier")
            continue
        missing = [v for v in versions if v not in by_tag[tag]]
        if missing:
            problems.append(
                f"required platform `{tag}` has no build identifier for CPython "
                f"{', '.join(missing)} (declared in the classifiers)"
            )
    return problems
