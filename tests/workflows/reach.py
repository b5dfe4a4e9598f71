"""Which jobs of a workflow can run on one event, what each holds (write permissions,
publishing credentials), and the rule: none of them on a pull request or an RC tag, but the
RC writers ``reachability.RC_WRITERS`` declares.

A job can run unless its ``if:`` is false on the event, GitHub's implicit ``success()``
included: a job whose need never runs never runs, unless its ``if:`` calls a status function
(``always()``, ``!cancelled()``). A job of a reusable workflow can run when its calling job can,
and holds at most what the calling job grants.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from expressions import UNKNOWN, ExpressionError, evaluate, parse, truthy, uses_status
from reachability import (
    PUBLISH_ACTIONS,
    RC_WRITERS,
    UNTRUSTED,
    WRITE_SCOPES,
    Event,
    events,
    load,
    samples,
    triggers,
)

_DEFAULT = "the default token permissions (no `permissions:`: write-all where that is the default)"


@dataclass(frozen=True)
class Reach:
    """One job on one event: whether it can run, what it holds, the guards on its way."""

    workflow: str
    job: str
    caller: str
    """The calling job's ``<workflow file> <job id>`` for a job of a called workflow, else empty"""
    can_run: bool
    holds: tuple[str, ...]
    guards: tuple[str, ...]
    """``job: if`` of the job and of every job it needs (and of its calling job)"""

    @property
    def key(self) -> str:
        """``job``, or ``calling job/job`` for a job of a called workflow."""
        return f"{self.caller.split()[1]}/{self.job}" if self.caller else self.job

    @property
    def where(self) -> str:
        called = " (called by {} job {})".format(*self.caller.split()) if self.caller else ""
        return f"{self.workflow}: job {self.job}{called}"


def _scopes(perms: Any) -> list[str]:
    if perms == "write-all":
        return [f"{s}: write" for s in WRITE_SCOPES]
    if isinstance(perms, dict):
        return [f"{k}: write" for k, v in perms.items() if v == "write"]
    return []


def holds(job: Mapping[str, Any], data: Mapping[str, Any], cap: list[str] | None) -> list[str]:
    """The write permissions (at most ``cap``, the calling job's) and the publishing
    credentials a job holds: a publishing action, an environment's secrets, a secret."""
    perms = job.get("permissions", data.get("permissions"))
    if perms is None:
        found = list(cap) if cap is not None else [_DEFAULT]
    else:
        found = [s for s in _scopes(perms) if cap is None or s in cap or _DEFAULT in cap]
    for step in job.get("steps") or []:
        action = str(step.get("uses", "")).partition("@")[0]
        if action in PUBLISH_ACTIONS:
            found.append(f"the publishing action {action}")
    environment = job.get("environment")
    if environment:
        name = environment.get("name") if isinstance(environment, dict) else environment
        found.append(f"the environment {name} (its secrets)")
    text = yaml.safe_dump(dict(job))
    secrets = sorted(set(re.findall(r"secrets\.(\w+)", text)) - {"GITHUB_TOKEN"})
    found += [f"secrets.{s}" for s in secrets]
    return found


def _needs(job: Mapping[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def can_run(
    job: Mapping[str, Any], ran: Mapping[str, bool], github: Mapping[str, Any], inputs: Any
) -> bool:
    """Whether the job's ``if:`` (GitHub's ``success()`` when it calls no status function)
    can be true on the event, given which of its needs can run."""
    needs = _needs(job)
    never = any(not ran.get(n, True) for n in needs)
    status = {
        "always": lambda: True,
        "cancelled": lambda: UNKNOWN,
        "success": lambda: False if never else (UNKNOWN if needs else True),
        "failure": lambda: UNKNOWN if any(ran.get(n, True) for n in needs) else False,
    }
    skipped = {"result": "skipped", "outputs": {}}
    contexts = {
        "github": github,
        "needs": {n: (skipped if not ran.get(n, True) else UNKNOWN) for n in needs},
        "inputs": inputs,
    }
    condition = job.get("if")
    tree: Any = ("call", "success", [])
    if isinstance(condition, bool):
        tree = ("op", "&&", tree, ("lit", condition))
    elif condition is not None:
        written = parse(str(condition))
        tree = written if uses_status(written) else ("op", "&&", tree, written)
    return truthy(evaluate(tree, contexts, status)) is not False


def _order(jobs: Mapping[str, Any]) -> list[str]:
    done: list[str] = []

    def visit(job_id: str) -> None:
        if job_id not in done and job_id in jobs:
            for need in _needs(jobs[job_id]):
                visit(need)
            done.append(job_id)

    for job_id in jobs:
        visit(job_id)
    return done


def _guard(job_id: str, job: Mapping[str, Any]) -> str:
    condition = job.get("if")
    return f"{job_id}: {'none' if condition is None else condition}"


def reach(
    folder: Path, name: str, event: Event, outer: Reach | None = None, inputs: Any = None
) -> list[Reach]:
    """Every job of ``folder/name`` on ``event`` (a called workflow's jobs too, after their
    calling job); ``outer``: the calling job, when ``name`` is a called workflow."""
    data = load(folder / name)
    jobs = data["jobs"]
    ran: dict[str, bool] = {}
    guards: dict[str, tuple[str, ...]] = {}
    out: list[Reach] = []
    inputs = {} if inputs is None else inputs
    for job_id in _order(jobs):
        job = jobs[job_id]
        upstream = tuple(g for n in _needs(job) for g in guards.get(n, ()))
        guards[job_id] = tuple(dict.fromkeys((_guard(job_id, job), *upstream)))
        try:
            runs = can_run(job, ran, event.github, inputs)
        except ExpressionError as error:
            raise ExpressionError(f"{name}: job {job_id}: its `if:` {error}") from None
        ran[job_id] = runs and (outer is None or outer.can_run)
        called = str(job.get("uses", ""))
        limit = None if outer is None else list(outer.holds)
        caller = "" if outer is None else f"{outer.workflow} {outer.job}"
        chain = guards[job_id] + (outer.guards if outer else ())
        mine = Reach(name, job_id, caller, ran[job_id], tuple(holds(job, data, limit)), chain)
        if called.startswith("./"):  # its jobs hold at most what it grants
            with_ = {k: v for k, v in (job.get("with") or {}).items() if "${{" not in str(v)}
            out += reach(folder, Path(called).name, event, mine, with_)
        else:
            out.append(mine)
    return out


def allowed(reached: Reach, event: Event) -> bool:
    return event.kind == "rc-tag" and (reached.workflow, reached.job) in RC_WRITERS


def problems(workflow: Path) -> list[str]:
    """Every job holding write permissions or publishing credentials that can run on a pull
    request (``pull_request``, ``pull_request_target``) or an RC tag, from any trigger the
    workflow declares; each names the job, the event and the guards it lacks."""
    data = load(workflow)
    if set(triggers(data)) <= {"workflow_call"}:
        return []  # judged from the workflows that call it
    names = samples(workflow.parents[2])
    out = []
    for event in events(data, names):
        if event.kind not in UNTRUSTED:
            continue
        for found in reach(workflow.parent, workflow.name, event):
            if found.can_run and found.holds and not allowed(found, event):
                out.append(
                    f"{found.where} holds {', '.join(found.holds)} and can run on "
                    f"{event.label} (trigger `{event.trigger}` of {workflow.name}): no `if:` "
                    f"on it or on a job it needs is false there ({'; '.join(found.guards)}). "
                    "Guard it: `if: ${{ !contains(github.ref_name, '-rc') }}` keeps a job off "
                    "an RC tag, `if: github.event_name == 'push'` off a pull request"
                )
    return out
