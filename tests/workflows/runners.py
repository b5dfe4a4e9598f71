"""The runners of the rehearsal: which runs-on labels it runs here, which it does not rehearse
on purpose (and why), and the legs act never started because no runner offers their label."""

from __future__ import annotations

from pathlib import Path

import reachability
import wiring
from actlog import Job

UBUNTU_LABELS = ("ubuntu-latest", "ubuntu-24.04", "ubuntu-22.04")
"""The labels act runs on this machine (``-P label=-self-hosted``)."""
_WINDOWS = "no Windows here: act runs a job on this machine or in a container, never on Windows"
_MACOS = "no macOS here: act runs a job on this machine or in a container, never on macOS"
_ARM = "this machine is x86_64; an aarch64 job run here would prove nothing of aarch64"
NOT_REHEARSED = {
    "windows-latest": _WINDOWS,
    "windows-2022": _WINDOWS,
    "windows-11-arm": _WINDOWS,
    "macos-latest": _MACOS,
    "macos-13": _MACOS,
    "macos-14": _MACOS,
    "macos-15": _MACOS,
    "ubuntu-24.04-arm": _ARM,
}
"""Runner labels whose jobs are not rehearsed, and why. act's matrix filter (``--matrix
os:<ubuntu label>``, ``runner:...``) keeps only the Linux entries of a matrix that names its
runner as ``os`` or ``runner``; act's ``-P label=`` (no platform: skip) skips at random."""


def unrunnable(workflows: Path, jobs: list[Job]) -> list[str]:
    """The legs act never started because no runner offers their runs-on label, but the
    labels the rehearsal does not rehearse on purpose (``NOT_REHEARSED``, GPU runners)."""
    out = []
    for job in jobs:
        if job.unsupported and not_rehearsed_why(workflows / job.file, job) is None:
            out.append(
                f"{job.file}: job {job.key} [{job.name.strip()}] never ran: its runs-on label "
                f"{job.unsupported!r} is offered by no runner (GitHub-hosted: "
                f"{', '.join(wiring.HOSTED)}; a self-hosted runner's job lists `self-hosted`)"
            )
    return out


def not_rehearsed_why(workflow: Path, job: Job) -> str | None:
    """Why a leg act never started is not rehearsed on purpose (its runs-on labels, from the
    workflow file and its matrix entry); None when nothing explains it (a label no runner
    offers)."""
    written = wiring.load(workflow)["jobs"].get(job.job_id, {}) if workflow.is_file() else {}
    return _why(wiring.labels(written, job.matrix) or [job.unsupported])


def _why(found: list[str]) -> str | None:
    if "self-hosted" in found:
        kind = "CUDA " if "gpu" in found else ""
        return f"needs a self-hosted {kind}runner labelled {', '.join(found)}"
    return next((NOT_REHEARSED[label] for label in found if label in NOT_REHEARSED), None)


def not_rehearsed(folder: Path) -> str:
    """The jobs (matrix entries) of the workflows in ``folder`` that no run rehearses, each
    with why, and the runner labels that explain the rest (legs a plan job makes at run time)."""
    out = ["== not rehearsed, in any run:"]
    for workflow in sorted(folder.glob("*.yml")):
        for job_id, job in wiring.load(workflow)["jobs"].items():
            for entry in wiring.entries(job):
                why = _why(wiring.labels(job, entry))
                if why:
                    matrix = ", ".join(f"{k}={v}" for k, v in entry.items())
                    out.append(f"  {workflow.name} job {job_id} [{matrix}]: {why}")
    out += [f"  matrix entries on {label} ({why})" for label, why in NOT_REHEARSED.items()]
    return "\n".join(out)


REHEARSED = {
    ("ci.yml", "pull_request"): "test_ci_events.py",
    ("ci.yml", "branch"): "test_ci_events.py (a push to main)",
    ("docs.yml", "pull_request"): "test_docs_events.py",
    ("docs.yml", "branch"): "test_docs_events.py (a push to main)",
    ("release.yml", "rc-tag"): "test_release.py",
    ("release.yml", "final-tag"): "test_release.py",
    ("perf-gpu.yml", "final-tag"): "test_perf_gpu.py",
}
"""(workflow, event kind) -> the test module that rehearses it."""
NOT_REHEARSED_EVENTS = {
    ("docs.yml", "final-tag"): "the final tag's rehearsal runs release.yml; the push to main "
    "runs the same publish job (same checkouts, same push) with the --dev step instead",
    ("wheels.yml", "pull_request"): "release.yml calls wheels.yml on the RC tag: the same plan, "
    "build, smoke and collect jobs run there",
    ("wheels.yml", "branch"): "release.yml calls wheels.yml on the RC tag: the same jobs",
    ("perf-gpu.yml", "rc-tag"): "no job of perf-gpu.yml has a ref-dependent `if:`: an RC tag "
    "runs what the final tag runs",
}
"""(workflow, event kind) the rehearsal does not run, and why. Triggers a person starts
(workflow_dispatch) and reusable workflows (workflow_call) are judged with their callers."""


def unrehearsed(folder: Path) -> list[str]:
    """Each (workflow, event) a workflow declares that no rehearsal runs and no reason covers."""
    out = []
    for workflow in sorted(folder.glob("*.yml")):
        names = reachability.samples(folder.parents[1])
        for event in reachability.events(reachability.load(workflow), names):
            pair = (workflow.name, event.kind)
            if pair not in REHEARSED and pair not in NOT_REHEARSED_EVENTS:
                out.append(
                    f"{workflow.name}: declared for {event.label} (trigger `{event.trigger}`), "
                    "which no rehearsal runs: rehearse it (tests/workflows/) or say why not in "
                    "runners.NOT_REHEARSED_EVENTS"
                )
    return list(dict.fromkeys(out))
