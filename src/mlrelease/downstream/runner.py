"""Run one consumer's selection in one environment, isolated, and read what every test did.

The run is a child of the process edge (:mod:`mlrelease.edges.proc`): its own session, an
address-space limit, the consumer's time budget as a wall-clock limit (the whole group is
killed past it), a private scratch folder that is removed afterwards. It works on its own copy
of the tests (a test that writes next to itself cannot disturb the other side), with an
environment built from an allow-list: the consumer's tests are third-party code and never see
the release job's tokens. pytest loads :mod:`mlrelease.downstream.pytest_report`, which writes
each result as it happens, so a killed run still reports what it finished, and which test was
running when it died (that test gets the death as its error).

A side whose tests did not run says why (:attr:`SideRun.problem`: a crash, a timeout, pytest's
exit 2-5, a collection error, no tests) and how to run them again by hand
(:attr:`SideRun.reproduce`): such a consumer is not verified.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease.downstream.verdicts import COMMAND, RUN, CaseOutcome, SideResult, SideRun, is_test
from mlrelease.edges import proc

PLUGIN = "mlrelease_downstream_report"
REPORT_ENV = "MLRELEASE_DOWNSTREAM_REPORT"
PASSED_ON = {
    "HOME",
    "PATH",
    "SYSTEMROOT",
    "COMSPEC",
    "PATHEXT",
    "WINDIR",
    "LANG",
    "LC_ALL",
    "TZ",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
}
"""The only variables of this process a consumer's tests see (HOME is replaced by a scratch
folder); tokens and the CI's credentials are never passed on."""
_EXIT = {2: "interrupted", 3: "an internal error", 4: "a usage error", 5: "no tests collected"}
_RANK = {CaseOutcome.PASSED: 0, CaseOutcome.SKIPPED: 1, CaseOutcome.FAILED: 2, CaseOutcome.ERROR: 3}


@dataclass(frozen=True)
class RunSpec:
    """What one side run needs."""

    python: Path
    """The environment's interpreter."""
    source: Path
    """The tests' folder (copied before each run)."""
    selection: Sequence[str] = ("tests",)
    pytest_args: Sequence[str] = ()
    command: Sequence[str] = ()
    time_budget_s: float = 900
    memory_limit_mb: int = 0
    threads: int = 0
    """OMP/BLAS threads of the run (0: the libraries' default)."""
    extra_env: dict[str, str] = field(default_factory=dict)


def _phase(record: dict[str, object]) -> CaseOutcome:
    outcome, when, xfail = record.get("outcome"), record.get("when"), bool(record.get("xfail"))
    if outcome == "failed":
        return CaseOutcome.FAILED if when == "call" else CaseOutcome.ERROR
    if outcome == "skipped" or (xfail and outcome != "passed"):
        return CaseOutcome.SKIPPED
    return CaseOutcome.PASSED


@dataclass
class PluginReport:
    """What the plugin's lines say: tests by node id, collection errors by node id, and the
    test that had started and not finished (the one running when a killed run died)."""

    tests: dict[str, SideResult]
    errors: dict[str, str]
    running: str = ""


def parse(lines: Iterable[str]) -> PluginReport:
    """The plugin's JSON lines read; a test's outcome is the worst of its phases and subtests.
    A test counts once its teardown was reported (pytest reports one for every test it ran):
    one cut short by a kill is absent, never passed (it is :attr:`PluginReport.running`). A garbled
    line (a killed writer) is skipped."""
    tests: dict[str, SideResult] = {}
    finished: set[str] = set()
    errors: dict[str, str] = {}
    running = ""
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "start" in record:
            running = str(record["start"])
            continue
        if "collect" in record:
            nodeid = str(record["collect"])
            if record.get("outcome") == "failed":
                errors[nodeid] = str(record.get("message", ""))
            else:
                tests[nodeid] = SideResult(nodeid, CaseOutcome.SKIPPED)
                finished.add(nodeid)
            continue
        nodeid = str(record.get("nodeid", ""))
        outcome = _phase(record)
        before = tests.get(nodeid)
        if before is None or _RANK[outcome] > _RANK[before.outcome]:
            tests[nodeid] = SideResult(nodeid, outcome, str(record.get("message", "")))
        if record.get("when") == "teardown":
            finished.add(nodeid)
    done = {n: t for n, t in tests.items() if n in finished}
    return PluginReport(done, errors, "" if running in finished else running)


def _tail(data: bytes, lines: int = 8) -> str:
    text = data.decode("utf-8", "replace")
    kept = [line[:300] for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def environment(spec: RunSpec, scratch: Path, report: Path) -> dict[str, str]:
    """The allow-listed environment of a run (see :data:`PASSED_ON`)."""
    env = {k: v for k, v in os.environ.items() if k in PASSED_ON}
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    env["PATH"] = os.pathsep.join([str(spec.python.parent), env.get("PATH", "")])
    env[REPORT_ENV] = str(report)
    env["PYTHONPATH"] = str(scratch / "plugin")
    if spec.threads:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[name] = str(spec.threads)
    env.update(spec.extra_env)
    return env


def argv(spec: RunSpec, only: Sequence[str] | None) -> list[str]:
    """The command of a run: pytest with the plugin on the selection (or on ``only``, the node
    ids of a re-run), or the smoke command with ``{python}`` filled in; the environment's Python
    starts through the one launcher (nothing from the working directory shadows a module)."""
    if spec.command:
        first, *rest = spec.command
        if first == "{python}":
            return proc.python(*rest, interpreter=spec.python)
        return [part.replace("{python}", str(spec.python)) for part in spec.command]
    chosen = list(only) if only is not None else list(spec.selection)
    return proc.python_module(
        "pytest",
        "-p",
        PLUGIN,
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-rN",
        "--continue-on-collection-errors",
        *spec.pytest_args,
        *chosen,
        interpreter=spec.python,
    )


def _run_outcome(finished: proc.Finished, spec: RunSpec) -> SideResult:
    """The run itself: passed when the process ended by itself with a verdict on its tests."""
    code = finished.returncode
    if finished.status is proc.ChildStatus.TIMEOUT:
        why = f"time budget of {spec.time_budget_s:g} s exceeded (time-budget-s); killed"
        return SideResult(RUN, CaseOutcome.FAILED, why)
    if code is None or code < 0:
        return SideResult(RUN, CaseOutcome.FAILED, f"{finished.reason}\n{_tail(finished.stderr)}")
    if not spec.command and code not in (0, 1):
        what = _EXIT.get(code, f"exit code {code}")
        tail = _tail(finished.stdout + finished.stderr)
        return SideResult(RUN, CaseOutcome.FAILED, f"pytest ended with {what}\n{tail}".strip())
    return SideResult(RUN, CaseOutcome.PASSED)


def problem(side: SideRun, smoke: bool) -> str:
    """Why the side's tests did not run, or "" when they ran (see the module docstring)."""
    run = side.tests.get(RUN)
    if run is not None and run.outcome is not CaseOutcome.PASSED:
        return run.message.splitlines()[0] if run.message else "the test run failed"
    if smoke:
        return ""
    if side.collect_errors:
        where = sorted(side.collect_errors)
        first = side.collect_errors[where[0]].strip().splitlines()
        more = f" (and {len(where) - 1} more)" if len(where) > 1 else ""
        return f"collection error in {where[0]}{more}: {first[0] if first else '?'}"
    if not any(is_test(n) for n in side.tests):
        return "zero tests collected"
    return ""


def reproduce(spec: RunSpec) -> str:
    """The command that runs the side again by hand (in the tests' folder, its environment)."""
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(spec.extra_env.items()))
    if spec.command:
        line = shlex.join(argv(spec, None))
    else:
        # Shown to a person, never started: the plain spelling they would type.
        rest = shlex.join([*spec.pytest_args, *spec.selection])
        line = f"{shlex.quote(str(spec.python))} -m pytest {rest}".rstrip()
    return f"cd {shlex.quote(str(spec.source))} && {env + ' ' if env else ''}{line}"


def _command_result(finished: proc.Finished) -> SideResult:
    """A smoke command's one result: its exit status, the end of its output when it failed."""
    if finished.returncode == 0:
        return SideResult(COMMAND, CaseOutcome.PASSED)
    output = _tail(finished.stdout + finished.stderr)
    return SideResult(COMMAND, CaseOutcome.FAILED, f"exit code {finished.returncode}\n{output}")


def run(spec: RunSpec, *, only: Sequence[str] | None = None) -> SideRun:
    """Run the selection (or the node ids ``only``) once; never raises for what the tests do."""
    scratch = Path(tempfile.mkdtemp(prefix="mlrelease-downstream-"))
    try:
        work = scratch / "work"
        shutil.copytree(spec.source, work, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        (scratch / "plugin").mkdir()
        plugin = Path(__file__).with_name("pytest_report.py")
        shutil.copyfile(plugin, scratch / "plugin" / f"{PLUGIN}.py")
        report = scratch / "report.jsonl"
        report.touch()
        limits = proc.Limits(wall_s=spec.time_budget_s, memory_mb=spec.memory_limit_mb or None)
        finished = proc.run(
            argv(spec, only),
            limits=limits,
            env=environment(spec, scratch, report),
            cwd=work,
            scratch=True,
        )
        found = parse(report.read_text(encoding="utf-8", errors="replace").splitlines())
        tests = found.tests
        tests[RUN] = _run_outcome(finished, spec)
        if spec.command and tests[RUN].outcome is CaseOutcome.PASSED:
            tests[COMMAND] = _command_result(finished)
        elif found.running and tests[RUN].outcome is not CaseOutcome.PASSED:
            why = f"the test process died during this test: {tests[RUN].message}"
            tests[found.running] = SideResult(found.running, CaseOutcome.ERROR, why)
        side = SideRun(tests, found.errors, finished.duration_s, reproduce=reproduce(spec))
        side.problem = problem(side, bool(spec.command))
        return side
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def python_version(python: Path) -> str:
    """``3.11.7``: the interpreter's version (for keys and reports)."""
    done = proc.call(
        proc.python("-c", "import platform; print(platform.python_version())", interpreter=python)
    )
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def interpreter(configured: str) -> Path:
    """The environments' interpreter: ``configured`` (a path or a name on PATH) or this one."""
    if not configured:
        return Path(sys.executable)
    found = shutil.which(configured)
    return Path(found) if found else Path(configured)
