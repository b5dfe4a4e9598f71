"""act's ``--json`` log, read into jobs: each job's steps and result, its failing step's first
error line (the cause, which would otherwise stay in act.log), and the legs act never started
with the ``runs-on`` label no runner here offers."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f]")
CAUSES = (
    re.compile(
        r"not found|already exists|refus|no shard|no job|^\S+\.ya?ml:\d+:\d+: |"
        r"^\s*(?:error|Error|ERROR)\b(?:\[[\w-]+\])?:|^\w+(?:Error|Exception): "
    ),
    re.compile(r"(?i)\berror\b|\bfailed\b|traceback|no such file|denied|invalid"),
)
"""What an error line looks like, most telling first: a line matching the first pattern (nox's
"Sessions not found", the artifact conflict, the merge's refusal, actionlint's
``file:line:col:``, an ``error:``, a Python exception) wins over an earlier one matching only
the second."""
_UNSUPPORTED = re.compile(r"Skipping unsupported platform -- Try running with `-P (.+?)=")


@dataclass
class Job:
    """One job of a run (a matrix entry is a job of its own), as act reported it."""

    name: str
    job_id: str
    matrix: Mapping[str, object]
    result: str = ""
    steps: list[tuple[str, str]] = field(default_factory=list)
    standins: list[str] = field(default_factory=list)
    output: dict[str, list[str]] = field(default_factory=dict)
    """Each top-level step's output lines (those of the actions it uses included)."""
    unsupported: str = ""
    """The runs-on label act found no runner for; the job never started."""
    key: str = ""
    """The job's id in its workflow (``calling job/job`` in a called workflow): the rehearsal
    names it (``rehearsal.place``)."""
    file: str = ""
    """The workflow file the job is written in (the called one, for a called workflow's)."""

    @property
    def workflow(self) -> str:
        """The ``name:`` of the workflow act ran the job in (of the called one, when nested)."""
        return self.name.strip().split("/")[0]

    def cause(self) -> str:
        """The first error line of the failing step (of the last step when none failed)."""
        failing = [step for step, result in self.steps if result == "failure"]
        lines = self.output.get(failing[0] if failing else "", [])
        if not lines and self.steps:
            lines = self.output.get(self.steps[-1][0], [])
        for pattern in CAUSES:
            found = next((line for line in lines if pattern.search(line)), None)
            if found:
                return found.strip()[:300]
        return next((line.strip()[:300] for line in reversed(lines) if line.strip()), "")


def _top(entry: Mapping[str, object]) -> bool:
    """A step of the job itself, not one inside a composite action."""
    return len(entry.get("stepID") or []) == 1  # type: ignore[arg-type]


def _step_key(entry: Mapping[str, object]) -> str:
    return str((entry.get("stepID") or ["?"])[0])  # type: ignore[index]


def parse(lines: list[str]) -> list[Job]:
    """act's ``--json`` log: one Job per job and matrix entry, its Main steps, result, output."""
    jobs: dict[str, Job] = {}
    names: dict[tuple[str, str], str] = {}  # (job key, step id) -> the top-level step's name
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or "jobID" not in entry:
            continue
        key = f"{entry['job']} {json.dumps(entry.get('matrix') or {}, sort_keys=True)}"
        job = jobs.setdefault(key, Job(entry["job"], entry["jobID"], entry.get("matrix") or {}))
        msg = str(entry.get("msg", ""))
        unsupported = _UNSUPPORTED.search(msg)
        if unsupported and not job.unsupported:  # act names each label it lacks
            job.unsupported = unsupported.group(1)
        if entry.get("stage") == "Main" and _top(entry):
            names[(key, _step_key(entry))] = str(entry.get("step", ""))
        if "jobResult" in entry:
            job.result = entry["jobResult"]
        elif entry.get("raw_output") and msg.startswith("rehearsal: "):
            job.standins.append(msg.strip().removeprefix("rehearsal: stood in "))
        elif "stepResult" in entry and entry.get("stage") == "Main" and _top(entry):
            job.steps.append((entry["step"], entry["stepResult"]))
        elif entry.get("stage") == "Main" and (
            entry.get("raw_output") or entry["level"] == "error"
        ):
            step = names.get((key, _step_key(entry)), str(entry.get("step", "")))
            text = _ANSI.sub("", msg)
            job.output.setdefault(step, []).extend(text.splitlines())
    return list(jobs.values())
