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

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.errors import UserError
from mlrelease.perf import compare, page, plots, runner
from mlrelease.perf import history as store
from mlrelease.perf.config import PerfConfig, Profile
from mlrelease.perf.progress import ProfileBar
from mlrelease.perf.results import Results, read, to_json
from mlrelease.perf.tables import to_csv, to_markdown

GPU_NOTE = (
    "No GPU results on this page yet: `nox -s perf_gpu` runs the `gpu` profile (the "
    "seed's full matrix) on a machine with a CUDA device, and is skipped, with that "
    "reason, elsewhere. The `perf-gpu` workflow runs it on self-hosted runners labelled "
    "by device and merges their reports here."
)


@dataclass
class ProfileRun:
    results: Results
    paths: dict[str, Path]
    comparison: compare.Comparison
    page: Path | None


def profile_of(config: Config, name: str) -> Profile:
    return config.table(PerfConfig).profile(name, source=str(config.pyproject_path))


def baselines(config: Config) -> list[Results]:
    """Every baseline file under ``baselines-dir`` (``<device-key>.json``)."""
    folder = config.path(config.table(PerfConfig).baselines_dir)
    return [read(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


def baseline_at(config: Config, ref: str, device_key: str) -> Results:
    """The device's baseline as committed at git ``ref`` (e.g. the previous release's tag)."""
    relative = f"{config.table(PerfConfig).baselines_dir}/{device_key}.json"
    text = git.run(config.root, "show", f"{ref}:{relative}", check=False)
    if not text.strip().startswith("{"):
        raise UserError(
            f"{ref}:{relative}: no such baseline at that ref. Check the tag "
            "(`git tag`) and that a baseline for this device was committed there."
        )
    data = json.loads(text)
    return Results.from_dict(data, source=f"{ref}:{relative}")


def compare_files(
    config: Config, candidate: Path, *, baseline: Path | None = None, against: str | None = None
) -> compare.Comparison:
    """``perf compare CANDIDATE``: a results.json against the ``baseline`` results.json, the
    device's baseline committed at git ref ``against``, or (neither) the best committed one."""
    results = read(candidate)
    profile = profile_of(config, results.profile)
    if baseline and against:
        raise UserError("perf compare: give --baseline FILE or --against REF, not both.")
    if baseline:
        chosen: Results | None = read(baseline)
    elif against:
        chosen = baseline_at(config, against, results.device_key)
    else:
        chosen = None
    return compare_with(config, profile, results, baseline=chosen)


def compare_with(
    config: Config,
    profile: Profile,
    results: Results,
    *,
    baseline: Results | None = None,
    note: str = "",
    looks: int = 1,
    timing: bool = True,
) -> compare.Comparison:
    """Compare ``results`` with ``baseline``, or with the best committed baseline.

    ``timing=False`` compares the rows' statuses only (the ``perf`` gate's status probe); the
    timings are not measured either when the baseline is from another device class."""
    from mlrelease.perf.device import device_class

    if baseline is None:
        baseline, comparable, note = compare.choose_baseline(
            results.device_key, results.profile, baselines(config)
        )
        timing = timing and comparable
    elif timing and device_class(baseline.device_key) != device_class(results.device_key):
        timing = False
        note = (
            f"the baseline is from `{baseline.device_key}`, this run from "
            f"`{results.device_key}` (another device class): timings not measured"
        )
    assert profile.threshold is not None
    comparison = compare.compare(
        results,
        baseline,
        threshold=profile.threshold,
        alpha=profile.alpha,
        looks=looks,
        timing=timing,
        note=note,
    )
    comparison.baseline = baseline
    return comparison


def run(
    config: Config,
    profile_name: str,
    *,
    console: Console,
    output: Path | None = None,
    docs: bool = True,
    keep_work: bool = False,
    baseline: Path | None = None,
    history: bool = True,
) -> ProfileRun:
    """Run a profile, write results (and the docs page), compare with the ``baseline``
    results.json (default: the best committed baseline), and append the run to the device
    class's history (``history``)."""
    profile = profile_of(config, profile_name)
    folder = output or config.path(config.table(PerfConfig).results_dir) / profile_name
    results = runner.execute(
        profile_name,
        profile,
        root=config.root,
        work=folder / "work",
        progress=ProfileBar(console),
        keep_work=keep_work,
    )["current"]
    paths = write_results(results, folder)
    published = None
    if docs:
        published = page.publish(
            [results],
            config.path(config.table(PerfConfig).docs_dir),
            plots_from={results.device_key: folder},
            gpu_note=GPU_NOTE,
        )
    comparison = compare_with(
        config, profile, results, baseline=read(baseline) if baseline else None
    )
    (folder / "comparison.md").write_text(comparison.to_markdown(), encoding="utf-8")
    paths["comparison"] = folder / "comparison.md"
    if comparison.family and comparison.family.measured and comparison.baseline is not None:
        assert profile.threshold is not None
        paths["comparison_plot"] = plots.comparison(
            comparison.baseline,
            results,
            comparison.family.tests,
            profile.threshold,
            folder / "comparison.png",
        )
    if history:
        paths["history"] = record(config, results)
        if docs:
            history_page(config)
    return ProfileRun(results, paths, comparison, published)


def record(config: Config, results: Results) -> Path:
    """Append ``results`` to its device class's history file (the commit measured: HEAD)."""
    commit = git.head(config.root) or "unknown"
    dirty = bool(git.dirty_files(config.root)) if commit != "unknown" else False
    target = store.path_for(config.path(config.table(PerfConfig).baselines_dir), results)
    return store.append(target, store.entry(results, commit, dirty=dirty))


HISTORY_PAGE = "history.md"


def history_page(config: Config, docs: Path | None = None) -> Path:
    """Render every device class's history into ``docs/perf/history.md`` with its plots."""
    folder = docs or config.path(config.table(PerfConfig).docs_dir)
    folder.mkdir(parents=True, exist_ok=True)
    threshold = profile_of(config, config.table(PerfConfig).gate_profile).threshold or 0.07
    sections = [
        "# Performance history",
        "",
        "<!-- Generated by `mlrelease perf history` (and `nox -s perf`); do not edit by hand. -->",
        "",
        "Every `nox -s perf` run appends its rows' medians (commit, device class, library "
        f"versions) to `{config.table(PerfConfig).baselines_dir}/history/<device-class>.jsonl`. "
        "A step is a shift between two segments of a row's series: the table names the first "
        "commit after it. Method: [methodology](methodology.md).",
        "",
    ]
    files = sorted(
        (config.path(config.table(PerfConfig).baselines_dir) / store.FOLDER).glob("*.jsonl")
    )
    if not files:
        sections += ["No history yet: run `nox -s perf`.", ""]
    for path in files:
        entries = store.read(path)
        if not entries:
            continue
        image = f"history-{path.stem}.png"
        plots.history(entries, path.stem, threshold, folder / image)
        sections.append(store.render(entries, path.stem, threshold=threshold, plot=image))
    page_path = folder / HISTORY_PAGE
    page_path.write_text("\n".join(sections).rstrip("\n") + "\n", encoding="utf-8")
    return page_path


def interleaved(
    config: Config,
    profile_name: str,
    *,
    baseline_python: str,
    candidate_python: str = sys.executable,
    rounds: int | None = None,
    max_rounds: int | None = None,
    console: Console,
    output: Path | None = None,
) -> tuple[dict[str, Results], compare.Comparison]:
    """Run two builds (Python environments) in interleaved rounds and compare them; with
    ``max_rounds``, rounds are added until every row is conclusive (or the budget is spent)."""
    import dataclasses

    profile = profile_of(config, profile_name)
    if rounds is not None:
        profile = dataclasses.replace(profile, rounds=rounds)
    if max_rounds is not None:
        profile = dataclasses.replace(profile, max_rounds=max(max_rounds, profile.rounds))
    adaptive = (profile.max_rounds or 0) > profile.rounds
    folder = output or config.path(config.table(PerfConfig).results_dir) / f"{profile_name}-compare"
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
        progress=ProfileBar(console),
    )
    for name, results in both.items():
        write_results(results, folder / name, with_plots=False)
    comparison = compare_with(
        config,
        profile,
        both["candidate"],
        baseline=both["baseline"],
        note=(
            f"interleaved rounds: {profile.rounds} to {profile.max_rounds} (adaptive, "
            f"{profile.looks} looks)"
            if adaptive
            else f"interleaved rounds: {profile.rounds}"
        ),
        looks=profile.looks if adaptive else 1,
    )
    (folder / "comparison.md").write_text(comparison.to_markdown(), encoding="utf-8")
    if comparison.family and comparison.family.measured:
        assert profile.threshold is not None
        plots.comparison(
            both["baseline"],
            both["candidate"],
            comparison.family.tests,
            profile.threshold,
            folder / "comparison.png",
        )
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
    return page.publish(
        loaded, docs or config.path(config.table(PerfConfig).docs_dir), gpu_note=GPU_NOTE
    )


def write_results(results: Results, folder: Path, *, with_plots: bool = True) -> dict[str, Path]:
    """Write results.json, results.csv, results.md (and the PNG plots) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": folder / "results.json",
        "csv": folder / "results.csv",
        "markdown": folder / "results.md",
    }
    paths["json"].write_text(to_json(results), encoding="utf-8")
    paths["csv"].write_text(to_csv(results), encoding="utf-8")
    paths["markdown"].write_text(to_markdown(results), encoding="utf-8")
    if with_plots:
        paths.update(plots.write(results, folder))
    return paths
