"""What ``mlrelease perf`` and the ``perf`` gate do: run a profile, write its files, compare.

Plain functions over the configuration; the CLI and the gate only format their outcome.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from mlrelease import git
from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.perf import compare, page, runner
from mlrelease.perf.config import Profile
from mlrelease.perf.results import Results, read, write

GPU_NOTE = (
    "No GPU results on this page yet: `nox -s perf_gpu` runs the `gpu` profile (the "
    "seed's full matrix) on a machine with a CUDA device, and is skipped, with that "
    "reason, elsewhere. The `perf-gpu` workflow runs it on self-hosted runners labelled "
    "by device and merges their reports here."
)


@dataclass
class RunOutcome:
    results: Results
    paths: dict[str, Path]
    comparison: compare.Comparison
    page: Path | None


def profile_of(config: Config, name: str) -> Profile:
    return config.perf.profile(name, source=str(config.pyproject_path))


def baselines(config: Config) -> list[Results]:
    """Every baseline file under ``baselines-dir`` (``<device-key>.json``)."""
    folder = config.path(config.perf.baselines_dir)
    return [read(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


def baseline_at(config: Config, ref: str, device_key: str) -> Results:
    """The device's baseline as committed at git ``ref`` (e.g. the previous release's tag)."""
    relative = f"{config.perf.baselines_dir}/{device_key}.json"
    text = git.run(config.root, "show", f"{ref}:{relative}", check=False)
    if not text.strip().startswith("{"):
        raise UserError(
            f"{ref}:{relative}: no such baseline at that ref. Check the tag "
            "(`git tag`) and that a baseline for this device was committed there."
        )
    data = json.loads(text)
    return Results.from_dict(data, source=f"{ref}:{relative}")


def compare_with(
    config: Config,
    profile: Profile,
    results: Results,
    *,
    baseline: Results | None = None,
    note: str = "",
    interleaved: bool = False,
) -> compare.Comparison:
    """Compare ``results`` with ``baseline``, or with the best committed baseline."""
    timing = True
    if baseline is None:
        baseline, timing, note = compare.choose_baseline(
            results.device_key, results.profile, baselines(config)
        )
    elif baseline.device_key != results.device_key:
        timing = False
        note = (
            f"the baseline is from `{baseline.device_key}`, this run from "
            f"`{results.device_key}`: timings not compared"
        )
    assert profile.threshold is not None
    return compare.compare(
        results,
        baseline,
        threshold=profile.threshold,
        alpha=profile.alpha,
        method=profile.method,
        timing=timing,
        note=note,
        interleaved=interleaved,
    )


def run(
    config: Config,
    profile_name: str,
    *,
    console: Console,
    output: Path | None = None,
    docs: bool = True,
    keep_work: bool = False,
    baseline: Results | None = None,
) -> RunOutcome:
    """Run a profile, write results (and the docs page), compare with the baseline."""
    profile = profile_of(config, profile_name)
    folder = output or config.path(config.perf.results_dir) / profile_name
    results = runner.execute(
        profile_name,
        profile,
        root=config.root,
        work=folder / "work",
        console=console,
        keep_work=keep_work,
    )["current"]
    paths = write(results, folder)
    published = None
    if docs:
        published = page.publish(
            [results],
            config.path(config.perf.docs_dir),
            plots_from={results.device_key: folder},
            gpu_note=GPU_NOTE,
        )
    comparison = compare_with(config, profile, results, baseline=baseline)
    (folder / "comparison.md").write_text(comparison.to_markdown(), encoding="utf-8")
    paths["comparison"] = folder / "comparison.md"
    return RunOutcome(results, paths, comparison, published)


def interleaved(
    config: Config,
    profile_name: str,
    *,
    baseline_python: str,
    candidate_python: str = sys.executable,
    rounds: int | None = None,
    console: Console,
    output: Path | None = None,
) -> tuple[dict[str, Results], compare.Comparison]:
    """Run two builds (Python environments) in interleaved rounds and compare them."""
    import dataclasses

    profile = profile_of(config, profile_name)
    if rounds is not None:
        profile = dataclasses.replace(profile, rounds=rounds)
    folder = output or config.path(config.perf.results_dir) / f"{profile_name}-compare"
    builds = [
        runner.Build("baseline", baseline_python),
        runner.Build("candidate", candidate_python),
    ]
    both = runner.execute(
        profile_name,
        profile,
        root=config.root,
        work=folder / "work",
        builds=builds,
        console=console,
    )
    for name, results in both.items():
        write(results, folder / name, plots=False)
    comparison = compare_with(
        config,
        profile,
        both["candidate"],
        baseline=both["baseline"],
        note=f"interleaved rounds: {profile.rounds}",
        interleaved=True,
    )
    (folder / "comparison.md").write_text(comparison.to_markdown(), encoding="utf-8")
    return both, comparison


def merge(config: Config, files: Sequence[Path], docs: Path | None = None) -> Path:
    """Merge devices' results.json files into the docs page (one section per device)."""
    if not files:
        raise UserError("perf merge: give at least one results.json.")
    loaded = [read(p) for p in files]
    keys = [r.device_key for r in loaded]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise UserError(
            f"perf merge: two results for device {', '.join(duplicates)}; pass one "
            "results.json per device."
        )
    return page.publish(loaded, docs or config.path(config.perf.docs_dir), gpu_note=GPU_NOTE)
