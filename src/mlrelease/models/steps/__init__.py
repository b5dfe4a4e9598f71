"""The verification steps, as run inside the sandboxed worker (one model per process).

Each step returns a :class:`~mlrelease.models.verdicts.StepVerdict`; none reads outside what
step 0 (:mod:`.integrity`) cleared. Models are handled by path wherever onnx allows it, so a
model over 2 GB with external data never goes through a single protobuf in steps 1-4.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlrelease.models import compat as compat_rules
from mlrelease.models import integrity, safefile
from mlrelease.models.config import RuntimeSpec, display_domain
from mlrelease.models.manifest import ModelJob
from mlrelease.models.verdicts import Outcome, StepVerdict
from mlrelease.runtimes import Limits, Runtime, Unavailable, clean_message

if TYPE_CHECKING:
    import numpy as np
    from onnx import ModelProto

Arrays = list["np.ndarray"]


@dataclass
class Dataset:
    name: str
    feeds: dict[str, np.ndarray]
    expected: Arrays | None


@dataclass
class State:
    """What the steps of one model share."""

    job: ModelJob
    tmp: Path
    header: ModelProto | None = None
    external_files: set[Path] = field(default_factory=set)
    stop: str = ""
    """Set when later steps must not run (integrity failed): the reason."""
    datasets: list[Dataset] | None = None
    baseline: list[Arrays] | None = None
    """Outputs step 6 compares against: expected outputs, else the reference's, else step 5's."""
    _runtimes: list[Runtime | Unavailable] | None = None

    @property
    def path(self) -> Path:
        return Path(self.job.model)

    def runtimes(self) -> list[Runtime | Unavailable]:
        if self._runtimes is None:
            from mlrelease import runtimes

            runtimes.import_plugins(self.job.runtime_plugins, source="runtime-plugins")
            specs = [RuntimeSpec(**spec) for spec in self.job.runtimes] or [RuntimeSpec()]
            self._runtimes = runtimes.resolve(specs)
        return self._runtimes


def _verdict(
    step: str, outcome: Outcome, summary: str, details: list[str] | None = None
) -> StepVerdict:
    return StepVerdict(step, outcome, summary, details or [])


# --- step 0 ------------------------------------------------------------------------------------


def step_integrity(state: State) -> StepVerdict:
    job = state.job
    found, header = integrity.check_model(
        state.path,
        Path(job.confine),
        job.checksums,
        job.max_tensor_elements,
        hard_links=job.trusted,
    )
    if found.problems:
        state.stop = "step 0 (integrity) failed; the file is not safe to parse or run"
        return _verdict("integrity", Outcome.FAIL, found.problems[0], found.problems)
    state.header = header
    state.external_files = found.external_files
    assert header is not None
    size = state.path.stat().st_size + sum(p.stat().st_size for p in found.external_files)
    checks = f"{len(job.checksums)} checksum(s) match; " if job.checksums else ""
    external = (
        f", {len(found.external_files)} external data file(s)" if found.external_files else ""
    )
    return _verdict(
        "integrity",
        Outcome.PASS,
        f"{checks}{found.tensors} tensors consistent with their shapes, {size / 2**20:,.1f} MiB"
        f"{external}",
    )


# --- steps 1-3 ---------------------------------------------------------------------------------


def step_checker(state: State) -> StepVerdict:
    import onnx

    try:
        onnx.checker.check_model(str(state.path), full_check=True)
    except Exception as exc:  # ValidationError, InferenceError, ...: the checker's verdict
        return _verdict(
            "checker", Outcome.FAIL, f"onnx.checker (full check): {_first_line(exc)}", [str(exc)]
        )
    return _verdict(
        "checker", Outcome.PASS, f"onnx.checker full check passes (onnx {onnx.__version__})"
    )


def strict_inference(path: Path, out: Path) -> tuple[str | None, int, int]:
    """(error, values with a complete shape, values) of strict inference with data propagation."""
    import onnx

    try:
        onnx.shape_inference.infer_shapes_path(
            str(path), str(out), check_type=True, strict_mode=True, data_prop=True
        )
    except Exception as exc:
        return str(exc), 0, 0
    inferred = onnx.load_model(str(out), load_external_data=False)
    values = [*inferred.graph.value_info, *inferred.graph.output]
    complete = sum(
        v.type.HasField("tensor_type")
        and v.type.tensor_type.HasField("shape")
        and all(
            d.HasField("dim_value") or d.HasField("dim_param") for d in v.type.tensor_type.shape.dim
        )
        for v in values
    )
    out.unlink(missing_ok=True)
    return None, complete, len(values)


def step_shape_inference(state: State) -> StepVerdict:
    error, complete, total = strict_inference(state.path, state.tmp / "inferred.onnx")
    if error is not None:
        return _verdict(
            "shape_inference",
            Outcome.FAIL,
            f"strict shape/type inference (data_prop): {_first_line(error)}",
            error.splitlines(),
        )
    return _verdict(
        "shape_inference",
        Outcome.PASS,
        f"strict inference with type checks and data propagation: {complete}/{total} "
        "values fully shaped",
    )


# The IR version that introduced each feature a model may use (onnx.proto's Version comments).
_TYPE_IR = {
    "BFLOAT16": 4,
    "FLOAT8E4M3FN": 9,
    "FLOAT8E4M3FNUZ": 9,
    "FLOAT8E5M2": 9,
    "FLOAT8E5M2FNUZ": 9,
    "UINT4": 10,
    "INT4": 10,
    "FLOAT4E2M1": 11,
    "FLOAT8E8M0": 12,
    "UINT2": 13,
    "INT2": 13,
    "FLOAT6E2M3": 14,
    "FLOAT6E3M2": 14,
}


def ir_features(model: ModelProto) -> list[tuple[int, str]]:
    """(IR version, feature) for every versioned IR feature the model uses."""
    from onnx import TensorProto

    used: dict[str, int] = {}

    def dtype(code: int, where: str) -> None:
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() else ""
        if name in _TYPE_IR:
            used.setdefault(f"type {name} ({where})", _TYPE_IR[name])

    def value_type(t: Any, where: str) -> None:
        kind = t.WhichOneof("value")
        if kind == "tensor_type":
            dtype(t.tensor_type.elem_type, where)
        elif kind in ("optional_type", "sparse_tensor_type"):
            used.setdefault(f"{kind} ({where})", 8)
        if kind in ("sequence_type", "optional_type"):
            value_type(getattr(t, kind).elem_type, where)

    def graph(g: Any, where: str) -> None:
        for v in [*g.input, *g.output, *g.value_info]:
            value_type(v.type, f"{where} value '{v.name}'")
        for t in g.initializer:
            dtype(t.data_type, f"{where} initializer '{t.name}'")
        if g.sparse_initializer:
            used.setdefault(f"sparse initializers ({where})", 6)
        if g.quantization_annotation:
            used.setdefault(f"quantization annotations ({where})", 5)
        if g.metadata_props:
            used.setdefault(f"graph metadata_props ({where})", 10)
        for node in g.node:
            if node.overload:
                used.setdefault(f"node overload ({where} node '{node.name or node.op_type}')", 10)
            if node.metadata_props:
                used.setdefault(f"node metadata_props ({where})", 10)
            for attr in node.attribute:
                if attr.HasField("sparse_tensor") or attr.sparse_tensors:
                    used.setdefault(f"sparse tensor attribute ({where})", 6)
                if attr.HasField("t"):
                    dtype(attr.t.data_type, f"{where} node '{node.name or node.op_type}'")
                if attr.HasField("g"):
                    graph(attr.g, f"{where} > {node.op_type}.{attr.name}")
                for sub in attr.graphs:
                    graph(sub, f"{where} > {node.op_type}.{attr.name}")

    graph(model.graph, "graph")
    if model.training_info:
        used.setdefault("training_info", 7)
    if model.functions:
        used.setdefault("model-local functions", 8)
    for f in model.functions:
        if f.attribute_proto:
            used.setdefault(f"function attribute defaults ({f.name})", 9)
        if f.overload:
            used.setdefault(f"function overload ({f.name})", 10)
    if getattr(model, "configuration", None):
        used.setdefault("multi-device configuration", 11)
    initializers = {t.name for t in model.graph.initializer}
    inputs = {i.name for i in model.graph.input}
    if initializers - inputs:
        used.setdefault("initializers that are not graph inputs", 4)
    return sorted(((ir, feature) for feature, ir in used.items()), reverse=True)


def opset_import_problems(model: ModelProto) -> tuple[list[str], list[str], dict[str, int]]:
    """Step 3's rules: (problems, warnings, imports).

    Problems: a node's domain not imported, a domain imported twice (or at another version by a
    function), an IR version older than a feature the model uses, or newer than onnx knows.
    Warning: an IR version older than the one onnx's VERSION_TABLE pairs with the opsets (runtimes
    tolerate it today; it is still an inconsistency a strict consumer may refuse).
    """
    import onnx
    from onnx import helper

    problems: list[str] = []
    warnings: list[str] = []
    imports: dict[str, int] = {}
    for entry in model.opset_import:
        domain = entry.domain if entry.domain != "ai.onnx" else ""
        if domain in imports:
            problems.append(
                f"domain {display_domain(domain)} is imported twice (opset {imports[domain]} and "
                f"{entry.version}); a model must import one version of each domain"
            )
        else:
            imports[domain] = entry.version
    local = {(f.domain, f.name) for f in model.functions}
    for f in model.functions:
        for entry in f.opset_import:
            domain = entry.domain if entry.domain != "ai.onnx" else ""
            if domain in imports and imports[domain] != entry.version:
                problems.append(
                    f"function {f.domain}::{f.name} imports {display_domain(domain)} opset "
                    f"{entry.version} but the model imports opset {imports[domain]}: mixed "
                    "versions of one domain"
                )

    def nodes(graph: Any, where: str) -> None:
        for node in graph.node:
            domain = node.domain if node.domain != "ai.onnx" else ""
            if domain not in imports and (node.domain, node.op_type) not in local:
                problems.append(
                    f"{where}: node '{node.name or node.op_type}' ({node.op_type}) "
                    f"uses domain {display_domain(domain)}, which the model does not "
                    "import"
                )
            for attr in node.attribute:
                if attr.HasField("g"):
                    nodes(attr.g, f"{where} > {node.op_type}.{attr.name}")
                for g in attr.graphs:
                    nodes(g, f"{where} > {node.op_type}.{attr.name}")

    nodes(model.graph, "graph")
    for ir, feature in ir_features(model):
        if model.ir_version < ir:
            problems.append(
                f"the model declares IR {model.ir_version} but uses {feature}, "
                f"which needs IR >= {ir}"
            )
    if model.ir_version > onnx.IR_VERSION:
        problems.append(
            f"IR {model.ir_version} is newer than onnx {onnx.__version__} knows "
            f"(IR {onnx.IR_VERSION})"
        )
    if imports:
        try:
            paired = helper.find_min_ir_version_for(
                [helper.make_opsetid(d, v) for d, v in imports.items()], ignore_unknown=True
            )
        except Exception as exc:  # an opset newer than this onnx knows
            problems.append(
                f"cannot map the opsets to an IR version with onnx "
                f"{onnx.__version__}: {_first_line(exc)}"
            )
        else:
            if model.ir_version < paired:
                opsets = ", ".join(f"{display_domain(d)} {v}" for d, v in imports.items())
                warnings.append(
                    f"IR {model.ir_version} is older than IR {paired}, which onnx's VERSION_TABLE "
                    f"pairs with opsets {opsets}; no IR feature the model uses needs more, but a "
                    "strict consumer may refuse it"
                )
    return problems, warnings, imports


def step_opset_imports(state: State) -> StepVerdict:
    assert state.header is not None
    problems, warnings, imports = opset_import_problems(state.header)
    shown = ", ".join(f"{display_domain(d)} {v}" for d, v in imports.items()) or "none"
    if problems:
        return _verdict("opset_imports", Outcome.FAIL, problems[0], problems + warnings)
    if warnings:
        return _verdict("opset_imports", Outcome.WARN, warnings[0], warnings)
    return _verdict(
        "opset_imports", Outcome.PASS, f"IR {state.header.ir_version}, opsets {shown}: consistent"
    )


# --- step 4 ------------------------------------------------------------------------------------


def compat_findings(
    model: ModelProto, name: str, limits: list[Limits]
) -> list[compat_rules.Finding]:
    produced = compat_rules.model_produced(
        name, model.ir_version, [(o.domain, o.version) for o in model.opset_import]
    )
    return [f for lim in limits for f in compat_rules.judge(produced, lim)]


def step_compat(state: State) -> StepVerdict:
    assert state.header is not None
    limits = [Limits.from_dict(d) for d in state.job.limits]
    if not limits:
        return _verdict("compat", Outcome.SKIP, "no runtime limits were probed (no runtime usable)")
    findings = compat_findings(state.header, "the model", limits)
    bad = [f.message for f in findings if not f.ok]
    if bad:
        return _verdict("compat", Outcome.FAIL, bad[0], bad)
    labels = ", ".join(lim.label for lim in limits)
    return _verdict(
        "compat",
        Outcome.PASS,
        f"loads within the probed limits of {labels}",
        [f.message for f in findings],
    )


# --- step 5 ------------------------------------------------------------------------------------


def _read_tensor(path: Path, confine: Path | None) -> np.ndarray:
    """A test-data tensor (``.pb`` or ``.npy``); a submission's only through the safe-file layer."""
    import io

    import numpy as np
    import onnx
    from onnx import numpy_helper

    if confine is not None:
        data = safefile.read_bytes(path, confine, "test data file", safefile.MAX_TENSOR_FILE_BYTES)
    else:
        if not path.is_file():
            raise ValueError(f"test data file {path} does not exist")
        if path.stat().st_size >= integrity.MAX_PROTOBUF:
            raise ValueError(f"test data file {path} is over 2 GiB")
        data = path.read_bytes()
    if path.suffix == ".npy":
        array: np.ndarray = np.load(io.BytesIO(data), allow_pickle=False)  # never unpickle
        return array
    try:
        tensor = onnx.load_tensor_from_string(data)
    except Exception as exc:
        raise ValueError(
            f"test data file {path} is not a TensorProto: {_first_line(exc)}"
        ) from None
    if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
        raise ValueError(f"test data file {path} refers to external data; store it inline")
    return numpy_helper.to_array(tensor)


def _graph_inputs(model: ModelProto) -> list[Any]:
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def load_datasets(state: State) -> list[Dataset]:
    """Test inputs and expected outputs, from test_data_set folders or an input generator."""
    job = state.job
    assert state.header is not None
    inputs = _graph_inputs(state.header)
    confine = Path(job.data_confine) if job.data_confine else None
    sets: list[Dataset] = []
    for folder in map(Path, job.test_data):
        if confine is not None and not integrity.inside(
            Path(os.path.realpath(folder)), Path(os.path.realpath(confine))
        ):
            raise ValueError(f"test data folder {folder} is outside the submission folder")
        if confine is not None and safefile.inside(folder, confine):
            expected_real = Path(os.path.realpath(confine)) / os.path.relpath(folder, confine)
            if Path(os.path.realpath(folder)) != Path(os.path.normpath(expected_real)):
                raise ValueError(
                    f"test data folder {folder} is reached through a symlink; links are "
                    "refused: store the test data in the folder itself"
                )
        files_in = sorted(folder.glob("input_*.pb"), key=_index)
        files_out = sorted(folder.glob("output_*.pb"), key=_index)
        if not files_in:
            raise ValueError(f"{folder} has no input_N.pb files")
        if len(files_in) != len(inputs):
            raise ValueError(f"{folder} has {len(files_in)} inputs; the graph takes {len(inputs)}")
        pairs = list(zip(inputs, files_in, strict=True))
        feeds = {value.name: _read_tensor(f, confine) for value, f in pairs}
        for value, file in pairs:
            problem = _shape_mismatch(value, list(feeds[value.name].shape))
            if problem:
                raise ValueError(f"{folder.name}/{file.name} {problem}")
        expected = [_read_tensor(f, confine) for f in files_out] or None
        sets.append(Dataset(folder.name, feeds, expected))
    if job.inputs == "onnx-backend-dummy":
        from onnx.backend.test.runner import Runner

        feeds = {}
        for value in inputs:
            dims = [
                d.dim_value if d.HasField("dim_value") else 1
                for d in value.type.tensor_type.shape.dim
            ]
            count = 1
            for d in dims:
                count *= d
            if count > job.max_input_elements:
                raise ValueError(
                    f"graph input '{value.name}' declares shape {dims} = {count:,} elements; "
                    f"generating it is refused (max-input-elements {job.max_input_elements:,})"
                )
            feeds[value.name] = Runner.generate_dummy_data(
                value, seed=0, name=job.name, random=False
            )
        expected = [_read_tensor(Path(p), confine) for p in job.expected_outputs] or None
        sets.append(Dataset("onnx-backend-dummy", feeds, expected))
    return sets


def _shape_mismatch(value: Any, got: list[int]) -> str | None:
    """Why an array of shape ``got`` cannot feed graph input ``value`` (None: it can)."""
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    declared = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
    fits = len(declared) == len(got) and all(
        d is None or d == g for d, g in zip(declared, got, strict=True)
    )
    if fits:
        return None
    shown = [d if d is not None else "?" for d in declared]
    return f"holds shape {got}, but graph input '{value.name}' declares {shown}"


def _index(path: Path) -> int:
    try:
        return int(path.stem.rsplit("_", 1)[1])
    except (IndexError, ValueError):
        return 1 << 30


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


def _output_names(model: ModelProto) -> list[str]:
    return [o.name for o in model.graph.output]


def _run_reference(state: State, datasets: list[Dataset]) -> tuple[list[Arrays] | None, str]:
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
        return None, f"unsupported by the onnx reference evaluator: {_first_line(exc)}"
    except Exception as exc:
        return None, f"the onnx reference evaluator cannot load it: {_first_line(exc)}"
    outputs = []
    for data in datasets:
        try:
            outputs.append([np.asarray(o) for o in evaluator.run(None, data.feeds)])
        except NotImplementedError as exc:
            return None, f"unsupported by the onnx reference evaluator: {_first_line(exc)}"
        except Exception as exc:
            return (
                None,
                f"the onnx reference evaluator failed: {type(exc).__name__}: {_first_line(exc)}",
            )
    return outputs, ""


def _run_runtime(
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
        return _verdict("inference", Outcome.FAIL, str(exc))
    if not datasets:
        return _verdict(
            "inference",
            Outcome.SKIP,
            "no test data: add test_data_set_N folders "
            "next to the model, or declare inputs and expected-outputs",
        )
    state.datasets = datasets
    names = _output_names(state.header)
    details: list[str] = []
    failures: list[str] = []
    runtime_outputs: dict[str, list[Arrays]] = {}
    for runtime in state.runtimes():
        if isinstance(runtime, Unavailable):
            (failures if runtime.required else details).append(f"{runtime.label}: {runtime.reason}")
            continue
        try:
            runtime_outputs[runtime.label] = _run_runtime(
                runtime, state.path, datasets, job.threads
            )
        except Exception as exc:
            failures.append(f"{runtime.label} cannot run the model: {clean_message(exc)}")
    reference, why_not = _run_reference(state, datasets)
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
                f"suspected onnx reference evaluator bug: {who}the reference "
                f"disagrees: {ref_diff[0]}"
            )
            details.extend(f"reference vs expected: {d}" for d in ref_diff[1:])
        else:
            details.append("the onnx reference evaluator matches the expected outputs")
        state.baseline = wanted
    elif reference is not None:
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
        state.baseline = reference
    else:
        if runtime_outputs:
            state.baseline = next(iter(runtime_outputs.values()))
        message = f"no expected outputs stored and no reference ({why_not}): outputs not checked"
        if failures:
            return _verdict("inference", Outcome.FAIL, failures[0], [*failures, message])
        return _verdict("inference", Outcome.WARN, message, details)
    if failures:
        return _verdict("inference", Outcome.FAIL, failures[0], failures + suspects + details)
    if suspects:
        return _verdict("inference", Outcome.WARN, suspects[0], suspects + details)
    runs = ", ".join(runtime_outputs) or "no runtime"
    return _verdict(
        "inference", Outcome.PASS, f"{runs}: outputs match on {len(datasets)} data set(s)", details
    )


# --- step 6 ------------------------------------------------------------------------------------


def _ai_onnx_opset(model: ModelProto) -> int | None:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


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
    current = _ai_onnx_opset(state.header)
    if target is None:
        return _verdict("version_conversion", Outcome.SKIP, "no target-opset declared")
    if current is None:
        return _verdict("version_conversion", Outcome.SKIP, "the model does not import ai.onnx")
    if current > target:
        return _verdict(
            "version_conversion",
            Outcome.SKIP,
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
        return _verdict(
            "version_conversion",
            Outcome.FAIL,
            f"onnx.version_converter {current} -> {target} fails: {_first_line(exc)}",
            [str(exc)],
        )
    warnings: list[str] = []
    path = _stage(state, converted)
    problems: list[str] = []
    try:
        onnx.checker.check_model(str(path), full_check=True)
    except Exception as exc:
        problems.append(f"converted model fails onnx.checker: {_first_line(exc)}")
    error, _, _ = strict_inference(path, state.tmp / "converted-inferred.onnx")
    if error:
        problems.append(f"converted model fails strict shape inference: {_first_line(error)}")
    header = onnx.load_model(str(path), load_external_data=False)
    rule_problems, rule_warnings, _ = opset_import_problems(header)
    problems.extend(f"converted model: {p}" for p in rule_problems)
    warnings.extend(
        f"converted model: {w} (onnx.version_converter does not raise ir_version)"
        for w in rule_warnings
    )
    limits = [Limits.from_dict(d) for d in job.limits]
    problems.extend(
        f.message for f in compat_findings(header, "the converted model", limits) if not f.ok
    )
    ran: list[str] = []
    if state.datasets and state.baseline is not None and not problems:
        names = _output_names(header)
        for runtime in state.runtimes():
            if isinstance(runtime, Unavailable):
                continue
            try:
                outputs = _run_runtime(runtime, path, state.datasets, job.threads)
            except Exception as exc:
                problems.append(
                    f"{runtime.label} cannot run the converted model: {clean_message(exc)}"
                )
                continue
            for data, got, want in zip(state.datasets, outputs, state.baseline, strict=False):
                problems.extend(
                    f"{runtime.label}, {data.name}, converted: {p}"
                    for p in compare(want, got, names, job.rtol, job.atol)
                )
            ran.append(runtime.label)
    step = f"opset {current} -> {target}"
    if problems:
        return _verdict(
            "version_conversion", Outcome.FAIL, f"{step}: {problems[0]}", problems + warnings
        )
    rerun = (
        f"; {', '.join(ran)} outputs unchanged" if ran else "; not re-run (no outputs to compare)"
    )
    if warnings:
        return _verdict(
            "version_conversion",
            Outcome.WARN,
            f"{step}: {warnings[0]}",
            [*warnings, f"re-checked{rerun}"],
        )
    return _verdict("version_conversion", Outcome.PASS, f"{step}: re-checked{rerun}")


# --- performance ---------------------------------------------------------------------------------


def step_performance(state: State) -> StepVerdict:
    job = state.job
    if not job.performance:
        return _verdict("performance", Outcome.SKIP, "no performance baseline declared")
    if not state.datasets:
        return _verdict("performance", Outcome.SKIP, "no test data to time")
    runtime = next((r for r in state.runtimes() if isinstance(r, Runtime)), None)
    if runtime is None:
        return _verdict("performance", Outcome.SKIP, "no runtime available")
    limit = float(job.performance["latency_ms"])
    runs, warmup = int(job.performance.get("runs", 20)), int(job.performance.get("warmup", 3))
    feeds = state.datasets[0].feeds
    try:
        session = runtime.session(state.path, threads=job.threads)
        for _ in range(warmup):
            session.run(feeds)
    except Exception as exc:
        return _verdict(
            "performance",
            Outcome.FAIL,
            f"{runtime.label} cannot run the model: {clean_message(exc)}",
        )
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(feeds)
        times.append((time.perf_counter() - start) * 1000)
    median = statistics.median(times)
    measured = (
        f"{runtime.label}: median latency {median:.2f} ms over {runs} runs "
        f"(min {min(times):.2f}, max {max(times):.2f})"
    )
    if median > limit:
        return _verdict(
            "performance", Outcome.FAIL, f"{measured} exceeds the declared baseline of {limit:g} ms"
        )
    return _verdict("performance", Outcome.PASS, f"{measured}, within the baseline of {limit:g} ms")


def _first_line(error: object) -> str:
    text = str(error).strip()
    return " ".join(text.splitlines()[0].split()) if text else type(error).__name__


STEP_FUNCTIONS: dict[str, Callable[[State], StepVerdict]] = {
    "integrity": step_integrity,
    "checker": step_checker,
    "shape_inference": step_shape_inference,
    "opset_imports": step_opset_imports,
    "compat": step_compat,
    "inference": step_inference,
    "version_conversion": step_version_conversion,
    "performance": step_performance,
}
