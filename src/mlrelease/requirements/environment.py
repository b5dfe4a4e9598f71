"""The running environment as plain data (filled by :mod:`mlrelease.edges.installed`), and the
commands that install into it or remove from it, in the form that fits how mlrelease was
installed: pip, uv, ``uv tool``, pipx, or mlrelease's own checkout."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlrelease.requirements.table import (
    MODULES,
    PROJECT,
    TORCH_CPU_INDEX,
    requirement_name,
    self_reference,
)


@dataclass(frozen=True)
class Distribution:
    """An installed distribution."""

    name: str
    version: str


@dataclass(frozen=True)
class Installer:
    """How mlrelease was installed, which decides the install line."""

    kind: str = "pip"
    """``pip``, ``uv`` (a venv uv made: no pip in it), ``uv-tool`` or ``pipx``."""
    python: str = ""
    """The interpreter to name in the line; empty when a plain ``python`` (or ``uv pip``)
    reaches it."""
    checkout: str = ""
    """mlrelease's own repository when it runs from there (an editable install): the line
    installs the extra from it, and dependency groups and nox sessions may be named."""
    spec: str = ""
    """``uv tool``: how mlrelease was asked for (``mlrelease``, ``mlrelease>=0.2``,
    ``mlrelease @ file:///...``), without its extras."""
    extras: tuple[str, ...] = ()
    """``uv tool``: the extras already installed (a new install line must keep them)."""
    with_: tuple[str, ...] = ()
    """``uv tool``: the ``--with`` requirements already installed."""


@dataclass(frozen=True)
class Environment:
    """What the running interpreter has, read once by :mod:`mlrelease.edges.installed`."""

    installer: Installer = field(default_factory=Installer)
    prefix: str = ""
    """The environment's folder (``sys.prefix``), named in messages."""
    extras: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Extra -> its requirement strings, from the installed package's metadata."""
    providers: Mapping[str, tuple[Distribution, ...]] = field(default_factory=dict)
    """Import name -> the installed distributions that install it (for the table's modules)."""
    importable: Mapping[str, bool] = field(default_factory=dict)
    """Import name -> whether it can be found (a module) or is on PATH (a program)."""
    distributions: Mapping[str, str] = field(default_factory=dict)
    """Normalized name -> version of the installed distributions the table names (needed
    ones, their alternatives and their known shadows)."""

    def requirements_of(self, extra: str) -> list[str]:
        """The extra's requirement strings (includes of other extras expanded), markers kept."""
        seen: set[str] = set()
        out: list[str] = []

        def walk(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for req in self.extras.get(name, ()):
                included = self_reference(req)
                if included is None:
                    out.append(req)
                for inner in included or ():
                    walk(inner)

        walk(extra)
        return list(dict.fromkeys(out))

    def extra_of(self, module: str) -> str | None:
        """The first extra (in the metadata's order) whose requirements bring ``module``."""
        wanted = MODULES.get(module)
        if wanted is None:
            return None
        for extra in self.extras:
            if extra == "all":
                continue
            names = {requirement_name(r) for r in self.requirements_of(extra)}
            if names & {wanted.distribution, *wanted.alternatives}:
                return extra
        return None


def _quote(text: str) -> str:
    return f'"{text}"' if re.search(r"[\[\]<>=!~;@ *]", text) else text


def install_line(env: Environment, extras: Sequence[str]) -> str:
    """One command that installs ``extras`` of mlrelease the way mlrelease was installed."""
    inst = env.installer
    wanted = sorted(set(extras))
    if inst.kind == "uv-tool":
        keep = ",".join(sorted({*inst.extras, *wanted}))
        name, at, url = (inst.spec or PROJECT).partition(" @ ")
        head = re.match(r"\s*([A-Za-z0-9._-]+)(.*)", name)
        base, version = (head.group(1), head.group(2).strip()) if head else (PROJECT, "")
        target = f"{base}[{keep}]{version}" + (f" @ {url}" if at else "")
        with_ = "".join(f" --with {_quote(w)}" for w in inst.with_)
        return f"uv tool install {_quote(target)}{with_}" + _torch(inst, wanted)
    if inst.kind == "pipx":
        found = [r for e in wanted for r in env.requirements_of(e)]
        reqs = list(dict.fromkeys(found)) or [f"{PROJECT}[{','.join(wanted)}]"]
        return f"pipx inject {PROJECT} " + " ".join(_quote(r) for r in reqs) + _torch(inst, wanted)
    what = f"{inst.checkout or PROJECT}[{','.join(wanted)}]"
    target = ("-e " if inst.checkout else "") + _quote(what)
    if inst.kind == "uv":
        python = f" --python {inst.python}" if inst.python else ""
        return f"uv pip install{python} {target}" + _torch(inst, wanted)
    return f"{inst.python or 'python'} -m pip install {target}" + _torch(inst, wanted)


def _torch(inst: Installer, extras: Sequence[str]) -> str:
    """Where torch's CPU build comes from, when an extra brings torch for the CPU."""
    if "perf" not in extras:
        return ""
    if inst.kind in ("uv", "uv-tool"):
        return " --torch-backend cpu"
    if inst.kind == "pipx":
        return f' --pip-args="--extra-index-url {TORCH_CPU_INDEX}"'
    return f" --extra-index-url {TORCH_CPU_INDEX}"


def uninstall_line(env: Environment, distributions: Sequence[str]) -> str:
    """One command that removes ``distributions`` from mlrelease's environment."""
    inst, names = env.installer, " ".join(distributions)
    if inst.kind == "pipx":
        return f"pipx runpip {PROJECT} uninstall -y {names}"
    if inst.kind in ("uv", "uv-tool"):
        return f"uv pip uninstall{f' --python {inst.python}' if inst.python else ''} {names}"
    return f"{inst.python or 'python'} -m pip uninstall -y {names}"
