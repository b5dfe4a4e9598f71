"""Environments built with uv, cached by the hash of what they were asked to hold.

An environment is a uv virtual environment whose requirements were resolved by ``uv pip
compile`` (the resolution is written down, and a resolver failure is kept word for word as the
reason the consumer could not be installed) and installed by ``uv pip sync``. Its key is the
SHA-256 of the interpreter, the requirements, the indexes and find-links, the content hashes of
local files among them and the preferred pins: the same request reuses the environment, any
change builds a new one. An environment is built in a temporary folder and renamed into place
when complete, so a killed build leaves nothing that looks finished.

The candidate side is resolved *preferring* the baseline side's pins (``uv pip compile`` keeps
what its output file already pins unless a requirement forces a change), so the two sides
differ only by the project under test and what it really requires: the comparison is crater's
"same crates, other compiler".
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from mlrelease.edges import proc
from mlrelease.errors import UserError
from mlrelease.requirements import MissingDependency

FORMAT = 1
"""Bumped when the key or the layout of an environment changes."""
RECORD = "mlrelease-env.json"


@dataclass(frozen=True)
class EnvSpec:
    """What an environment must hold."""

    python: str
    """The interpreter (a path)."""
    python_version: str
    requirements: tuple[str, ...]
    index_url: str = "https://pypi.org/simple"
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    identity: tuple[str, ...] = ()
    """Content hashes of local files the requirements name (a candidate's wheels)."""
    no_build: tuple[str, ...] = ()
    """Distributions never built from source (the project under test: a wheel or nothing)."""
    prefer: tuple[str, ...] = ()
    """``name==version`` pins preferred by the resolver (the baseline side's resolution)."""
    overrides: tuple[str, ...] = ()
    """Requirements that win over every other requirement on their project (uv's
    ``--override``): a train member's baseline side installs the upstream's previous release
    although the member's wheel pins the candidate it was built against."""

    def key(self) -> str:
        data = {**asdict(self), "format": FORMAT}
        data.pop("python")  # the version and the hashes say what it is, not where it lies
        if not self.overrides:
            data.pop("overrides")  # the keys of environments made before overrides existed
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass
class Env:
    """A ready environment."""

    path: Path
    pins: dict[str, str]
    """Canonical distribution name -> version, as resolved."""
    cached: bool = False
    seconds: float = 0.0

    @property
    def python(self) -> Path:
        return self.path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@dataclass
class InstallFailure:
    """Why an environment could not be built: the resolver's (or the build's) own words."""

    reason: str
    seconds: float = 0.0
    command: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    python: str = ""
    """The interpreter the environment was for (the command names a removed build folder's)."""
    overrides: list[str] = field(default_factory=list)

    @property
    def why(self) -> str:
        """The resolver's explanation in one line (its "Because ..." line when it gave one)."""
        lines = [line.strip() for line in self.reason.splitlines() if line.strip()]
        return next(
            (line for line in lines if line.startswith("Because")), lines[0] if lines else "?"
        )

    @property
    def reproduce(self) -> str:
        """The resolution again by hand: the requirements piped into the same uv command."""
        args = [a if a != "requirements.in" else "-" for a in self.command]
        args = [a for a in args if a not in ("-o", "lock.txt")]
        if self.python and "--python" in args:
            args[args.index("--python") + 1] = self.python
        reqs = shlex.join(["printf", "%s\\n", *self.requirements])
        line = f"{reqs} | {shlex.join(args)}"
        if self.overrides:  # bash's process substitution stands for the removed file
            listed = shlex.join(["printf", "%s\\n", *self.overrides])
            line = line.replace("--override overrides.txt", f"--override <({listed})")
        return line


def uv_binary() -> str:
    """The uv executable: on PATH, else the one the ``uv`` Python package ships."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        import uv  # type: ignore[import-not-found,import-untyped,unused-ignore]

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError):
        raise MissingDependency("uv", extra="downstream") from None


def _sources(spec: EnvSpec) -> list[str]:
    args = ["--index-url", spec.index_url]
    for url in spec.extra_index_urls:
        args += ["--extra-index-url", url]
    for link in spec.find_links:
        args += ["--find-links", link]
    for name in spec.no_build:
        args += ["--only-binary", name]
    return args


def _requirements(spec: EnvSpec, work: Path) -> list[str]:
    """Write ``spec``'s requirements (and overrides) into ``work``; the arguments naming them."""
    (work / "requirements.in").write_text("\n".join(spec.requirements) + "\n", encoding="utf-8")
    if not spec.overrides:
        return ["requirements.in"]
    (work / "overrides.txt").write_text("\n".join(spec.overrides) + "\n", encoding="utf-8")
    return ["requirements.in", "--override", "overrides.txt"]


INSTALL_FAILURES = ("No solution found", "Failed to build", "Failed to prepare", "not compatible")
"""uv's words for "this cannot be installed" (anything else, a network error or a usage
error, is a problem of the run, raised, never reported as the consumer's)."""


def _failure(
    done: proc.CompletedProcess[str], started: float, command: Sequence[str], spec: EnvSpec
) -> InstallFailure:
    if not any(words in done.stderr for words in INSTALL_FAILURES):
        shown = " ".join(command)
        raise UserError(f"uv failed (exit {done.returncode}): {shown}\n{reason(done.stderr)}")
    seconds = time.perf_counter() - started
    reqs = list(spec.requirements)
    return InstallFailure(
        reason(done.stderr), seconds, list(command), reqs, spec.python, list(spec.overrides)
    )


def reason(stderr: str) -> str:
    """The resolver's explanation from uv's error output, without the noise around it."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("error:")), 0)
    picked = [line.replace("╰─▶", "").strip() for line in lines[start:]]
    picked = [line.removeprefix("error:").removeprefix("cause:").strip() for line in picked]
    text = "\n".join(line for line in picked if line)
    return text[:2000] or "uv failed without saying why"


def pins(lock: str) -> dict[str, str]:
    """``name==version`` lines of a ``uv pip compile`` output, by canonical name."""
    found: dict[str, str] = {}
    for line in lock.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line and " @ " not in line:
            name, _, version = line.partition("==")
            found[canonicalize_name(name.split("[")[0].strip())] = version.split(";")[0].strip()
    return found


def _uv(args: Sequence[str], cwd: Path) -> proc.CompletedProcess[str]:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    env.pop("VIRTUAL_ENV", None)
    return proc.call([uv_binary(), *args], cwd=cwd, env=env)


def _load(folder: Path) -> Env | None:
    try:
        data = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        return Env(folder, dict(data["pins"]), cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def build(spec: EnvSpec, cache: Path, *, refresh: bool = False) -> Env | InstallFailure:
    """The environment of ``spec``: from the cache, else resolved, installed and stored."""
    key = spec.key()
    folder = cache / "envs" / key[:24]
    if not refresh:
        found = _load(folder)
        if found is not None:
            return found
    started = time.perf_counter()
    work = cache / "envs" / f".build-{key[:12]}-{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    try:
        venv = work / "venv"
        made = _uv(
            ["venv", "--quiet", "--no-config", "--relocatable", "--python", spec.python, str(venv)],
            work,
        )
        if made.returncode != 0:
            raise UserError(
                f"uv cannot make an environment with {spec.python}: {reason(made.stderr)}"
            )
        asked = _requirements(spec, work)
        (work / "lock.txt").write_text("\n".join(spec.prefer) + "\n", encoding="utf-8")
        python = Env(venv, {}).python
        common = ["--no-config", "--python", str(python), *_sources(spec)]
        compile_args = ["pip", "compile", "--quiet", "--no-header", *asked, "-o", "lock.txt"]
        compile_args += common
        resolved = _uv(compile_args, work)
        if resolved.returncode != 0:
            return _failure(resolved, started, ["uv", *compile_args], spec)
        sync_args = ["pip", "sync", "--quiet", "lock.txt", *common]
        synced = _uv(sync_args, work)
        if synced.returncode != 0:
            return _failure(synced, started, ["uv", *sync_args], spec)
        lock = (work / "lock.txt").read_text(encoding="utf-8")
        record = {"key": key, "spec": asdict(spec), "pins": pins(lock), "lock": lock}
        (venv / RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
        return _install(venv, folder, pins(lock), time.perf_counter() - started, refresh)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def resolve(spec: EnvSpec, cache: Path) -> InstallFailure | None:
    """Whether ``spec``'s requirements resolve (``uv pip compile``, nothing installed): the
    failure in the resolver's words, else None."""
    started = time.perf_counter()
    work = cache / "envs" / f".resolve-{uuid.uuid4().hex[:12]}"
    work.mkdir(parents=True)
    try:
        asked = _requirements(spec, work)
        args = ["pip", "compile", "--quiet", "--no-header", *asked, "-o", "lock.txt"]
        args += ["--no-config", "--python", spec.python, *_sources(spec)]
        done = _uv(args, work)
        return None if done.returncode == 0 else _failure(done, started, ["uv", *args], spec)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _install(venv: Path, folder: Path, found: dict[str, str], seconds: float, refresh: bool) -> Env:
    """Move the finished environment into its place (a concurrent twin may have won)."""
    if refresh:
        shutil.rmtree(folder, ignore_errors=True)
    try:
        venv.rename(folder)
    except OSError:
        if _load(folder) is None:
            raise
    return Env(folder, found, cached=False, seconds=seconds)
