"""The promote walk of ``scripts/code_figures.py``: which modules of ``mlrelease`` a real
``release promote`` enters, in order.

A project is made in a temporary folder the way a maintainer makes one: a git repository with a
bare ``origin``, ``mlrelease init --execute``, ``release prepare``, ``release rc``, the real
build (pypa/build), ``release bind`` and ``verify``. Then ``mlrelease release promote`` (a dry
run, ``--published-elsewhere``) runs in this process under :func:`sys.setprofile`.

What counts: the Python calls made while the command's handler runs (the ``func`` its parser
picked), so argument parsing and start-up are not counted; calls made while a module is being
imported are left out. A call *enters* a module when the nearest ``mlrelease`` frame below it is
in another module. No module path is written here: the names are those the trace sees.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any
from unittest import mock

import mlrelease
from mlrelease import cli, layers, registry
from mlrelease.edges import git, proc

PACKAGE = Path(mlrelease.__file__).resolve().parent
IDENTITY = {
    "GIT_AUTHOR_NAME": "Code Figures",
    "GIT_AUTHOR_EMAIL": "figures@example.com",
    "GIT_COMMITTER_NAME": "Code Figures",
    "GIT_COMMITTER_EMAIL": "figures@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
PROJECT = {
    "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"'
    '\n\n[project]\nname = "demo"\nversion = "1.4.0.dev0"\n',
    "src/demo/__init__.py": '__version__ = "1.4.0.dev0"\n',
    "CHANGELOG.md": "# Changelog\n\n",
    ".gitignore": "build/\ndist/\n",
}
"""The project before ``mlrelease init``: a pure package, its version in two files."""
VERSION = "1.4.0"
PROMOTE = ("release", "promote", "--version", VERSION, "--published-elsewhere", "--push")


@dataclass(frozen=True)
class Walk:
    """The modules the command entered, in order (paths under ``src/mlrelease``)."""

    command: str
    exit_code: int
    entries: tuple[str, ...]
    floors: dict[str, int]
    """Each entered module's layer index in :func:`mlrelease.registry.stack` (0 lowest)."""

    @property
    def modules(self) -> list[str]:
        """The distinct modules, in the order of their first entry."""
        return list(dict.fromkeys(self.entries))

    @property
    def reentries(self) -> int:
        """Entries into a module entered before (having left it for another one)."""
        return len(self.entries) - len(set(self.entries))

    @property
    def climbs(self) -> int:
        """Entries into a module on a higher floor than the module entered just before."""
        pairs = itertools.pairwise(self.entries)
        return sum(1 for a, b in pairs if self.floors[b] > self.floors[a])

    def by_package(self) -> dict[str, int]:
        """How many of the distinct modules each package holds (``mlrelease`` for top-level
        modules), most first."""
        counts: dict[str, int] = {}
        for module in self.modules:
            package = module.rsplit("/", 1)[0] if "/" in module else "mlrelease"
            counts[package] = counts.get(package, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def most_entered(self, top: int) -> list[tuple[str, int]]:
        counts = {m: self.entries.count(m) for m in self.modules}
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]

    def as_dict(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "exit_code": self.exit_code,
            "modules_entered": len(self.modules),
            "entries": len(self.entries),
            "reentries": self.reentries,
            "climbs_back_up": self.climbs,
            "by_package": self.by_package(),
            "modules": self.modules,
            "walk": list(self.entries),
        }


def _module(code: CodeType) -> str | None:
    """The path of ``code``'s file under the package, or None outside it."""
    path = Path(code.co_filename)
    return path.relative_to(PACKAGE).as_posix() if path.is_relative_to(PACKAGE) else None


def _importing(code: CodeType) -> bool:
    return code.co_name == "<module>" or code.co_filename.startswith("<frozen importlib")


class Recorder:
    """The profile function: records module entries while the handler's frame runs."""

    def __init__(self, handler: CodeType) -> None:
        self.handler = handler
        self.frame: FrameType | None = None
        self.entries: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "return" and frame is self.frame:
            self.frame = None
        if event != "call":
            return
        if self.frame is None:
            if frame.f_code is self.handler and not self.entries:
                self.frame = frame
                self.entries.append(_module(frame.f_code) or frame.f_code.co_filename)
            return
        module = _module(frame.f_code)
        if module is not None and self._caller(frame) not in (module, "import"):
            self.entries.append(module)

    def _caller(self, frame: FrameType) -> str | None:
        """The module of the nearest package frame below ``frame`` (up to the handler's), or
        ``"import"`` when a module is being imported on the way."""
        found = None
        below = frame.f_back
        while below is not None and below is not self.frame:
            if _importing(below.f_code):
                return "import"
            found = found or _module(below.f_code)
            below = below.f_back
        if found is None and self.frame is not None:
            found = _module(self.frame.f_code)
        return found


@contextlib.contextmanager
def _quiet() -> Iterator[io.StringIO]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        yield buffer


def _mlrelease(work: Path, *args: str) -> None:
    with _quiet() as said:
        code = cli.main(["--root", str(work), *args])
    if code != 0:
        raise RuntimeError(f"mlrelease {' '.join(args)} exited {code}:\n{said.getvalue()}")


def _build(work: Path) -> None:
    """The real build (pypa/build) of the tagged tree into ``dist/``."""
    installer = ["--installer", "uv"] if shutil.which("uv") else []
    command = [sys.executable, "-m", "build", *installer, "-o", str(work / "dist"), str(work)]
    done = proc.call(command, cwd=work, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")


def make_candidate(base: Path) -> Path:
    """A project at ``base/work`` with a bare ``base/origin.git``, its release candidate of
    :data:`VERSION` tagged, built, bound and verified; returns the work tree."""
    work, origin = base / "work", base / "origin.git"
    for name, text in PROJECT.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git.run(work, "init", "-q", "-b", "main")
    git.run(work, "add", ".")
    git.run(work, "commit", "-q", "-m", "feat: first version of demo")
    git.run(base, "init", "-q", "--bare", "-b", "main", str(origin))
    git.run(work, "remote", "add", "origin", str(origin))
    _mlrelease(work, "init", "--execute")
    git.run(work, "commit", "-q", "-a", "-m", "chore: mlrelease init")
    git.run(work, "push", "-q", "origin", "main")
    _mlrelease(work, "release", "prepare", "--version", VERSION, "--execute", "--push")
    _mlrelease(work, "release", "rc", "--execute", "--push")
    _build(work)
    rc = git.run(work, "describe", "--tags", "--exact-match", "HEAD")
    _mlrelease(work, "release", "bind", "--rc", rc, "--execute", "--push")
    _mlrelease(work, "verify")
    return work


def _floors(modules: list[str]) -> dict[str, int]:
    stack = registry.stack()
    top = {m: m.split("/")[0].removesuffix(".py") for m in modules}
    found = {
        m: layers.layer_of("" if unit == "__init__" else unit, stack) for m, unit in top.items()
    }
    return {m: -1 if floor is None else floor for m, floor in found.items()}


def trace(work: Path, argv: tuple[str, ...] = PROMOTE) -> Walk:
    """Run ``mlrelease --root WORK ARGV`` in this process and record the modules it enters."""
    full = ["--root", str(work), *argv]
    handler = cli.build_parser().parse_args(full).func
    recorder = Recorder(handler.__code__)
    before = sys.getprofile()
    with _quiet():
        sys.setprofile(recorder)
        try:
            code = cli.main(full)
        finally:
            sys.setprofile(before)
    command = " ".join(["mlrelease", "--root", "WORK", *argv])
    return Walk(command, code, tuple(recorder.entries), _floors(recorder.entries))


def promote_walk() -> Walk:
    """The walk of ``release promote`` on a fresh candidate in a temporary folder."""
    identity = mock.patch.dict(os.environ, IDENTITY)  # the commits' author; restored after
    with identity, tempfile.TemporaryDirectory(prefix="code-figures-") as base:
        work = make_candidate(Path(base))
        return trace(work)
