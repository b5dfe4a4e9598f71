"""The Sphinx edge: every ``sphinx-build`` / ``sphinx-autobuild`` run of mlrelease.

Sphinx runs in a subprocess of a given interpreter (this one for ``docs build`` and the
``docs`` gate, the tag's own environment for ``docs freeze``), so a build never shares state
with the caller, and warnings are collected from Sphinx's own ``--warning-file``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease.edges import installed
from mlrelease.edges.proc import STDOUT, call, python_module

# Links leaving the site are not checked: the network is not part of a docs build, and a
# flaky remote server must not fail a release. Internal links (between pages, to files) are.
INTERNAL_ONLY = r"^[a-z][a-z0-9+.-]*://"


@dataclass
class Result:
    """One Sphinx run: its exit status, its warnings and where its log is."""

    returncode: int
    warnings: list[str] = field(default_factory=list)
    log: Path | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.warnings


def require(module: str = "sphinx", python: str | None = None) -> None:
    """Fail with the missing-dependency error when ``module`` is not in this environment (a
    build with another interpreter, ``python``, brings its own)."""
    if python is None:
        installed.require(module, extra="docs")


def command(
    source: Path,
    out: Path,
    *,
    builder: str = "html",
    doctrees: Path,
    warnings_file: Path,
    strict: bool = True,
    overrides: Mapping[str, str] | None = None,
    python: str | None = None,
) -> list[str]:
    """The ``sphinx-build`` command line (pure)."""
    args = [
        "-b",
        builder,
        "-d",
        str(doctrees),
        "-w",
        str(warnings_file),
        "--no-color",
    ]
    if strict:
        args += ["-W", "--keep-going"]
    if builder == "linkcheck":
        args += ["-q", "-D", f"linkcheck_ignore={INTERNAL_ONLY}"]
    for key, value in (overrides or {}).items():
        args += ["-D", f"{key}={value}"]
    return python_module("sphinx", *args, str(source), str(out), interpreter=python)


def build(
    source: Path,
    out: Path,
    *,
    builder: str = "html",
    doctrees: Path | None = None,
    strict: bool = True,
    overrides: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
    log: Path | None = None,
    cwd: Path | None = None,
) -> Result:
    """Run one Sphinx build. Output goes to ``log`` when given, else to the terminal."""
    require(python=python)
    out.mkdir(parents=True, exist_ok=True)
    doctrees = doctrees or out.parent / ".doctrees"
    warnings_file = out.parent / f"{builder}-warnings.txt"
    warnings_file.unlink(missing_ok=True)
    args = command(
        source,
        out,
        builder=builder,
        doctrees=doctrees,
        warnings_file=warnings_file,
        strict=strict,
        overrides=overrides,
        python=python,
    )
    run_env = {**os.environ, **(env or {})}
    if log is None:
        proc = call(args, cwd=cwd, env=run_env, capture=False)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("w", encoding="utf-8") as handle:
            proc = call(args, cwd=cwd, env=run_env, capture=False, stdout=handle, stderr=STDOUT)
    found = read_warnings(warnings_file)
    return Result(proc.returncode, found, log)


def read_warnings(path: Path) -> list[str]:
    """The warnings Sphinx wrote to its warning file, one per entry."""
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def serve(
    source: Path, out: Path, *, host: str, port: int, watch: Sequence[Path], ignore: Sequence[str]
) -> int:
    """Serve the docs with sphinx-autobuild: rebuild and reload the browser on every change."""
    require("sphinx_autobuild")
    args = [
        str(source),
        str(out),
        "--host",
        host,
        "--port",
        str(port),
    ]
    for folder in watch:
        args += ["--watch", str(folder)]
    for pattern in ignore:
        args += ["--ignore", pattern]
    return call(python_module("sphinx_autobuild", *args), capture=False).returncode
