"""mlrelease's nox sessions, for every project that adopted mlrelease (and for mlrelease itself).

An adopter's ``noxfile.py`` gets them with one import (docs/getting-started.md)::

    # /// script
    # dependencies = ["nox>=2025.2.9", "mlrelease"]
    # ///
    from mlrelease_nox.sessions import *  # noqa: F403  release_verify, docs, wheels, ...

This package holds what those sessions do: :func:`install` puts the mlrelease that nox itself
runs with (same version, same wheel or checkout) into the session's own virtual environment,
with the extras the session needs, and the project when its tests run there; the ``run_*``
functions are the sessions' bodies, which mlrelease's own noxfile.py shares. The package
``mlrelease`` never imports nox (this one may import ``mlrelease``'s pure requirement table).
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import sys
import urllib.parse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import nox

from mlrelease import requirements
from mlrelease.config import Config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

TEST_GROUPS = ("test", "tests", "testing", "dev")
"""Dependency groups (PEP 735) or extras of a project that hold its test dependencies."""


def mlrelease_requirement(extras: Iterable[str]) -> list[str]:
    """How to install the mlrelease nox runs with, with ``extras``: its checkout (editable),
    the wheel or URL it was installed from, else its exact version from the index."""
    wanted = sorted(set(extras))
    bracket = f"[{','.join(wanted)}]" if wanted else ""
    dist = metadata.distribution("mlrelease")
    raw = dist.read_text("direct_url.json")
    data: dict[str, Any] = json.loads(raw) if raw else {}
    url = str(data.get("url", ""))
    if data.get("dir_info", {}).get("editable") and url.startswith("file:"):
        return ["-e", urllib.parse.unquote(urllib.parse.urlparse(url).path) + bracket]
    if url:
        return [f"mlrelease{bracket} @ {url}"]
    return [f"mlrelease{bracket}=={dist.version}"]


def pyproject(root: Path = Path()) -> dict[str, Any]:
    """The project's pyproject.toml (empty when there is none)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        data: dict[str, Any] = tomllib.load(handle)
    return data


def gate_extras(data: dict[str, Any]) -> list[str]:
    """The extras the project's configured gates need (``[tool.mlrelease] gates``)."""
    tool = data.get("tool", {})
    from mlrelease import registry  # every feature's tables: when a session runs, not at --list

    gates = tool.get("mlrelease", {}).get("gates", Config().gates)
    kind = tool.get("mlrelease", {}).get("wheels", {}).get("kind", "pure")
    cibuildwheel = kind != "pure" or "cibuildwheel" in tool
    return registry.gate_extras([str(g) for g in gates], cibuildwheel=cibuildwheel)


def project_requirements(data: dict[str, Any]) -> list[str]:
    """The project (editable) with its test dependencies: a dependency group or an extra
    named test, tests, testing or dev, the first one found."""
    groups = data.get("dependency-groups", {})
    extras = data.get("project", {}).get("optional-dependencies", {})
    group = next((g for g in TEST_GROUPS if g in groups), None)
    extra = next((e for e in TEST_GROUPS if e in extras), None)
    target = f".[{extra}]" if extra else "."
    return ["-e", target, *(["--group", group] if group else [])]


def install(session: nox.Session, *extras: str, project: bool = False) -> None:
    """Install mlrelease with ``extras`` into the session (and the project, ``project``);
    torch comes from its CPU index when an extra brings it for the CPU."""
    args = mlrelease_requirement(extras)
    if "perf" in extras:
        uv = session.venv_backend == "uv"
        cpu = requirements.TORCH_CPU_INDEX
        args += ["--torch-backend", "cpu"] if uv else ["--extra-index-url", cpu]
    if project:
        args += project_requirements(pyproject())
    session.install(*args)


def run_verify(session: nox.Session, env: dict[str, str] | None = None) -> None:
    """``mlrelease verify`` with the session's arguments (``-- --only versions``); ``env``:
    extra variables (mlrelease's own noxfile hands over its set-up times)."""
    session.run("mlrelease", "verify", *session.posargs, env=env)


def run_wheels(session: nox.Session, projects: Sequence[str] = ()) -> None:
    """``mlrelease wheels build`` (or ``-- plan``, ``-- --plan``, any wheels action)."""
    args = list(session.posargs) or ["build"]
    args = ["plan", *args[1:]] if args[0] == "--plan" else args
    if args[0] in ("plan", "build") and "--project" not in args:
        args += [f"--project={p}" for p in projects]
    session.run("mlrelease", "wheels", *args)


def run_docs(session: nox.Session) -> None:
    """Build the docs (warnings are errors); serve them when the session is interactive."""
    serve = ["--serve"] if session.interactive else []
    session.run("mlrelease", "docs", "build", *serve, *session.posargs)


def run_ops_index(session: nox.Session) -> None:
    """Regenerate the supported-operators index (``-- --check``: only check it)."""
    execute = [] if {"--check", "--execute"} & set(session.posargs) else ["--execute"]
    session.run("mlrelease", "ops", "index", *execute, *session.posargs)


def run_perf(session: nox.Session, profile: str) -> None:
    """Run perf profile ``profile``; results, plots, pages, the comparison with the baseline."""
    session.run("mlrelease", "perf", "run", "--profile", profile, *session.posargs)


def run_perf_here(
    session: nox.Session, profile: str, python: str, env: dict[str, str] | None = None
) -> None:
    """Run perf profile ``profile`` in interpreter ``python`` as it is, installing nothing (a
    machine's own CUDA stack, with no route to the registries): first what it has (framework
    versions, GPU, each framework's availability), then the run. ``env``: e.g. a
    ``PYTHONPATH`` to a source checkout of mlrelease."""
    session.run(python, "-m", "mlrelease.perf.probe", "cuda", env=env, external=True)
    session.run(
        python,
        "-m",
        "mlrelease",
        "perf",
        "run",
        "--profile",
        profile,
        *session.posargs,
        env=env,
        external=True,
    )
