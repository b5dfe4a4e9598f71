"""What the ``models`` and ``compat`` gates and the command line call: verify a set of models
(probe the runtimes once, then one sandboxed worker per model), and judge the project's IR and
opsets against what its runtimes load."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from mlrelease.config import Config
from mlrelease.errors import ConfigError
from mlrelease.models import cache as model_cache
from mlrelease.models import compat as compat_rules
from mlrelease.models import integrity, probe_cache, runtimes, sandbox
from mlrelease.models import manifest as manifest_mod
from mlrelease.models.config import CompatConfig, ModelsConfig, canonical_domain
from mlrelease.models.escaping import console as escape_console
from mlrelease.models.manifest import ModelJob
from mlrelease.models.runtimes import describe
from mlrelease.models.safefile import Root
from mlrelease.models.verdicts import STYLE, ModelVerdict, StepStatus
from mlrelease.terminal import make_console

NEEDS_LIMITS = {"compat", "version_conversion"}


@dataclass
class Probed:
    """The configured runtimes' probed limits, and those that could not be used."""

    limits: list[runtimes.RuntimeLimits] = field(default_factory=list)
    unavailable: list[runtimes.Unavailable] = field(default_factory=list)
    from_cache: dict[str, bool] = field(default_factory=dict)


def probe_runtimes(
    compat: CompatConfig,
    *,
    root: Path,
    source: str,
    domains: Iterable[str] = (),
    refresh: bool = False,
) -> Probed:
    """Limits of every configured runtime target, from the cache or measured now."""
    runtimes.import_plugins(compat.runtime_plugins, source=source)
    cache = probe_cache.default_cache_dir(compat.cache_dir, root)
    wanted = {*(canonical_domain(d) for d in compat.opsets), *domains}
    probed = Probed()
    for runtime in runtimes.resolve(compat.runtimes, source=source):
        if isinstance(runtime, runtimes.Unavailable):
            probed.unavailable.append(runtime)
            continue
        limits, cached = probe_cache.cached_probe(runtime, cache, wanted, refresh=refresh)
        probed.limits.append(limits)
        probed.from_cache[limits.label] = cached
    return probed


def project_jobs(config: Config) -> list[ModelJob]:
    """Jobs for the models of the project's manifest (``[tool.mlrelease.models] manifest``)."""
    path = config.path(config.table(ModelsConfig).manifest)
    if not path.is_file():
        raise ConfigError(
            "tool.mlrelease.models.manifest",
            "an existing manifest file",
            f"no file at {config.table(ModelsConfig).manifest}",
            source=str(config.pyproject_path),
            hint="Create it (see models/manifest.toml in mlrelease) or point the key at yours.",
        )
    manifest = manifest_mod.load(path)
    return manifest_mod.jobs(manifest, path.parent, source=str(path))


def verdict_cache_dir(config: Config) -> Path:
    """Where passing verdicts of the project's models are cached (next to the probe cache)."""
    return probe_cache.default_cache_dir(config.table(CompatConfig).cache_dir, config.root)


@dataclass
class CompatReport:
    """Everything the compat judgement found, for the gate and ``mlrelease compat probe``."""

    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    limits: list[dict[str, object]] = field(default_factory=list)
    produced: list[compat_rules.Produced] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the project passes: no problem found."""
        return not self.problems


def model_declarations(config: Config) -> tuple[list[compat_rules.Produced], list[str]]:
    """What the manifest's models declare (read without external data), and unreadable ones."""
    produced: list[compat_rules.Produced] = []
    problems: list[str] = []
    if not config.path(config.table(ModelsConfig).manifest).is_file():
        return produced, problems
    for job in project_jobs(config):
        path = Path(job.model)
        problem = integrity.check_file(path, Path(job.confine), "model", hard_links=job.trusted)
        try:
            if problem:
                raise ValueError(problem)
            header = integrity.load_header(path, path.parent, hard_links=job.trusted)
        except ValueError as exc:
            problems.append(f"model {job.name}: cannot read its versions: {exc}")
            continue
        produced.append(
            compat_rules.model_produced(
                f"model {job.name}",
                header.ir_version,
                [(o.domain, o.version) for o in header.opset_import],
            )
        )
    return produced, problems


def judge_compat(config: Config, *, refresh: bool = False) -> CompatReport:
    """The compat judgement (the ``compat`` gate's, ``mlrelease compat probe``'s): the pinned
    onnx's metadata, what the project stamps and what its models declare, against what each
    configured runtime really loads (probed, or read from the cache unless ``refresh``)."""
    report = CompatReport()
    facts = compat_rules.onnx_facts()
    report.problems.extend(compat_rules.version_table_problems(facts))
    pin_problems, pin_notes = compat_rules.pin_problems(config.pyproject, "onnx", facts.version)
    report.problems.extend(pin_problems)
    report.facts.extend(pin_notes)
    stamped = compat_rules.declared(
        config.table(CompatConfig).ir_version, config.table(CompatConfig).opsets, facts.made
    )
    report.produced.append(stamped)
    models, unreadable = model_declarations(config)
    report.produced.extend(models)
    report.problems.extend(unreadable)
    domains = {d for p in report.produced for d in p.opsets}
    probed = probe_runtimes(
        config.table(CompatConfig),
        root=config.root,
        source=str(config.pyproject_path),
        domains=domains,
        refresh=refresh,
    )
    for missing in probed.unavailable:
        line = f"{missing.label}: {missing.reason}"
        (report.problems if missing.required else report.facts).append(line)
    for limits in probed.limits:
        cached = "cached" if probed.from_cache.get(limits.label) else "probed now"
        report.facts.append(f"{limits.label} ({cached}): {', '.join(describe(limits))}")
        report.limits.append(limits.to_dict())
        for produced in report.produced:
            for finding in compat_rules.judge(produced, limits):
                (report.facts if finding.ok else report.problems).append(finding.message)
    return report


def prepare(jobs: Sequence[ModelJob], config: Config, probed: Probed | None) -> None:
    """Give every job the sandbox limits, runtimes and probed runtime limits it needs."""
    models, compat = config.table(ModelsConfig), config.table(CompatConfig)
    for job in jobs:
        job.memory_limit_mb = models.memory_limit_mb
        job.time_limit_s = models.time_limit_s
        job.max_tensor_elements = models.max_tensor_elements
        job.max_nodes = models.max_nodes
        job.max_model_bytes = models.max_model_bytes
        job.max_input_elements = models.max_input_elements
        job.threads = models.threads
        job.runtime_plugins = list(compat.runtime_plugins)
        job.runtimes = [
            {"name": spec.name, "providers": list(spec.providers), "required": spec.required}
            for spec in compat.runtimes
        ]
        job.limits = [lim.to_dict() for lim in probed.limits] if probed else []


def verify(
    jobs: Sequence[ModelJob],
    config: Config,
    *,
    console: Console | None = None,
    refresh_probe: bool = False,
    cache_dir: Path | None = None,
    started: float | None = None,
    root: Root | None = None,
) -> list[ModelVerdict]:
    """Verify each job in its own sandboxed worker; print one line per model.

    ``cache_dir``: reuse (and store) passing verdicts of unchanged models (trusted sets only).
    The run stays within ``[tool.mlrelease.models] total-time-limit-s`` counted from
    ``started`` (a ``time.monotonic()`` value; default now): each model's time limit is cut to
    what is left, and models still waiting when it is spent fail without being started.
    ``root``: the submission's folder, opened once by the caller; every worker reads through it.
    """
    console = console or make_console()
    budget = config.table(ModelsConfig).total_time_limit_s
    deadline = (started if started is not None else time.monotonic()) + budget if budget else None
    probed = None
    if any(NEEDS_LIMITS & set(job.steps) for job in jobs):
        probed = probe_runtimes(
            config.table(CompatConfig),
            root=config.root,
            source=str(config.pyproject_path),
            refresh=refresh_probe,
        )
    prepare(jobs, config, probed)
    run = _Run(jobs, console, cache_dir, deadline, budget, root)
    workers = 1 if root is not None else _workers(config.table(ModelsConfig).jobs, len(jobs))
    if workers == 1:
        return [run.one(i) for i in range(len(jobs))]
    with ThreadPoolExecutor(max_workers=workers) as pool:  # each verdict is a subprocess's
        return list(pool.map(run.one, range(len(jobs))))


def _workers(configured: int, count: int) -> int:
    """How many models to verify at once: ``jobs``, or one per CPU core (at most four)."""
    wanted = configured or min(4, os.cpu_count() or 1)
    return max(1, min(wanted, count))


@dataclass
class _Run:
    """One verification run: each job's verdict from the cache, the budget or its worker."""

    jobs: Sequence[ModelJob]
    console: Console
    cache_dir: Path | None
    deadline: float | None
    budget: int
    root: Root | None

    def one(self, index: int) -> ModelVerdict:
        job, label = self.jobs[index], f"\\[{index + 1}/{len(self.jobs)}]"
        digest = model_cache.key(job) if self.cache_dir is not None else None
        verdict = model_cache.load(self.cache_dir, digest) if self.cache_dir and digest else None
        left = None if self.deadline is None else self.deadline - time.monotonic()
        if verdict is not None:
            pass
        elif left is not None and left < 1:
            verdict = sandbox.not_run(
                job,
                f"the total time budget of {self.budget} s "
                "([tool.mlrelease.models] total-time-limit-s, --total-time-limit-s) is spent",
            )
        else:
            if left is not None and left < job.time_limit_s:
                job.time_limit_s = max(1, int(left))
            self.console.print(
                f"{label} verifying {escape_console(job.name)} ({', '.join(job.steps)})",
                style="dim",
                highlight=False,
            )
            verdict = sandbox.run(job, root=self.root)
            if self.cache_dir is not None and digest is not None:
                model_cache.store(self.cache_dir, digest, verdict)
        self._report(label, job, verdict)
        return verdict

    def _report(self, label: str, job: ModelJob, verdict: ModelVerdict) -> None:
        worst = next((s for s in verdict.steps if s.outcome is StepStatus.FAIL), None)
        warned = any(s.outcome is StepStatus.WARN for s in verdict.steps)
        outcome = StepStatus.FAIL if worst else StepStatus.WARN if warned else StepStatus.PASS
        tail = f": {worst.step}: {worst.summary}" if worst else ""
        took = "cached" if verdict.cached else f"{verdict.duration_s:.1f} s"
        self.console.print(
            f"{label} [{STYLE[outcome]}]{outcome.value:4}[/] "
            f"{escape_console(job.name + tail)} [dim]({took})[/]",
            highlight=False,
        )
