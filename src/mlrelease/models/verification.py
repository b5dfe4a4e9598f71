"""What ``mlrelease models verify [PATH]`` decides, without the command line: a submission
folder, a manifest, one model or the project's model set, verified and judged (:func:`verify_path`).

A Model Zoo submission is opened once here (its folder, then its artifacts inspected in a
subprocess), its models verified through that opened folder, and judged ACCEPT or DECLINE
(:func:`mlrelease.models.zoo.decide`); any other target passes when every model passes every
step. The result, a :class:`Verification`, is what the command prints and what a bot or a gate
can read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from rich.console import Console

from mlrelease import __version__
from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.models import manifest as manifest_mod
from mlrelease.models import service, verdicts, zoo
from mlrelease.models.config import ModelsConfig
from mlrelease.models.escaping import md_text
from mlrelease.models.manifest import ModelJob
from mlrelease.models.safefile import Root, UnsafeFile
from mlrelease.models.verdicts import STEPS, ModelVerdict, StepStatus, StepVerdict


@dataclass
class Verification:
    """The decision of one ``models verify``: every model's verdict and the report to show."""

    results: list[ModelVerdict]
    report: str
    """Markdown: the ACCEPT/DECLINE comment of a submission, else the verdict table."""
    accepted: bool
    """A submission accepted, or every model passing every step."""
    submission: zoo.Submission | None = None
    """The submission's artifacts, when the target was a submission folder."""


def environment() -> str:
    """Tool versions, for the submission comment."""
    parts = [f"mlrelease {__version__}"]
    for dist in ("onnx", "onnxruntime"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} (not installed)")
    return ", ".join(parts)


def verify_path(
    target: Path | None,
    config: Config,
    *,
    steps: Sequence[str] | None = None,
    refresh_probe: bool = False,
    console: Console | None = None,
    started: float | None = None,
) -> Verification:
    """Verify ``target`` (a submission folder, a manifest ``.toml``, a model ``.onnx``; None:
    the project's manifest, with its verdict cache) with ``config``'s limits, and judge it.

    ``steps``: run only these steps (integrity always runs). ``started``: when the total time
    budget began (a ``time.monotonic()`` value; default now).
    """
    started = time.monotonic() if started is None else started
    submission = None
    cache_dir = None
    root = None
    if target is not None and target.is_dir():
        submission, root = _submission(target, config)
        jobs = submission.jobs
    elif target is not None and target.suffix == ".onnx":
        job, root = _single(target)
        jobs = [job]
    elif target is not None:
        if not target.is_file():
            raise UserError(
                f"{target}: no such file or folder. Pass a submission folder, a "
                "manifest (.toml) or a model (.onnx); or nothing for the default set."
            )
        manifest = manifest_mod.load(target)
        jobs = manifest_mod.jobs(manifest, target.parent.absolute(), source=str(target))
    else:
        jobs = service.project_jobs(config)
        cache_dir = service.verdict_cache_dir(config)
    if steps:
        for job in jobs:
            job.steps = [s for s in STEPS if s in steps]
    results = service.verify(
        jobs,
        config,
        console=console,
        refresh_probe=refresh_probe,
        cache_dir=None if refresh_probe else cache_dir,
        started=started,
        root=root,
    )
    _replaced(root, submission, results)
    if submission is None:
        ok = all(v.ok for v in results)
        return Verification(results, verdicts.markdown(results), ok)
    accepted, _ = zoo.decide(submission, results)
    text = zoo.comment(submission, results, environment())
    return Verification(results, text, accepted, submission)


def _submission(target: Path, config: Config) -> tuple[zoo.Submission, Root | None]:
    """A submission folder, opened once here (its root), then inspected in a subprocess."""
    try:
        root = Root.open(target)
    except UnsafeFile as exc:
        submission = zoo.Submission(target.absolute())
        submission.reasons.append(md_text(exc))
        return submission, None
    models = config.table(ModelsConfig)
    inspect_limit = float(models.inspect_time_limit_s)
    if models.total_time_limit_s:
        inspect_limit = min(inspect_limit, float(models.total_time_limit_s))
    submission = zoo.inspect_isolated(
        root,
        time_limit_s=inspect_limit,
        memory_limit_mb=models.memory_limit_mb,
        allow_missing_outputs=models.allow_missing_expected_outputs,
    )
    return submission, root


def _single(target: Path) -> tuple[ModelJob, Root | None]:
    """A model given alone: its folder opened once here (a folder that cannot be, the
    sandbox refuses with the reason)."""
    try:
        root = Root.open(target.parent)
    except UnsafeFile:
        return manifest_mod.single(target), None
    return manifest_mod.single(target, discover=zoo.discover_in(root)), root


def _replaced(
    root: Root | None, submission: zoo.Submission | None, results: list[ModelVerdict]
) -> None:
    """A root that no longer names the folder verified declines it (read what was verified)."""
    if root is None:
        return
    swapped = root.replaced()
    root.close()
    if swapped is None:
        return
    if submission is not None:
        submission.reasons.append(md_text(swapped))
        return
    for verdict in results:
        verdict.steps.insert(0, StepVerdict("integrity", StepStatus.FAIL, swapped))
