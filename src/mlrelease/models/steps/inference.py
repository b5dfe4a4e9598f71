"""Step 5: every runtime's outputs against the expected outputs and the onnx reference
evaluator, with a suspect named when they disagree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mlrelease.edges import installed
from mlrelease.models.runtimes import Runtime, Unavailable, clean_message
from mlrelease.models.steps.data import load_datasets
from mlrelease.models.steps.facts import output_names
from mlrelease.models.steps.state import Arrays, Dataset, State, first_line, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict
from mlrelease.requirements import MissingDependency


def compare(expected: Arrays, got: Arrays, names: list[str], rtol: float, atol: float) -> list[str]:
    """Differences between two lists of outputs, one sentence each (empty: they agree)."""
    import numpy as np

    if len(expected) != len(got):
        return [f"{len(got)} outputs, expected {len(expected)}"]
    problems = []
    for name, want, have in zip(names, expected, got, strict=False):
        want, have = np.asarray(want), np.asarray(have)
        if want.shape != have.shape:
            problems.append(
                f"output '{name}': shape {list(have.shape)}, expected {list(want.shape)}"
            )
            continue
        if want.dtype.kind in "fc" or have.dtype.kind in "fc":
            w, h = want.astype(np.float64), have.astype(np.float64)
            close = np.isclose(h, w, rtol=rtol, atol=atol, equal_nan=True)
            if not close.all():
                diff = np.abs(h - w)
                diff = np.where(np.isnan(diff), np.inf, diff)
                problems.append(
                    f"output '{name}': {int((~close).sum())} of {close.size} values differ "
                    f"(max abs diff {float(diff.max()):.3g}; rtol {rtol:g}, atol {atol:g})"
                )
        elif not np.array_equal(want, have):
            problems.append(f"output '{name}': values differ")
    return problems


def run_reference(state: State, datasets: list[Dataset]) -> tuple[list[Arrays] | None, str]:
    """Reference outputs per data set, or None and why not."""
    if state.job.reference == "none":
        return None, "no reference declared"
    size = sum(p.stat().st_size for p in state.external_files)
    if size > state.job.memory_limit_mb * 2**20 // 4:
        return (
            None,
            f"not run: the reference evaluator would load {size / 2**30:.1f} GiB of weights",
        )
    import numpy as np
    import onnx
    from onnx.reference import ReferenceEvaluator

    try:
        evaluator = ReferenceEvaluator(onnx.load_model(str(state.path)))
    except NotImplementedError as exc:
        return None, f"unsupported by the onnx reference evaluator: {first_line(exc)}"
    except ImportError as exc:
        return None, environment_gap(exc)
    except Exception as exc:
        return None, f"the onnx reference evaluator cannot load it: {first_line(exc)}"
    outputs = []
    for data in datasets:
        try:
            outputs.append([np.asarray(o) for o in evaluator.run(None, data.feeds)])
        except NotImplementedError as exc:
            return None, f"unsupported by the onnx reference evaluator: {first_line(exc)}"
        except ImportError as exc:  # an operator's optional module (Pillow for ImageDecoder)
            return None, environment_gap(exc)
        except Exception as exc:
            return (
                None,
                f"the onnx reference evaluator failed: {type(exc).__name__}: {first_line(exc)}",
            )
    return outputs, ""


def environment_gap(exc: ImportError) -> str:
    """Why the reference did not run when this environment lacks a module: not a verdict on
    the model, and how to install what is missing."""
    module = installed.module_of_import_error(exc)
    if module is None:
        return f"not run here (this environment lacks a module: {first_line(exc)})"
    missing = MissingDependency(module, needed_by="the onnx reference evaluator")
    return f"not run here (an environment gap): {missing.within(installed.environment())}"


def run_runtime(
    runtime: Runtime, path: Path, datasets: list[Dataset], threads: int
) -> list[Arrays]:
    session = runtime.session(path, threads=threads)
    return [session.run(data.feeds) for data in datasets]


def step_inference(state: State) -> StepVerdict:
    assert state.header is not None
    job = state.job
    try:
        datasets = load_datasets(state)
    except ValueError as exc:
        return verdict("inference", StepStatus.FAIL, str(exc))
    if not datasets:
        return verdict(
            "inference",
            StepStatus.SKIP,
            "no test data: add test_data_set_N folders "
            "next to the model, or declare inputs and expected-outputs",
        )
    state.datasets = datasets
    names = output_names(state.header)
    details: list[str] = []
    failures: list[str] = []
    runtime_outputs: dict[str, list[Arrays]] = {}
    for runtime in state.runtimes():
        if isinstance(runtime, Unavailable):
            (failures if runtime.required else details).append(f"{runtime.label}: {runtime.reason}")
            continue
        try:
            runtime_outputs[runtime.label] = run_runtime(runtime, state.path, datasets, job.threads)
        except Exception as exc:
            failures.append(f"{runtime.label} cannot run the model: {clean_message(exc)}")
    reference, why_not = run_reference(state, datasets)
    expected = [d.expected for d in datasets]
    have_expected = all(e is not None for e in expected)
    suspects: list[str] = []

    def against(outputs: list[Arrays], wanted: list[Arrays]) -> list[str]:
        return [
            f"{d.name}: {p}"
            for d, o, w in zip(datasets, outputs, wanted, strict=False)
            for p in compare(w, o, names, job.rtol, job.atol)
        ]

    if have_expected:
        wanted = [e for e in expected if e is not None]
        _against_expected(
            runtime_outputs, reference, why_not, wanted, against, details, failures, suspects
        )
        state.baseline = wanted
    elif reference is not None:
        _against_reference(runtime_outputs, reference, against, details, failures, suspects)
        state.baseline = reference
    else:
        if runtime_outputs:
            state.baseline = next(iter(runtime_outputs.values()))
        message = f"no expected outputs stored and no reference ({why_not}): outputs not checked"
        if failures:
            return verdict("inference", StepStatus.FAIL, failures[0], [*failures, message])
        return verdict("inference", StepStatus.WARN, message, details)
    if failures:
        return verdict("inference", StepStatus.FAIL, failures[0], failures + suspects + details)
    if suspects:
        return verdict("inference", StepStatus.WARN, suspects[0], suspects + details)
    runs = ", ".join(runtime_outputs) or "no runtime"
    return verdict(
        "inference",
        StepStatus.PASS,
        f"{runs}: outputs match on {len(datasets)} data set(s)",
        details,
    )


Comparison = Callable[[list[Arrays], list[Arrays]], list[str]]
"""Outputs against wanted outputs, data set by data set: the differences found."""


def _against_expected(
    runtime_outputs: dict[str, list[Arrays]],
    reference: list[Arrays] | None,
    why_not: str,
    wanted: list[Arrays],
    against: Comparison,
    details: list[str],
    failures: list[str],
    suspects: list[str],
) -> None:
    """Every runtime and the reference evaluator against the stored expected outputs; when they
    disagree, who is suspect (a kernel, the reference, the stored outputs)."""
    ref_diff = against(reference, wanted) if reference is not None else None
    for label, outputs in runtime_outputs.items():
        diff = against(outputs, wanted)
        if not diff:
            details.append(f"{label} matches the expected outputs")
            continue
        failures.extend(f"{label} vs expected outputs: {d}" for d in diff)
        if ref_diff == []:
            suspects.append(
                f"suspected {label} kernel bug: the onnx reference evaluator "
                "matches the expected outputs and the runtime does not"
            )
        elif reference is not None and not against(outputs, reference):
            suspects.append(
                f"{label} and the onnx reference evaluator agree with each other "
                "but not with the stored expected outputs: suspect the expected "
                "outputs"
            )
    if reference is None:
        details.append(f"reference: {why_not}")
    elif ref_diff:
        matching = [label for label, o in runtime_outputs.items() if not against(o, wanted)]
        who = f"{', '.join(matching)} and the expected outputs agree; " if matching else ""
        suspects.append(
            f"suspected onnx reference evaluator bug: {who}the reference disagrees: {ref_diff[0]}"
        )
        details.extend(f"reference vs expected: {d}" for d in ref_diff[1:])
    else:
        details.append("the onnx reference evaluator matches the expected outputs")


def _against_reference(
    runtime_outputs: dict[str, list[Arrays]],
    reference: list[Arrays],
    against: Comparison,
    details: list[str],
    failures: list[str],
    suspects: list[str],
) -> None:
    """No stored outputs: every runtime against the onnx reference evaluator."""
    for label, outputs in runtime_outputs.items():
        diff = against(outputs, reference)
        if diff:
            failures.extend(f"{label} vs onnx reference evaluator: {d}" for d in diff)
            suspects.append(
                f"{label} and the onnx reference evaluator disagree and no "
                "expected outputs are stored: suspected kernel or reference bug"
            )
        else:
            details.append(f"{label} matches the onnx reference evaluator (no stored outputs)")
