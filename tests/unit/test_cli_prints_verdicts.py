"""A service returns the decision; a CLI prints it (STYLE.md, rule 16).

The rule, checked on the syntax trees of every command-line module of the package (each
``cli.py`` and ``*_cli.py``), nothing imported:

1. A CLI calls no *judging function* except through a service: a call that resolves (through
   the module's imports) to a function of ``mlrelease`` named ``judge`` or ``decide``, or
   starting with ``judge_`` or ``decide_``, is allowed only when that function is defined in a
   ``service`` module. (The judging functions of the pure modules, ``zoo.decide``,
   ``results.judge``, ``compat.judge``, are for services and gates.)
2. A CLI constructs no *verdict*: it calls no class of ``mlrelease`` whose name ends in
   ``Verdict``, ``Judgement`` or ``Report`` (it receives them from a service and prints them).

So a bot, a gate or a script gets every decision a command prints from one service call,
without argparse.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mlrelease

SRC = Path(mlrelease.__file__).parent
JUDGING = re.compile(r"^(judge|decide)(_\w+)?$")
VERDICT_TYPE = re.compile(r"^[A-Z]\w*(Verdict|Judgement|Report)$")


def _imports(tree: ast.Module, package: str) -> dict[str, str]:
    """Local name -> dotted ``mlrelease`` name it stands for (a module or a module's member)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # from . import x (relative to the CLI's package)
                base = ".".join([package, node.module] if node.module else [package])
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name
    return {k: v for k, v in names.items() if v.startswith("mlrelease.")}


def _called(node: ast.Call, imports: dict[str, str]) -> str | None:
    """The dotted ``mlrelease`` name a call resolves to, when it resolves to one."""
    parts: list[str] = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imports:
        return None
    return ".".join([imports[func.id], *parts])


def violations(source: str, module: str) -> list[str]:
    """Where the CLI module ``module`` (its ``source``) judges or builds a verdict itself."""
    tree = ast.parse(source)
    imports = _imports(tree, module.rpartition(".")[0])
    found = []
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: n.lineno)
    for node in calls:
        target = _called(node, imports)
        if target is None:
            continue
        owner, _, name = target.rpartition(".")
        if JUDGING.match(name) and owner.rpartition(".")[2] != "service":
            found.append(f"{module}:{node.lineno} calls the judging function {target}")
        elif VERDICT_TYPE.match(name):
            found.append(f"{module}:{node.lineno} constructs the verdict {target}")
    return found


def cli_modules() -> list[Path]:
    """Every command-line module of the package."""
    return sorted(p for p in SRC.rglob("*.py") if p.name == "cli.py" or p.name.endswith("_cli.py"))


def _dotted(path: Path) -> str:
    return ".".join(("mlrelease", *path.relative_to(SRC).with_suffix("").parts))


def test_no_cli_assembles_a_verdict() -> None:
    modules = cli_modules()
    assert len(modules) >= 10  # every feature's cli.py, found
    found = [v for p in modules for v in violations(p.read_text(encoding="utf-8"), _dotted(p))]
    assert found == [], "decide in a service, print in the CLI: " + "; ".join(found)


def test_a_cli_that_judges_or_builds_a_verdict_is_found() -> None:
    # The shape models/cli.py had: the Zoo decision and the compat judgement made in the CLI.
    source = (
        "from mlrelease.models import service, zoo\n"
        "from mlrelease.models.gate import judge_project\n"
        "from mlrelease.models.verdicts import StepVerdict\n"
        "from mlrelease.downstream import results as res\n"
        "def cmd(args):\n"
        "    accepted, _ = zoo.decide(args.submission, [])\n"
        "    report = judge_project(args.ctx)\n"
        "    StepVerdict('integrity', 'fail', 'swapped')\n"
        "    res.judge(args.run, [], None)\n"
        "    return service.judge_compat(args.config).ok\n"
    )
    assert violations(source, "mlrelease.models.cli") == [
        "mlrelease.models.cli:6 calls the judging function mlrelease.models.zoo.decide",
        "mlrelease.models.cli:7 calls the judging function mlrelease.models.gate.judge_project",
        "mlrelease.models.cli:8 constructs the verdict mlrelease.models.verdicts.StepVerdict",
        "mlrelease.models.cli:9 calls the judging function mlrelease.downstream.results.judge",
    ]
