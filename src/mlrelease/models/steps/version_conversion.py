"""Step 6: the model converted to the target opset still checks, infers and computes the same."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from mlrelease.models.runtimes import RuntimeLimits, Unavailable, clean_message
from mlrelease.models.steps.compat import compat_findings
from mlrelease.models.steps.facts import ai_onnx_opset, output_names
from mlrelease.models.steps.inference import compare, run_runtime
from mlrelease.models.steps.opset_imports import opset_import_problems
from mlrelease.models.steps.shape_inference import strict_inference
from mlrelease.models.steps.state import State, first_line, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict

if TYPE_CHECKING:
    from onnx import ModelProto


def _stage(state: State, converted: ModelProto) -> Path:
    """Save the converted model in the temp folder, with a copy of its external data.

    A copy, because onnx rightly refuses external data behind a symlink or a hard link.
    """
    import onnx

    folder = state.tmp / "converted"
    folder.mkdir(exist_ok=True)
    path = folder / "model.onnx"
    source = Path(os.path.realpath(state.path.parent))
    for real in state.external_files:
        target = folder / real.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            shutil.copyfile(real, target)
    onnx.save_model(converted, str(path))
    return path


def step_version_conversion(state: State) -> StepVerdict:
    import onnx
    from onnx import version_converter

    assert state.header is not None
    job = state.job
    target = job.target_opset
    current = ai_onnx_opset(state.header)
    if target is None:
        return verdict("version_conversion", StepStatus.SKIP, "no target-opset declared")
    if current is None:
        return verdict("version_conversion", StepStatus.SKIP, "the model does not import ai.onnx")
    if current > target:
        return verdict(
            "version_conversion",
            StepStatus.SKIP,
            f"the model's opset {current} is newer than the target {target}",
        )
    model = (
        onnx.load_model(str(state.path), load_external_data=False)
        if state.external_files
        else onnx.load_model(str(state.path))
    )
    try:
        converted = version_converter.convert_version(model, target)
    except Exception as exc:
        return verdict(
            "version_conversion",
            StepStatus.FAIL,
            f"onnx.version_converter {current} -> {target} fails: {first_line(exc)}",
            [str(exc)],
        )
    warnings: list[str] = []
    path = _stage(state, converted)
    problems: list[str] = []
    try:
        onnx.checker.check_model(str(path), full_check=True)
    except Exception as exc:
        problems.append(f"converted model fails onnx.checker: {first_line(exc)}")
    error, _, _ = strict_inference(path, state.tmp / "converted-inferred.onnx")
    if error:
        problems.append(f"converted model fails strict shape inference: {first_line(error)}")
    header = onnx.load_model(str(path), load_external_data=False)
    rule_problems, rule_warnings, _ = opset_import_problems(header)
    problems.extend(f"converted model: {p}" for p in rule_problems)
    warnings.extend(
        f"converted model: {w} (onnx.version_converter does not raise ir_version)"
        for w in rule_warnings
    )
    limits = [RuntimeLimits.from_dict(d) for d in job.limits]
    problems.extend(
        f.message for f in compat_findings(header, "the converted model", limits) if not f.ok
    )
    ran: list[str] = []
    if state.datasets and state.baseline is not None and not problems:
        ran = _rerun(state, path, output_names(header), problems)
    step = f"opset {current} -> {target}"
    if problems:
        return verdict(
            "version_conversion", StepStatus.FAIL, f"{step}: {problems[0]}", problems + warnings
        )
    rerun = (
        f"; {', '.join(ran)} outputs unchanged" if ran else "; not re-run (no outputs to compare)"
    )
    if warnings:
        return verdict(
            "version_conversion",
            StepStatus.WARN,
            f"{step}: {warnings[0]}",
            [*warnings, f"re-checked{rerun}"],
        )
    return verdict("version_conversion", StepStatus.PASS, f"{step}: re-checked{rerun}")


def _rerun(state: State, path: Path, names: list[str], problems: list[str]) -> list[str]:
    """Every usable runtime on the converted model, against the outputs of the original one;
    returns the runtimes that ran (what differs goes to ``problems``)."""
    job = state.job
    assert state.datasets is not None and state.baseline is not None
    ran = []
    for runtime in state.runtimes():
        if isinstance(runtime, Unavailable):
            continue
        try:
            outputs = run_runtime(runtime, path, state.datasets, job.threads)
        except Exception as exc:
            problems.append(f"{runtime.label} cannot run the converted model: {clean_message(exc)}")
            continue
        for data, got, want in zip(state.datasets, outputs, state.baseline, strict=False):
            problems.extend(
                f"{runtime.label}, {data.name}, converted: {p}"
                for p in compare(want, got, names, job.rtol, job.atol)
            )
        ran.append(runtime.label)
    return ran
