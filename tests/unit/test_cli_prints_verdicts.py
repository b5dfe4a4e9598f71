"""A service returns the decision; a CLI prints it (STYLE.md, rules 16 and 17).

Checked on the syntax trees of every command-line module of the package (each ``cli.py`` and
``*_cli.py``), with the module's own helper functions followed (a helper that hands its
argument on counts as the caller doing it):

1. **A CLI does not conduct.** No result of a call into a feature package goes on to another
   such call: running, judging, writing, diffing and picking the exit code are chained in a
   service, which returns the decision for the CLI to print. What a command starts from is no
   result: the configuration (``mlrelease.config``, a feature's ``config`` module, a function
   whose return type is a class of one) and the values the CLI builds from its command line. A
   decision may go on to a presenter (:data:`PRESENTERS`: turns it into text, decides nothing)
   and a plan to its executor (a function named ``execute``: the ``--execute`` half of a
   dry-run-then-execute command). The edges (``edges.files`` shows, writes or checks the files
   a decision generated) are no feature step.
2. **A CLI builds no verdict.** The only classes of a feature package it constructs are its
   request values (a class of a ``service`` or ``arguments`` module, built from the command
   line) and presenters: never a finding, a verdict or a report.
3. **A CLI calls no judging function but a service's** (a function named ``judge``/``decide``
   or ``judge_*``/``decide_*`` outside a ``service`` module) and constructs no class named
   ``*Verdict``, ``*Judgement`` or ``*Report``.
4. **Services never see argparse.** Below its command-line modules, no module of a feature
   imports :mod:`argparse` (a CLI turns ``args`` into one frozen value first, as cibuildwheel's
   ``CommandLineArguments``), but for :data:`OWN_COMMAND_LINES`.
5. **A CLI knows its options.** No command-line module reads an option by name
   (``getattr(args, "version", None)``): each command reads the options its parser gave it as
   attributes, into the typed value it hands on, so that a renamed or missing option is an
   error rather than a silent None.

So a bot, a gate or a script gets every decision a command prints from one service call,
without argparse. :data:`PENDING` lists the modules another branch is rewriting: warned about
until it lands, then removed (an entry that no longer breaks the rule fails the test).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mlrelease
from mlrelease import registry

SRC = Path(mlrelease.__file__).parent
FEATURES = frozenset(f.name for f in registry.FEATURES)
JUDGING = re.compile(r"^(judge|decide)(_\w+)?$")
VERDICT_TYPE = re.compile(r"^[A-Z]\w*(Verdict|Judgement|Report)$")
RESULT = "result"
"""The label of a value that a feature step returned."""

PRESENTERS: dict[str, str] = {
    "mlrelease.ops.progress": "the live bars of a conformance run, fed by the run's callbacks",
    "mlrelease.downstream.render": "the summary table of a judged downstream run",
    "mlrelease.models.verdicts.rich_table": "the verdict table of a verification",
    "mlrelease.models.escaping.console": "a console that escapes submitted strings",
    "mlrelease.release.status.table": "the table of a release's status",
    "mlrelease.train.status.table": "the table of a train's status",
    "mlrelease.conda.service.summary": "a conda outcome as JSON (`mlrelease conda --json`)",
    "mlrelease.perf.bisect.render.lines": "the lines of a bisect's answer document",
}
"""Functions (or whole modules) that turn a decision into text: the reason each decides
nothing."""

OWN_COMMAND_LINES: dict[str, str] = {
    "mlrelease.opsets.collect": "the entry point of the child process that imports the "
    "adopter's schema modules (`python -m mlrelease.opsets.collect`), not a service",
}
"""Feature modules that parse a command line of their own."""

PENDING: dict[str, str] = {}
"""Modules another branch is rewriting, with what they still do."""

READ_BY_NAME_PENDING: dict[str, str] = {}
"""Command-line modules that still read options by name (rule 5), with where."""


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


def _resolve(target: str) -> tuple[str, Any]:
    """(the module, the object) a dotted ``mlrelease`` name stands for; the object is None when
    the name is not there (a test's made-up source)."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            found: Any = importlib.import_module(module)
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
        return module, found
    return "", None


def _is_config_module(module: str) -> bool:
    return module == "mlrelease.config" or module.endswith(".config")


def _returns_config(function: Any) -> bool:
    """Whether ``function``'s return type is a class of a configuration module."""
    try:
        returned = inspect.signature(function, eval_str=True).return_annotation
    except (TypeError, ValueError, NameError):
        return False
    return inspect.isclass(returned) and _is_config_module(returned.__module__)


def kind(target: str) -> str:
    """What a call into ``mlrelease`` is to the rule: ``step`` (a feature's decision or act:
    its result is a result), ``construct`` (a class), ``present``, ``execute``, ``config``, or
    ``other`` (the core, the edges, another command-line module)."""
    feature = target.split(".")[1]
    module, found = _resolve(target)
    last = module.rpartition(".")[2]
    if feature not in FEATURES or last == "cli" or last.endswith("_cli"):
        return "other"
    if _is_config_module(module) or _returns_config(found):
        return "config"
    if any(target == p or target.startswith(p + ".") for p in PRESENTERS):
        return "present"
    if inspect.isclass(found):
        return "construct"
    return "execute" if target.rpartition(".")[2] == "execute" else "step"


class Flow:
    """Which values of a CLI module's functions are results of feature steps, and where one
    goes on to another step (through the module's own helpers too)."""

    def __init__(self, tree: ast.Module, module: str, classify: Any = kind) -> None:
        self.module = module
        self.imports = _imports(tree, module.rpartition(".")[0])
        self.classify = classify
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.returns = dict.fromkeys(self.functions, False)
        """Helper -> whether it returns a result."""
        self.sinks: dict[str, set[str]] = {name: set() for name in self.functions}
        """Helper -> its parameters that reach a feature step."""
        self.kinds: dict[int, str] = {}

    def call_kind(self, node: ast.Call) -> tuple[str, str]:
        """(kind, callee) of a call: a :func:`kind`, ``local`` (a helper of the module) or
        ``other``."""
        target = _called(node, self.imports)
        if target is not None:
            if id(node) not in self.kinds:
                self.kinds[id(node)] = self.classify(target)
            return self.kinds[id(node)], target
        if isinstance(node.func, ast.Name) and node.func.id in self.functions:
            return "local", node.func.id
        return "other", ""

    def labels(self, expr: ast.AST, env: dict[str, set[str]]) -> set[str]:
        found: set[str] = set()
        for node in ast.walk(expr):
            if isinstance(node, ast.Name):
                found |= env.get(node.id, set())
            elif isinstance(node, ast.Call):
                what, callee = self.call_kind(node)
                if what in ("step", "execute") or (what == "local" and self.returns[callee]):
                    found.add(RESULT)
        return found

    def environment(self, function: ast.FunctionDef) -> dict[str, set[str]]:
        """Local name -> labels: ``result``, or ``param:NAME`` for what a parameter brings."""
        arguments = function.args
        params = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
        env = {p: {f"param:{p}"} for p in params}
        grew = True
        while grew:
            grew = False
            for target, value in _bindings(function):
                labels = self.labels(value, env)
                for node in ast.walk(target):
                    if isinstance(node, ast.Name) and not labels <= env.get(node.id, set()):
                        env[node.id] = env.get(node.id, set()) | labels
                        grew = True
        return env

    def passes(self, name: str) -> Iterator[tuple[ast.Call, str, set[str]]]:
        """(call, what it hands the result to, the labels handed) for every argument of a
        feature step, a constructor or a helper that hands it on, in function ``name``."""
        function = self.functions[name]
        env = self.environment(function)
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            what, callee = self.call_kind(node)
            given = [*node.args, *(k.value for k in node.keywords)]
            if what in ("step", "construct"):
                for value in given:
                    yield node, callee, self.labels(value, env)
            elif what == "local":
                params = [a.arg for a in self.functions[callee].args.args]
                named = dict(zip(params, node.args, strict=False))
                named |= {k.arg: k.value for k in node.keywords if k.arg}
                for param, value in named.items():
                    if param in self.sinks[callee]:
                        yield node, f"{callee} (which hands it on)", self.labels(value, env)

    def solve(self) -> None:
        """Follow results through the helpers until nothing changes."""
        changed = True
        while changed:
            changed = False
            for name, function in self.functions.items():
                env = self.environment(function)
                returns = any(
                    RESULT in self.labels(n.value, env)
                    for n in ast.walk(function)
                    if isinstance(n, ast.Return) and n.value is not None
                )
                sinks = {
                    label.removeprefix("param:")
                    for _, _, labels in self.passes(name)
                    for label in labels
                    if label.startswith("param:")
                }
                if returns != self.returns[name] or sinks != self.sinks[name]:
                    self.returns[name], self.sinks[name] = returns, sinks
                    changed = True

    def conducting(self) -> list[str]:
        """Where a result of one feature step goes on to another (rule 1)."""
        self.solve()
        found = set()
        for name in self.functions:
            for node, callee, labels in self.passes(name):
                if RESULT in labels:
                    where = f"{self.module}:{node.lineno} {name}"
                    found.add((node.lineno, f"{where} hands a result to {callee}"))
        return [text for _, text in sorted(found)]


def _bindings(function: ast.FunctionDef) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) of every binding in ``function``: assignments, loops, comprehensions,
    ``with ... as``, and what ``append``/``extend``/``add``/``update`` put into a local."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield target, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value:
            yield node.target, node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            yield node.target, node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield node.optional_vars, node.context_expr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in ("append", "extend", "add", "update", "insert")
        ):
            for value in node.args:
                yield node.func.value, value


def constructs(flow: Flow) -> list[str]:
    """Where a CLI builds a value of a feature that is not its request (rules 2 and 3)."""
    found = []
    calls = (n for f in flow.functions.values() for n in ast.walk(f) if isinstance(n, ast.Call))
    for node in calls:
        what, target = flow.call_kind(node)
        owner, _, name = target.rpartition(".")
        where = f"{flow.module}:{node.lineno}"
        if JUDGING.match(name) and owner.rpartition(".")[2] != "service":
            found.append(f"{where} calls the judging function {target}")
        elif VERDICT_TYPE.match(name):
            found.append(f"{where} constructs the verdict {target}")
        elif what == "construct" and owner.rpartition(".")[2] not in ("service", "arguments"):
            found.append(f"{where} constructs {target}, which is not a request value")
    return found


def violations(source: str, module: str, classify: Any = kind) -> list[str]:
    """Where the CLI module ``module`` (its ``source``) conducts, judges or builds a verdict."""
    flow = Flow(ast.parse(source), module, classify)
    return [*flow.conducting(), *constructs(flow)]


def cli_modules() -> list[Path]:
    """Every command-line module of the package."""
    return sorted(p for p in SRC.rglob("*.py") if p.name == "cli.py" or p.name.endswith("_cli.py"))


def _dotted(path: Path) -> str:
    return ".".join(("mlrelease", *path.relative_to(SRC).with_suffix("").parts))


def argparse_users() -> list[str]:
    """The modules of feature packages, other than command-line modules, importing argparse."""
    found = []
    for feature in sorted(FEATURES):
        for path in sorted((SRC / feature).rglob("*.py")):
            if path.name == "cli.py" or path.name.endswith("_cli.py"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
            names |= {
                n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
            }
            if "argparse" in names:
                found.append(_dotted(path))
    return found


def _pending(found: dict[str, list[str]]) -> dict[str, list[str]]:
    """``found`` less the :data:`PENDING` modules, each warned about (and failing the test once
    it no longer breaks the rule)."""
    stale = [m for m in PENDING if m in found and not found[m]]
    assert not stale, f"remove from PENDING, the rule holds there now: {stale}"
    for module in PENDING:
        if found.get(module):
            warnings.warn(f"{module}: {PENDING[module]}", stacklevel=2)
    return {m: v for m, v in found.items() if v and m not in PENDING}


def test_no_cli_conducts_or_assembles_a_verdict() -> None:
    modules = cli_modules()
    assert len(modules) >= 10  # every feature's cli.py, found
    found = {_dotted(p): violations(p.read_text(encoding="utf-8"), _dotted(p)) for p in modules}
    left = _pending(found)
    assert left == {}, "decide in a service, print in the CLI: " + "; ".join(
        v for vs in left.values() for v in vs
    )


def test_every_presenter_is_one_a_cli_calls() -> None:
    called = set()
    for path in cli_modules():
        flow = Flow(ast.parse(path.read_text(encoding="utf-8")), _dotted(path))
        for node in (n for f in flow.functions.values() for n in ast.walk(f)):
            if isinstance(node, ast.Call) and (target := _called(node, flow.imports)):
                called |= {p for p in PRESENTERS if target == p or target.startswith(p + ".")}
    assert called == set(PRESENTERS), f"no CLI calls {sorted(set(PRESENTERS) - called)}"


def test_services_never_see_argparse() -> None:
    users = argparse_users()
    found = {m: [m] for m in users if m not in OWN_COMMAND_LINES}
    for module in PENDING:
        found.setdefault(module, [])
    left = _pending({m: v for m, v in found.items() if m.rpartition(".")[2] != "cli"})
    assert left == {}, f"turn args into a frozen value in the CLI, not below it: {sorted(left)}"
    assert set(OWN_COMMAND_LINES) <= set(users), "an own command line listed that is gone"


def options_read_by_name(source: str, module: str) -> list[str]:
    """Where the command-line module ``module`` (its ``source``) reads an option of ``args`` by
    name."""
    return [
        f"{module}:{node.lineno} reads an option of args by name"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "args"
    ]


def test_no_cli_reads_its_options_by_name() -> None:
    found = {
        _dotted(p): options_read_by_name(p.read_text(encoding="utf-8"), _dotted(p))
        for p in cli_modules()
    }
    stale = [m for m in READ_BY_NAME_PENDING if not found.get(m)]
    assert not stale, f"remove from READ_BY_NAME_PENDING, the rule holds there now: {stale}"
    for module in READ_BY_NAME_PENDING:
        warnings.warn(f"{module}: {READ_BY_NAME_PENDING[module]}", stacklevel=2)
    left = [v for m, vs in found.items() if m not in READ_BY_NAME_PENDING for v in vs]
    assert left == [], "read the options the parser gave the command as attributes: " + "; ".join(
        left
    )


def test_a_cli_that_reads_an_option_by_name_is_found() -> None:
    source = "def _candidate(args):\n    return getattr(args, 'version', None), args.rc\n"
    assert options_read_by_name(source, "mlrelease.release.cli") == [
        "mlrelease.release.cli:2 reads an option of args by name"
    ]


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
    assert [
        v for v in violations(source, "mlrelease.models.cli") if "judg" in v or "verdict" in v
    ] == [
        "mlrelease.models.cli:6 calls the judging function mlrelease.models.zoo.decide",
        "mlrelease.models.cli:7 calls the judging function mlrelease.models.gate.judge_project",
        "mlrelease.models.cli:8 constructs the verdict mlrelease.models.verdicts.StepVerdict",
        "mlrelease.models.cli:9 calls the judging function mlrelease.downstream.results.judge",
    ]


def test_a_cli_that_conducts_is_found() -> None:
    # The shapes ops/cli.py and wheels/cli.py had: the steps of `ops index` and `wheels smoke`
    # chained in the CLI, a finding built there.
    ops = (
        "from mlrelease.config import of_command\n"
        "from mlrelease.ops import service, staleness\n"
        "from mlrelease.ops import policy as policy_mod\n"
        "def _setup(args):\n"
        "    config = of_command(args)\n"
        "    ops = service.ops_config(config)\n"
        "    return config, ops, policy_mod.load(config.root, ops.tolerances, ops.known_failures)\n"
        "def cmd_index(args):\n"
        "    config, ops, policy = _setup(args)\n"
        "    outcome = service.read_results(args.from_results)\n"
        "    service.write_results(config.path('results.json'), outcome)\n"
        "    return staleness.check(config, ops, policy, outcome, {}, None).ok\n"
    )
    assert violations(ops, "mlrelease.ops.cli") == [
        "mlrelease.ops.cli:11 cmd_index hands a result to mlrelease.ops.service.write_results",
        "mlrelease.ops.cli:12 cmd_index hands a result to mlrelease.ops.staleness.check",
    ]
    wheels = (
        "from mlrelease.wheels import artifacts, build\n"
        "from mlrelease.wheels.artifacts import FileProblem\n"
        "def cmd_smoke(args):\n"
        "    findings = artifacts.verify_sums(args.folder)\n"
        "    hosted = [w for w in artifacts.collect(args.folder) if build.installable(w)]\n"
        "    findings.append(FileProblem(str(args.folder), 'no wheel installable here'))\n"
        "    return len(findings) + len(hosted)\n"
    )
    assert violations(wheels, "mlrelease.wheels.cli") == [
        "mlrelease.wheels.cli:5 cmd_smoke hands a result to mlrelease.wheels.build.installable",
        "mlrelease.wheels.cli:6 constructs mlrelease.wheels.artifacts.FileProblem, which is not "
        "a request value",
    ]


def test_a_result_handed_on_through_a_helper_is_found() -> None:
    source = (
        "from mlrelease.config import of_command\n"
        "from mlrelease.downstream import service\n"
        "def _finish(config, table, run):\n"
        "    return service.judge(config, table, run).ok\n"
        "def cmd_merge(args):\n"
        "    config = of_command(args)\n"
        "    return _finish(config, None, service.read(args.results))\n"
    )
    assert violations(source, "mlrelease.downstream.cli") == [
        "mlrelease.downstream.cli:7 cmd_merge hands a result to _finish (which hands it on)"
    ]


def test_a_plan_to_its_executor_a_decision_to_its_presenter_are_no_conducting() -> None:
    source = (
        "from mlrelease.config import of_command\n"
        "from mlrelease.project import bump\n"
        "from mlrelease.release import service, status\n"
        "from mlrelease.downstream.service import Request\n"
        "def cmd_bump(args):\n"
        "    config = of_command(args)\n"
        "    plan = bump.plan(config, to=args.to, part=None)\n"
        "    bump.execute(config, plan, journalled=True)\n"
        "def cmd_status(args):\n"
        "    config = of_command(args, loader=service.resuming(args.load_config))\n"
        "    found = status.status(config, Request(candidate=args.candidate))\n"
        "    print(status.table(found))\n"
    )
    assert violations(source, "mlrelease.release.cli") == []
