"""Rehearse the GitHub workflows' Linux jobs on this machine with nektos/act (``nox -s workflows``).

The rehearsal runs against a temporary clone whose ``origin`` is a local bare repository, in
act's self-hosted mode (no container engine here): every ``ubuntu-*`` label runs on this
machine; Windows and macOS labels have no platform and act skips their jobs (listed as not
rehearsed). Actions that cannot be fetched from GitHub are replaced by the stand-ins of
``tests/workflows/actions/`` (``--local-repository``; act checks out the event's ref of the
clone itself, and a checkout of another ref, such as ``gh-pages``, goes to the stand-in);
``gh`` by ``tests/workflows/bin/gh``.

What is narrowed so that one rehearsal fits in minutes (docs/workflows-rehearsal.md):
``NARROW_GATES`` replaces the release gates in the clone's pyproject.toml (a commit of the
clone), and ``NARROW_SESSIONS`` gives the long test sessions a few tests instead of the suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import reach
import reachability
import wiring
from actlog import Job, parse
from reachability import Event
from runners import UBUNTU_LABELS, not_rehearsed_why, unrunnable

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
ACT = shutil.which("act")

NARROW_GATES = ["git_state", "versions", "changelog", "compat", "opset_rules", "tests"]
"""The release gates of the rehearsal's clone: the cheap ones, and `tests` (which the CI shards
skip); the full set takes 11 minutes on 2 cores, once per shard."""
NARROW_SESSIONS = {
    "tests": ["-n", "0", "tests/unit/test_layers.py"],
    "tests_perf": ["--collect-only", "-q"],
}
"""Sessions a job runs with these arguments instead of none (tests/workflows/bin/nox)."""
NARROW_TESTS = [
    "python",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "tests/unit/test_layers.py",
]
"""The `tests` gate's command in the clone (the suite takes 8 minutes on 2 cores)."""

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Rehearsal",
    "GIT_AUTHOR_EMAIL": "rehearsal@example.invalid",
    "GIT_COMMITTER_NAME": "Rehearsal",
    "GIT_COMMITTER_EMAIL": "rehearsal@example.invalid",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}
OUTER_VARIABLES = ("NOX", "VIRTUAL_ENV", "PYTHONPATH", "PYTEST_XDIST")
"""Variables of the rehearsal's own session (nox's, its environment's, its xdist worker's)
that a runner does not have: no job or maintainer's command of the rehearsal sees them."""


class RehearsalError(Exception):
    """The rehearsal could not run (not: a job failed)."""


def git(cwd: Path, *args: str, stdin: str | None = None, raw: bool = False) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True
    )
    if done.returncode:
        raise RehearsalError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout if raw else done.stdout.strip()


@dataclass
class World:
    """A temporary clone, its bare origin, and the folders the stand-ins write."""

    root: Path
    index: str = ""
    home: Path | None = None
    """The HOME of the world's act runs (shared by every world of a session, so packages
    download once); the world's own folder when None."""

    @property
    def clone(self) -> Path:
        return self.root / "clone"

    @property
    def origin(self) -> Path:
        return self.root / "origin.git"

    def env(self, run: Path) -> dict[str, str]:
        """The environment of one act run: a HOME of the rehearsal's own, shared by its runs
        (so packages download once), and where the stand-ins keep their state."""
        home = self.home or self.root / "home"
        home.mkdir(exist_ok=True)
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith(OUTER_VARIABLES)},
            **GIT_ENV,
            "HOME": str(home),
            # gh (preinstalled on GitHub's runners) and the nox narrowing, for every job
            "PATH": os.pathsep.join(
                [
                    str(HERE / "bin"),
                    *(p for p in os.environ["PATH"].split(os.pathsep) if ".nox" not in p),
                ]
            ),
            "REHEARSAL_PYTHON": sys.executable,
            "REHEARSAL_STANDINS": str(HERE / "standins.py"),
            "REHEARSAL_BIN": str(HERE / "bin"),
            "REHEARSAL_NARROW": json.dumps(NARROW_SESSIONS),
            "REHEARSAL_ARTIFACTS": str(run / "artifacts"),
            "REHEARSAL_RECORD": str(run / "record"),
            "REHEARSAL_ATTESTATIONS": str(self.root / "attestations"),
            "REHEARSAL_RELEASES": str(self.root / "releases"),
            "REHEARSAL_ORIGIN": str(self.origin),
            "REHEARSAL_INDEX": self.index,
        }


def narrow(text: str) -> str:
    """pyproject.toml with ``NARROW_GATES`` as the gates, and ``NARROW_TESTS`` as the tests
    gate's command."""
    replacements = {
        r"(?ms)^gates = \[.*?\]\n": f"gates = {json.dumps(NARROW_GATES)}\n",
        r"(?ms)^(\[tool\.mlrelease\.gate-options\.tests\]\n.*?)^command = \[.*?\]\n": (
            f"\\1command = {json.dumps(NARROW_TESTS)}\n"
        ),
    }
    for pattern, replacement in replacements.items():
        text, count = re.subn(pattern, replacement, text, count=1)
        if count != 1:
            raise RehearsalError(f"pyproject.toml: nothing matches {pattern!r} to narrow")
    return text


def make_world(root: Path, source: Path = REPOSITORY, home: Path | None = None) -> World:
    """Clone ``source``'s HEAD with a bare origin, and commit on main its uncommitted changes
    and new files (the workflows being edited are the ones rehearsed) and the narrowed gates.
    The origin also has the branch ``gh-pages`` that docs.yml publishes to, started with an
    empty commit as docs/guide/versioned-docs.md tells a maintainer to."""
    world = World(root, home=home)
    git(root, "init", "-q", "--bare", "-b", "main", str(world.origin))
    git(source, "push", "-q", str(world.origin), "HEAD:refs/heads/main")
    empty = git(world.origin, "hash-object", "-t", "tree", "-w", "--stdin", stdin="")
    start = git(world.origin, "commit-tree", empty, "-m", "docs: start the site")
    git(world.origin, "update-ref", "refs/heads/gh-pages", start)
    git(root, "clone", "-q", str(world.origin), str(world.clone))
    changes = git(source, "diff", "HEAD", "--binary", raw=True)
    if changes:
        git(world.clone, "apply", "--whitespace=nowarn", "-", stdin=changes)
    for name in git(source, "ls-files", "--others", "--exclude-standard", "-z", raw=True).split(
        "\0"
    ):
        if name:  # new files not yet added (a new docs page the toctree names)
            (world.clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name, world.clone / name)
            git(world.clone, "add", "--", name)
    pyproject = world.clone / "pyproject.toml"
    pyproject.write_text(narrow(pyproject.read_text(encoding="utf-8")), encoding="utf-8")
    git(world.clone, "commit", "-q", "-am", "test(rehearsal): narrow the release gates and tests")
    git(world.clone, "push", "-q", "origin", "main")
    return world


def uses(workflows: Path) -> set[str]:
    """Every ``owner/name@ref`` the workflows use (not local ones, not reusable workflows)."""
    found: set[str] = set()
    for path in sorted(workflows.glob("*.yml")):
        for ref in re.findall(r"^\s*(?:- )?uses:\s*([^\s#]+)", path.read_text(), re.M):
            if not ref.startswith("./"):
                found.add(ref)
    return found


def standins(workflows: Path) -> dict[str, Path]:
    """The stand-in of every action the workflows use (act checks out the clone itself for a
    checkout of the event's ref, and uses the ``actions/checkout`` stand-in for any other);
    a used action without one is an error naming it."""
    found = {}
    for ref in sorted(uses(workflows)):
        action = ref.partition("@")[0]
        folder = HERE / "actions" / action
        if not (folder / "action.yml").is_file():
            raise RehearsalError(
                f"{ref}: the workflows use it and act cannot fetch it here; write its stand-in"
                f" as {folder.relative_to(REPOSITORY)}/action.yml (see the others there)"
            )
        found[ref] = folder
    return found


@dataclass
class Run:
    """One act run: its jobs, the jobs it never started, what the stand-ins recorded."""

    event: str
    workflow: str
    returncode: int
    jobs: list[Job]
    skipped: list[str]
    """The jobs of the workflow (``calling job/job`` for those of a called one) act never
    started."""
    log: Path
    record: Path
    ref: str = ""
    """The ref the event is about (a branch, a tag, or the pull request's head branch)."""
    given: list[str] = field(default_factory=list)
    """The artifacts stood in for jobs that cannot run here, each with its source."""
    problems: list[str] = field(default_factory=list)
    """Wiring faults (tests/workflows/wiring.py), jobs that ran where they must not, legs that
    never ran for want of a runner."""
    started: dict[str, str] = field(default_factory=dict)
    """job key (``calling job/job`` for a called workflow's) -> the workflow file it is in."""

    def ran(self, job_id: str) -> list[Job]:
        return [j for j in self.jobs if j.job_id == job_id]

    def records(self, kind: str) -> list[dict[str, object]]:
        path = self.record / "standins.jsonl"
        lines = path.read_text().splitlines() if path.is_file() else []
        return [e for e in map(json.loads, lines) if e["standin"] == kind]

    def failures(self) -> list[str]:
        """The failing jobs, each with the workflow file and job it is in, its failing step and
        the first error line of that step: what a planted fault must produce."""
        out = []
        for job in self.jobs:
            if job.result != "success" and not job.unsupported:
                bad = [name.strip()[:80] for name, result in job.steps if result == "failure"]
                out.append(
                    f"{job.file} job {job.key} [{job.name.strip()}]: {job.result or 'unfinished'}"
                    f" at {', '.join(bad) or '?'}: {job.cause() or 'no output'}"
                )
        return out + self.problems

    def must(self, run: set[str], not_run: set[str]) -> None:
        """Assert the jobs that ran and the jobs that did not are exactly these (job keys)."""
        assert (set(self.started), set(self.skipped)) == (run, not_run), (
            f"{self.workflow} on {self.event} of {self.ref}: ran {sorted(self.started)}, "
            f"expected {sorted(run)}; did not run {sorted(self.skipped)}, expected "
            f"{sorted(not_run)}; failures: {self.failures()}"
        )


def act(
    world: World,
    event: str,
    workflow: str,
    payload: Mapping[str, object],
    run: Path,
    only: str = "",
    given: Mapping[str, Path] | None = None,
) -> Run:
    """Run one workflow of the clone for one event (``only``: one job and the jobs it needs;
    ``given``: artifacts, name -> file, of jobs that cannot run here, uploaded before the run);
    the jobs act started, those it did not, and the wiring problems found."""
    if ACT is None:
        raise RehearsalError("act is not on PATH: run the rehearsal with `nox -s workflows`")
    workflows = world.clone / ".github" / "workflows"
    run.mkdir(parents=True)
    for name, source in (given or {}).items():
        (run / "artifacts" / name).mkdir(parents=True)
        shutil.copyfile(source, run / "artifacts" / name / source.name)
    event_file = run / "event.json"
    event_file.write_text(json.dumps(payload), encoding="utf-8")
    command = [ACT, event, "-W", str(workflows / workflow), "-e", str(event_file), "--json"]
    # Two jobs of a stage at once (each with its matrix entries): ci.yml's session jobs and its
    # release_verify shards overlap, as on GitHub; the jobs wait on the network more than on
    # the 2 cores.
    command += ["--concurrent-jobs", "2", "--action-cache-path", str(world.root / "act-cache")]
    command += ["--no-cache-server", "--action-offline-mode", *(["-j", only] if only else [])]
    for label in UBUNTU_LABELS:
        command += ["-P", f"{label}=-self-hosted"]
        command += ["--matrix", f"os:{label}", "--matrix", f"runner:{label}"]
    for ref, folder in standins(workflows).items():
        command += ["--local-repository", f"{ref}={folder}"]
    log = run / "act.log"
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            command, cwd=world.clone, env=world.env(run), stdout=out, stderr=subprocess.STDOUT,
            timeout=600, check=False,
        )  # fmt: skip
    jobs = parse(log.read_text(encoding="utf-8", errors="replace").splitlines())
    happened = reachability.event_of(world.clone, event, payload)
    reached = reach.reach(workflows, workflow, happened)
    place(jobs, reached)
    started = {j.key: j.file for j in jobs if not j.unsupported}
    problems = wiring.problems(workflows / workflow) + misplaced(reached, started, happened)
    problems += unrunnable(workflows, jobs)
    pr = payload.get("pull_request")
    ref = str(payload.get("ref") or (pr["head"]["ref"] if isinstance(pr, dict) else ""))
    skipped = list(dict.fromkeys(r.key for r in reached if r.key not in started))
    record = run / "record"
    stood_in = [f"{name} <- {source}" for name, source in (given or {}).items()]
    return Run(
        event,
        workflow,
        done.returncode,
        jobs,
        skipped,
        log,
        record,
        ref,
        stood_in,
        problems,
        started,
    )


def place(jobs: list[Job], reached: list[reach.Reach]) -> None:
    """Name each job act ran by the workflow file and job it is written in: act names a called
    workflow's job ``<calling job>/<workflow name>/<job name>``, a job of the workflow itself
    ``<workflow name>/<job name>``."""
    for job in jobs:
        mine = [r for r in reached if r.job == job.job_id]
        nested = [r for r in mine if r.caller and job.name.startswith(f"{r.caller.split()[1]}/")]
        found = (nested or [r for r in mine if not r.caller] or mine or [None])[0]
        job.key = found.key if found else job.job_id
        job.file = found.workflow if found else "?"


def misplaced(reached: list[reach.Reach], started: Mapping[str, str], event: Event) -> list[str]:
    """The jobs holding write permissions or publishing credentials that ran on a pull request
    or an RC tag (but the declared RC writers), each with the guards that did not stop it."""
    return [
        f"{r.where} holds {', '.join(r.holds)} and ran on {event.label}: no `if:` on it or on "
        f"a job it needs kept it off ({'; '.join(r.guards)})"
        for r in reached
        if r.key in started
        and r.holds
        and event.kind in reachability.UNTRUSTED
        and not reach.allowed(r, event)
    ]


def describe(run: Run) -> str:
    """What ran, what was skipped, and what was stood in, per job; each failing job's cause
    (the first error line of its failing step); each leg that never ran, and why."""
    on = f"{run.event} of {run.ref}" if run.ref else run.event
    out = [f"== {run.workflow} on {on}: act exited {run.returncode} (log: {run.log})"]
    folder = run.log.parents[1] / "clone" / ".github" / "workflows"
    for job in run.jobs:
        matrix = ", ".join(f"{k}={v}" for k, v in job.matrix.items())
        if job.unsupported:
            why = not_rehearsed_why(folder / job.file, job) or "a label no runner offers"
            out.append(f"  never   {job.key} [{matrix}]: runs-on {job.unsupported!r}: {why}")
            continue
        out.append(f"  ran     {job.key} [{matrix}] ({job.file}) -> {job.result or 'unfinished'}")
        for name, result in job.steps:
            out.append(f"          {result:8} {name[:100]}")
        for standin in job.standins:
            out.append(f"          stood in {standin}"[:160])
        if job.result != "success":
            out.append(f"          cause    {job.cause() or 'no output'}")
    never = {j.key for j in run.jobs if j.unsupported}
    out += [f"  skipped {job_id}" for job_id in run.skipped if job_id not in never]
    out += [f"  stood in artifact of a job that cannot run here: {g}" for g in run.given]
    out += [f"  WIRING FAULT: {p}" for p in run.problems]
    return "\n".join(out)


def pull_request(world: World, branch: str = "feature") -> dict[str, object]:
    """Put the clone on a new branch ``branch`` and return a pull_request payload for it."""
    git(world.clone, "checkout", "-q", "-B", branch)
    sha = git(world.clone, "rev-parse", "HEAD")
    pr = {"number": 7, "head": {"ref": branch, "sha": sha}, "base": {"ref": "main"}}
    return {"number": 7, "pull_request": pr}


def main_push(world: World) -> dict[str, object]:
    """Put the clone on main and return the push event of its head."""
    git(world.clone, "checkout", "-q", "main")
    sha = git(world.clone, "rev-parse", "HEAD")
    return {"ref": "refs/heads/main", "after": sha, "head_commit": {"id": sha}}


Rehearse = Callable[..., Run]
"""The fixture that runs one workflow for one event: (event, workflow file, payload, only="")
-> Run, ``only`` one job (and those it needs)."""
