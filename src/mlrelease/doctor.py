"""``mlrelease doctor``: can each configured gate and each command run here?

For every configured gate and every command: the extra of the ``mlrelease`` package that brings
what it needs, each of its distributions as installed here (version, inside the extra's range or
not, hidden by another tool of the same import name), and the programs and locales it uses. It
ends with one install line for everything missing, in the form that fits how mlrelease was
installed, and exits 1 when a configured gate cannot run.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlrelease import __version__, registry, requirements
from mlrelease.config import Config
from mlrelease.edges import installed
from mlrelease.gates import Gate, Needs
from mlrelease.requirements import Environment

STYLE = {True: "[green]ok[/]", False: "[bold red]cannot run[/]"}


@dataclass
class Check:
    """What one gate or command needs, and what of it is missing here."""

    subject: str
    extra: str | None
    found: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Lacks that leave it runnable (an environment gap: some cases are not measured)."""

    @property
    def ok(self) -> bool:
        return not self.problems


def distributions(env: Environment, extra: str) -> tuple[list[str], list[str]]:
    """The extra's distributions as installed here: ``(found, problems)``."""
    found: list[str] = []
    problems: list[str] = []
    for text in env.requirements_of(extra):
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        name = requirements.normalize(req.name)
        module = requirements.BY_DISTRIBUTION.get(name)
        shadows = [d for d in module.shadows if d in env.distributions] if module else []
        have = [
            d for d in (name, *(module.alternatives if module else ())) if d in env.distributions
        ]
        if shadows:
            named = ", ".join(f"{d} {env.distributions[d]}" for d in shadows)
            problems.append(f"{name}: `{module.name if module else name}` comes from {named}")
        elif not have:
            problems.append(f"{name}{req.specifier} not installed")
        elif not _inside(req, env.distributions[have[0]]):
            problems.append(f"{have[0]} {env.distributions[have[0]]} (needs {req.specifier})")
        else:
            found.append(f"{have[0]} {env.distributions[have[0]]}")
    return found, problems


def _inside(req: Requirement, version: str) -> bool:
    try:
        return req.specifier.contains(version, prereleases=True)
    except InvalidVersion:
        return True


def gate_extra(name: str, config: Config) -> str | None:
    """The extra gate ``name`` needs in this project."""
    tool = config.pyproject.get("tool", {})
    kind = tool.get("mlrelease", {}).get("wheels", {}).get("kind", "pure")
    extras = registry.gate_extras([name], cibuildwheel=kind != "pure" or "cibuildwheel" in tool)
    return extras[0] if extras else None


def programs(gate: Gate, config: Config) -> Needs:
    """What gate ``gate`` uses beyond its extra: the programs it runs from PATH, then its own
    preflight (:attr:`mlrelease.gates.Gate.preflight`)."""
    needs = Needs()
    for name in gate.programs:
        path = installed.program(name)
        if path:
            needs.found.append(f"{name} ({path})")
        else:
            needs.problems.append(f"{name} not on PATH")
    if gate.preflight is not None:
        more = gate.preflight(config)
        needs.found += more.found
        needs.problems += more.problems
        needs.notes += more.notes
    return needs


def check_gate(gate: Gate, config: Config, env: Environment) -> Check:
    extra = gate_extra(gate.name, config)
    check = Check(f"gate {gate.name}", extra)
    if extra:
        check.found, check.problems = distributions(env, extra)
    needs = programs(gate, config)
    check.found += needs.found
    check.problems += needs.problems
    check.notes += needs.notes
    return check


def check_commands(env: Environment) -> list[Check]:
    """One check per extra the commands use (``release``: changelog, bump, release...)."""
    by_extra: dict[str, list[str]] = {}
    for command, extra in registry.command_extras().items():
        if extra:
            by_extra.setdefault(extra, []).append(command)
    checks = []
    for extra, commands in by_extra.items():
        check = Check(", ".join(commands), extra)
        check.found, check.problems = distributions(env, extra)
        checks.append(check)
    return checks


def _table(title: str, checks: list[Check]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("needed by", "extra", "status", "found / missing"):
        table.add_column(column, overflow="fold")
    for c in checks:
        lines = [f"[red]{escape('; '.join(c.problems))}[/]"] if c.problems else []
        lines += [escape(n) for n in c.notes]
        lines += [escape(", ".join(c.found))] if c.found else []
        table.add_row(escape(c.subject), c.extra or "-", STYLE[c.ok], "\n".join(lines) or "-")
    return table


def run(config: Config | None, console: Console) -> int:
    """Print the report; 1 when a configured gate cannot run, else 0."""
    env = installed.environment()
    how = env.installer.kind + (
        f", checkout {env.installer.checkout}" if env.installer.checkout else ""
    )
    console.print(
        escape(f"mlrelease {__version__} in {env.prefix} ({how}); Python {sys.version.split()[0]}"),
        highlight=False,
    )
    if not env.extras:
        console.print(
            "mlrelease's installed metadata has no extras: it does not run from an "
            "installed package, so what each extra brings is unknown here."
        )
        return 2
    gates = []
    if config:
        known = registry.load_gates(config)  # checked at load: every configured gate is known
        gates = [check_gate(known[name], config, env) for name in config.gates]
    commands = check_commands(env)
    if config:
        console.print(_table(f"Gates configured in {config.pyproject_path}", gates))
    console.print(_table("Commands", commands))
    broken = [c for c in gates if not c.ok]
    missing = sorted({c.extra for c in [*gates, *commands] if c.extra and not c.ok})
    needed = sorted({c.extra for c in broken if c.extra})
    if needed:
        line = requirements.install_line(env, needed)
        console.print(
            f"The configured gates need: `{escape(line)}`", highlight=False, soft_wrap=True
        )
    elif missing:
        line = requirements.install_line(env, missing)
        console.print(f"Every command: `{escape(line)}`", highlight=False, soft_wrap=True)
    if broken:
        names = ", ".join(c.subject.removeprefix("gate ") for c in broken)
        console.print(f"{len(broken)} configured gate(s) cannot run here: {names}.")
        return 1
    console.print("Every configured gate can run here." if config else "No project found.")
    return 0


def project_root(root: Path | None) -> Path | None:
    """The project doctor reads: ``--root``, else the nearest pyproject.toml (if any)."""
    if root is not None:
        return root
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return None
