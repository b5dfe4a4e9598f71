"""What mlrelease needs from the Python environment, and the one error when it is not there.

Pure data: import name -> the distribution that provides it (``bumpversion`` comes from
bump-my-version, ``PIL`` from Pillow) and the distributions that install the same import name as
another tool (``bumpversion`` 0.6, ``bump2version``). The extra of the ``mlrelease`` package
a gate or command needs is declared with it (:attr:`mlrelease.gates.Gate.extra`,
:class:`mlrelease.entries.Feature`). Version ranges live only in
``[project.optional-dependencies]`` (tests/unit/test_extras.py keeps this table in step).
:class:`MissingDependency` is raised where a module is missing or wrong; the CLI and the gate
runner render it for the :class:`Environment` read by :mod:`mlrelease.edges.installed`, so its
install line fits pip, uv, ``uv tool``, pipx or mlrelease's own checkout.
"""

from __future__ import annotations

import re
import shlex

from mlrelease.errors import Repair, UserError
from mlrelease.requirements.environment import (
    Distribution,
    Environment,
    Installer,
    install_line,
    uninstall_line,
)
from mlrelease.requirements.table import (
    BY_DISTRIBUTION,
    MODULES,
    NOT_IN_ALL,
    PROJECT,
    TORCH_CPU_INDEX,
    Module,
    missing_module,
    normalize,
    requirement_name,
    top_level,
)

__all__ = [
    "BY_DISTRIBUTION",
    "MODULES",
    "NOT_IN_ALL",
    "PROJECT",
    "TORCH_CPU_INDEX",
    "Distribution",
    "Environment",
    "Installer",
    "MissingDependency",
    "Module",
    "install_line",
    "missing_module",
    "normalize",
    "requirement_name",
    "top_level",
    "uninstall_line",
]


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
        self.repair = self._repair(environment)
        return self

    def _repair(self, env: Environment) -> Repair | None:
        """The install line as a repair a ``--json`` caller can run, where installing the
        extra is the whole fix (not where another distribution shadows the module first)."""
        extra = self._extra(env)
        info = MODULES.get(top_level(self.module))
        if not extra or (info and any(d in env.distributions for d in info.shadows)):
            return None
        return Repair("command", command=tuple(shlex.split(install_line(env, [extra]))), commit=())

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
        if found and not env.importable.get(top, True):
            return (
                f"{who} needs {what}{spec}; {info.distribution} "
                f"{env.distributions[info.distribution]} is installed, but `{top}` cannot be "
                f"imported from it (a broken install): reinstall it, {install}."
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
