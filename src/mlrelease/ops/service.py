"""One conformance run and what is made of it: the glue between config, cases, runner, index.

Used by ``mlrelease ops`` (:mod:`mlrelease.ops.cli`) and the ``ops_index`` gate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.ops import case_folders, environment, render
from mlrelease.ops import cases as cases_mod
from mlrelease.ops import index as index_mod
from mlrelease.ops import policy as policy_mod
from mlrelease.ops.cases import Case, CaseSummary
from mlrelease.ops.config import BackendConfig, OpsConfig
from mlrelease.ops.runner import Pool, Task
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict, Description
from mlrelease.requirements import MissingDependency

RESULTS_SCHEMA = "mlrelease/conformance-results"
WORK_DIR = "build/ops-index"


def ops_config(config: Config) -> OpsConfig:
    return config.table(OpsConfig).validate(str(config.pyproject_path))


def default_jobs(ops: OpsConfig) -> int:
    return ops.jobs or os.cpu_count() or 1


def case_set_names(ops: OpsConfig) -> list[str]:
    names = [f"the onnx {cases_mod.onnx_version()} node test suite"] if ops.onnx_node_cases else []
    return names + [f"the case folder `{s}`" for s in ops.case_sets]


def load_cases(
    config: Config,
    ops: OpsConfig,
    *,
    select: Sequence[str] = (),
    on_generate: Callable[[Path], None] | None = None,
) -> list[Case]:
    """Every configured case (node suite from the cache, then the case folders), selected."""
    try:
        import onnx  # noqa: F401
    except ImportError as exc:
        raise MissingDependency.of(exc, extra="ops") from None
    loaded: list[Case] = []
    if ops.onnx_node_cases:
        cache = config.path(ops.cache_dir) if ops.cache_dir else None
        loaded += cases_mod.onnx_node_cases(cache, on_generate)
    for folder in ops.case_sets:
        loaded += case_folders.load_case_folder(config.path(folder))
    cases_mod.check_unique(loaded)
    chosen = cases_mod.select(cases_mod.select(loaded, ops.select), select)
    if not chosen:
        patterns = ", ".join([*ops.select, *select])
        raise UserError(
            f"no case matches {patterns!r}. Case names look like test_abs; "
            "patterns are fnmatch globs such as 'test_abs*'."
        )
    return chosen


@dataclass
class ConformanceRun:
    """A run: which backends ran or were skipped, and every case result."""

    cases: list[CaseSummary]
    backends: list[BackendConfig]
    descriptions: dict[str, Description]
    results: list[CaseResult] = field(default_factory=list)
    case_sets: list[str] = field(default_factory=list)
    onnx: str = ""
    provision: environment.Provision = field(default_factory=environment.Provision)
    """What the machine lacked and this run provided (or could not)."""

    @property
    def not_measured(self) -> list[CaseResult]:
        """Cases the machine could not run (verdict ``environment``): never index changes."""
        return [r for r in self.results if r.verdict is ConformanceVerdict.ENVIRONMENT]

    def environment_notes(self) -> list[str]:
        """One line per thing the machine lacked: provided, or not measured and how to fix."""
        notes = [
            f"The {name} locale is not installed here; compiled it into the cache for this run."
            for name in self.provision.provided
        ]
        by_backend: dict[str, list[CaseResult]] = {}
        for result in self.not_measured:
            by_backend.setdefault(result.backend, []).append(result)
        for backend, results in by_backend.items():
            names = ", ".join(r.case for r in results[:3]) + (", ..." if len(results) > 3 else "")
            notes.append(
                f"{len(results)} case(s) on `{backend}` not measured here ({names}): "
                f"{results[0].message}. Their committed verdicts are kept."
            )
        return notes

    @property
    def measured(self) -> list[str]:
        return [b.name for b in self.backends if self.descriptions[b.name].available]

    @property
    def skipped(self) -> dict[str, str]:
        return {
            b.name: self.descriptions[b.name].reason
            for b in self.backends
            if not self.descriptions[b.name].available
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RESULTS_SCHEMA,
            "onnx": self.onnx,
            "case_sets": self.case_sets,
            "backends": [
                {
                    "name": b.name,
                    "kind": b.kind,
                    "provider": b.provider,
                    "available": self.descriptions[b.name].available,
                    "runtime": self.descriptions[b.name].runtime,
                    "reason": self.descriptions[b.name].reason,
                }
                for b in self.backends
            ],
            "cases": [vars(c) for c in self.cases],
            "results": [r.to_dict() for r in self.results],
        }


def run(
    config: Config,
    ops: OpsConfig,
    cases: Sequence[Case],
    *,
    policy: policy_mod.Policy,
    jobs: int,
    only_backends: Sequence[str] = (),
    on_start: Callable[[list[BackendConfig], int], None] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> ConformanceRun:
    """Run ``cases`` on the configured backends (or ``only_backends``) in worker processes."""
    known_names = [b.name for b in ops.backends]
    for name in only_backends:
        if name not in known_names:
            raise UserError(
                f"--backend {name}: not a configured backend. Configured in "
                f"[tool.mlrelease.ops] backends: {', '.join(known_names)}."
            )
    chosen = [b for b in ops.backends if not only_backends or b.name in only_backends]
    python_path = [str(config.path(p)) for b in chosen for p in b.python_path]
    log_dir = config.path(WORK_DIR) / "logs"
    cache = config.path(ops.cache_dir) if ops.cache_dir else cases_mod.default_cache_dir()
    provision = environment.provide(cache)
    with Pool(
        chosen,
        jobs=jobs,
        timeout_s=ops.timeout_s,
        log_dir=log_dir,
        python_path=python_path,
        env=provision.env,
    ) as pool:
        descriptions = {d.name: d for d in pool.describe()}
        available = [i for i, b in enumerate(chosen) if descriptions[b.name].available]
        tasks = []
        for case in cases:
            for i in available:
                rtol, atol = policy.tolerance(case.name, chosen[i].name, case.rtol, case.atol)
                tasks.append(Task(i, case, rtol, atol))
        if on_start:
            on_start([chosen[i] for i in available], len(cases))
        results = pool.run(tasks, on_result)
    for backend in ops.backends:
        if backend not in chosen:
            descriptions[backend.name] = Description(
                backend.name, False, "", "not selected (--backend)"
            )
    return ConformanceRun(
        cases_mod.summaries(cases),
        list(ops.backends),
        descriptions,
        results,
        case_set_names(ops),
        cases_mod.onnx_version(),
        provision,
    )


def read_results(paths: Sequence[Path]) -> ConformanceRun:
    """Merge results files written by ``mlrelease ops run`` (e.g. CI shards) into one run."""
    merged: ConformanceRun | None = None
    seen_cases: set[str] = set()
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(
                f"{path}: expected a results file of `mlrelease ops run`, "
                f"could not read it ({exc})."
            ) from None
        if data.get("schema") != RESULTS_SCHEMA:
            raise UserError(
                f'{path}: expected "schema": "{RESULTS_SCHEMA}"; '
                "pass files written by `mlrelease ops run -o FILE`."
            )
        backends = [
            BackendConfig(name=b["name"], kind=b["kind"], provider=b["provider"])
            for b in data["backends"]
        ]
        descriptions = {
            b["name"]: Description(b["name"], b["available"], b["runtime"], b["reason"])
            for b in data["backends"]
        }
        if merged is None:
            merged = ConformanceRun([], backends, descriptions, [], data["case_sets"], data["onnx"])
        elif [b.name for b in backends] != [b.name for b in merged.backends]:
            raise UserError(
                f"{path}: its backends differ from {paths[0]}; merge results of one "
                "configuration only."
            )
        for case in data["cases"]:
            if case["name"] not in seen_cases:
                seen_cases.add(case["name"])
                merged.cases.append(CaseSummary(**case))
        merged.results += [CaseResult.from_dict(r) for r in data["results"]]
    if merged is None:
        raise UserError("no results files given")
    return merged


def defined_ops() -> list[index_mod.OpVersion]:
    """Every operator version the installed onnx defines (deprecated ones included)."""
    import onnx.defs

    return [
        index_mod.OpVersion(
            cases_mod.domain_name(s.domain), s.name, int(s.since_version), bool(s.deprecated)
        )
        for s in onnx.defs.get_all_schemas_with_history()
    ]


def build_index(
    outcome: ConformanceRun,
    policy: policy_mod.Policy,
    committed: dict[str, Any] | None,
    domains: Sequence[str] = (),
) -> dict[str, Any]:
    """The index of a run. Backends that did not run here (no device, ``--backend``) keep
    their column from the committed index, so one machine never erases another's results."""
    carried = committed and index_mod.case_verdicts(committed)
    verdicts: dict[tuple[str, str], ConformanceVerdict] = {
        (r.case, r.backend): r.verdict for r in outcome.results
    }
    for result in outcome.not_measured:  # the machine's gap is no change of the backend
        key = (result.case, result.backend)
        if carried and key in carried:
            verdicts[key] = carried[key]
    headers = []
    by_backend: dict[str, list[CaseResult]] = {}
    for r in outcome.results:
        by_backend.setdefault(r.backend, []).append(r)
    for backend in outcome.backends:
        description = outcome.descriptions[backend.name]
        if description.available:
            header: dict[str, Any] = {
                "name": backend.name,
                "kind": backend.kind,
                "runtime": description.runtime,
            }
            if backend.kind == "onnxruntime":
                header["provider"] = backend.provider
            header["ir"] = index_mod.ir_facts(by_backend.get(backend.name, []))
            headers.append(header)
            continue
        previous = committed and index_mod.backend_header(committed, backend.name)
        if previous and carried:
            headers.append(previous)
            names = {c.name for c in outcome.cases}
            verdicts.update(
                {k: v for k, v in carried.items() if k[1] == backend.name and k[0] in names}
            )
    return index_mod.build(
        onnx_version=outcome.onnx,
        case_sets=outcome.case_sets,
        defined=defined_ops(),
        cases=outcome.cases,
        backends=headers,
        verdicts=verdicts,
        known=lambda case, backend: policy.known(case, backend) is not None,
        domains=domains,
    )


def read_benchmark(config: Config, ops: OpsConfig) -> dict[str, Any] | None:
    path = config.path(ops.benchmark)
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{ops.benchmark}: not valid JSON ({exc}); re-run "
            "`python scripts/bench_conformance.py` to rewrite it."
        ) from None
    return data


def render_page(config: Config, ops: OpsConfig, index: dict[str, Any]) -> str:
    return render.render(
        index, source=ops.index, benchmark=read_benchmark(config, ops), regenerate=ops.regenerate
    )


def read_committed(config: Config, ops: OpsConfig) -> dict[str, Any] | None:
    path = config.path(ops.index)
    if not path.is_file():
        return None
    return index_mod.loads(path.read_text(encoding="utf-8"), ops.index)


def write_results(path: Path, outcome: ConformanceRun) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(outcome.to_dict(), indent=1) + "\n", encoding="utf-8")


def borderline(results: Sequence[CaseResult], band: float = 2.0) -> list[CaseResult]:
    """Cases whose worst error is within ``band`` times of their tolerance, either side.

    Their verdict rests on the last bits of floating point: another CPU (other SIMD paths,
    another BLAS) may round across the line. They are listed so a flip in ``--check`` is
    recognised, and so a tolerance override can be considered.
    """
    return sorted(
        (
            r
            for r in results
            if r.tolerance_ratio is not None
            and 1.0 / band <= r.tolerance_ratio <= band
            and r.tolerance_ratio != float("inf")
        ),
        key=lambda r: (r.backend, r.case),
    )
