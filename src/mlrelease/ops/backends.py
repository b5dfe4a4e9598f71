"""What a worker runs a case on, and how a backend's exceptions become verdicts.

Imported only by worker processes (:mod:`mlrelease.ops.worker`): a backend may crash or
hang, and it must take only its worker down.
"""

from __future__ import annotations

import importlib
import re
import sys
import time
import unittest
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mlrelease.edges import installed
from mlrelease.edges import onnxruntime as ort
from mlrelease.ops import environment
from mlrelease.ops.compare import compare
from mlrelease.ops.config import BackendConfig
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict, Description
from mlrelease.requirements import MissingDependency

# Message rules, checked in order after the exception-type rules. They hold for onnxruntime
# (C++ messages), the onnx reference evaluator and Python backends alike.
MESSAGE_RULES: list[tuple[ConformanceVerdict, re.Pattern[str]]] = [
    (
        ConformanceVerdict.IR_UNSUPPORTED,
        re.compile(r"unsupported model ir version|ir version \d+ is not supported", re.I),
    ),
    (
        ConformanceVerdict.OPSET_UNSUPPORTED,
        re.compile(
            r"official released onnx opset versions|opset \d+ is under development"
            r"|only released onnx opsets are supported|opset .* is not supported",
            re.I,
        ),
    ),
    (
        ConformanceVerdict.NOT_IMPLEMENTED,
        re.compile(
            r"could not find an implementation|failed to find kernel"
            r"|is not a registered function/op"
            r"|no registered implementation|not implemented|\bare not supported\b"
            # onnxruntime's Python binding cannot feed tensors of some element types (float8, int4).
            r"|can't be converted to MLDataType",
            re.I,
        ),
    ),
]


def classify(exc: BaseException) -> ConformanceVerdict:
    """The verdict an exception from a backend stands for."""
    if isinstance(exc, (NotImplementedError, unittest.SkipTest)) or type(exc).__name__ in (
        "NotImplemented",
        "BackendIsNotSupposedToImplementIt",
    ):
        text = str(exc)
        for verdict, rule in MESSAGE_RULES[:2]:
            if rule.search(text):
                return verdict
        return ConformanceVerdict.NOT_IMPLEMENTED
    text = f"{type(exc).__name__}: {exc}"
    for verdict, rule in MESSAGE_RULES:
        if rule.search(text):
            return verdict
    return ConformanceVerdict.ERROR


def first_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : ", "", text)
    return f"{type(exc).__name__}: {text}"[:limit]


class Adapter(Protocol):
    """A loaded backend in a worker."""

    def prepare(self, model: bytes) -> Any: ...

    def run(self, prepared: Any, inputs: Sequence[Any]) -> Sequence[Any]: ...


class OnnxRuntimeAdapter:
    """onnxruntime, one execution provider, no fallback to the CPU for other providers."""

    def __init__(self, config: BackendConfig) -> None:
        ort.quiet()
        self.config = config
        self.options = ort.Options(
            # One thread: workers already run in parallel, and results stay the same run to run.
            intra_threads=1,
            inter_threads=1,
            deterministic=True,
            log_severity=ort.ERRORS_ONLY,
            # Measure the provider itself: a node it cannot run must fail, not run on the CPU.
            cpu_fallback=config.provider == ort.CPU,
        )

    def prepare(self, model: bytes) -> Any:
        return ort.session(
            model,
            [self.config.provider],
            options=self.options,
            provider_options=[self.config.provider_options],
        )

    def run(self, prepared: Any, inputs: Sequence[Any]) -> Sequence[Any]:
        names = [i.name for i in prepared.get_inputs()]
        return list(prepared.run(None, dict(zip(names, inputs, strict=False))))

    @staticmethod
    def describe(config: BackendConfig) -> Description:
        try:
            available = ort.available_providers()
        except ImportError as exc:
            missing = MissingDependency.of(exc, needed_by=f"backend `{config.name}`", extra="ops")
            reason = str(missing.within(installed.environment()))
            return Description(config.name, False, "onnxruntime", reason)
        runtime = f"onnxruntime {ort.version()}"
        if config.provider not in available:
            return Description(
                config.name,
                False,
                runtime,
                f"{config.provider} is not in this onnxruntime build "
                f"(available: {', '.join(available)})",
            )
        if config.provider != ort.CPU:
            # A build may list a provider whose device is missing; a tiny session tells.
            import onnx.helper as oh

            graph = oh.make_graph(
                [oh.make_node("Identity", ["x"], ["y"])],
                "probe",
                [oh.make_tensor_value_info("x", 1, [1])],
                [oh.make_tensor_value_info("y", 1, [1])],
            )
            model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)], ir_version=7)
            try:
                session = ort.session(
                    model.SerializeToString(),
                    [config.provider],
                    provider_options=[config.provider_options],
                )
            except Exception as exc:
                return Description(
                    config.name,
                    False,
                    runtime,
                    f"{config.provider} cannot start here: {first_line(exc)}",
                )
            if config.provider not in session.get_providers():
                return Description(
                    config.name,
                    False,
                    runtime,
                    f"{config.provider} is built in but has no device here",
                )
        return Description(config.name, True, runtime)


class ReferenceAdapter:
    """``onnx.reference.ReferenceEvaluator``: onnx's own Python implementation of every op."""

    def __init__(self, config: BackendConfig) -> None:
        from onnx.reference import ReferenceEvaluator

        self.evaluator = ReferenceEvaluator

    def prepare(self, model: bytes) -> Any:
        import onnx

        return self.evaluator(onnx.load_from_string(model))

    def run(self, prepared: Any, inputs: Sequence[Any]) -> Sequence[Any]:
        names = prepared.input_names
        return list(prepared.run(None, dict(zip(names, inputs, strict=False))))

    @staticmethod
    def describe(config: BackendConfig) -> Description:
        import onnx

        return Description(config.name, True, f"onnx.reference (onnx {onnx.__version__})")


class PythonBackendAdapter:
    """Any ``onnx.backend.base.Backend`` (a class, or a module with ``prepare``)."""

    def __init__(self, config: BackendConfig) -> None:
        self.backend = load_backend(config.module)
        self.device = config.device

    def prepare(self, model: bytes) -> Any:
        import onnx

        proto = onnx.load_from_string(model)
        is_compatible = getattr(self.backend, "is_compatible", None)
        if callable(is_compatible) and not is_compatible(proto, self.device):
            raise NotImplementedError("the backend's is_compatible() refused the model")
        return self.backend.prepare(proto, self.device)

    def run(self, prepared: Any, inputs: Sequence[Any]) -> Sequence[Any]:
        return list(prepared.run(list(inputs)))

    @staticmethod
    def describe(config: BackendConfig) -> Description:
        try:
            backend = load_backend(config.module)
        except Exception as exc:
            return Description(
                config.name,
                False,
                config.module,
                f"cannot import {config.module}: {first_line(exc)}",
            )
        module = sys.modules.get(getattr(backend, "__module__", "") or "", backend)
        version = getattr(module, "__version__", "") or getattr(
            sys.modules.get(config.module.split(":")[0].split(".")[0]), "__version__", ""
        )
        runtime = f"{config.module} {version}".strip()
        supports = getattr(backend, "supports_device", None)
        if callable(supports) and not supports(config.device):
            return Description(
                config.name,
                False,
                runtime,
                f"{config.module} does not support device {config.device}",
            )
        return Description(config.name, True, runtime)


def load_backend(path: str) -> Any:
    """Import ``package.module`` or ``package.module:Attribute``."""
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    if not attribute:
        return module
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


ADAPTERS: dict[str, Any] = {
    "onnxruntime": OnnxRuntimeAdapter,
    "reference": ReferenceAdapter,
    "backend": PythonBackendAdapter,
}


def describe(config: BackendConfig) -> Description:
    return ADAPTERS[config.kind].describe(config)  # type: ignore[no-any-return]


def create(config: BackendConfig) -> Adapter:
    return ADAPTERS[config.kind](config)  # type: ignore[no-any-return]


def restamp(model: bytes, ir_version: int) -> bytes:
    """The same model stamped with another IR version."""
    import onnx

    proto = onnx.load_from_string(model)
    proto.ir_version = ir_version
    return proto.SerializeToString()  # type: ignore[no-any-return]


@dataclass
class _Attempt:
    verdict: ConformanceVerdict
    message: str = ""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    tolerance_ratio: float | None = None


def _failure(exc: BaseException) -> _Attempt:
    needs = environment.explain(exc)
    if needs:
        return _Attempt(ConformanceVerdict.ENVIRONMENT, needs)
    return _Attempt(classify(exc), first_line(exc))


def _attempt(adapter: Adapter, model: bytes, case: Any, rtol: float, atol: float) -> _Attempt:
    try:
        prepared = adapter.prepare(model)
    except Exception as exc:
        return _failure(exc)
    worst: _Attempt | None = None
    for inputs, expected in case.data_sets:
        try:
            outputs = adapter.run(prepared, inputs)
        except Exception as exc:
            return _failure(exc)
        try:
            outcome = compare(expected, outputs, rtol, atol, values=not case.random_ops)
        except Exception as exc:  # outputs of a type the comparison cannot read
            return _Attempt(
                ConformanceVerdict.WRONG_RESULT, f"cannot compare the outputs: {first_line(exc)}"
            )
        message = outcome.message
        if outcome.ok and case.random_ops:
            message = f"values not compared: {', '.join(case.random_ops)} is random"
        attempt = _Attempt(
            ConformanceVerdict.PASS if outcome.ok else ConformanceVerdict.WRONG_RESULT,
            message,
            outcome.max_abs_error,
            outcome.max_rel_error,
            outcome.tolerance_ratio,
        )
        if (
            worst is None
            or (worst.verdict.ok and not attempt.verdict.ok)
            or (
                attempt.verdict.ok == worst.verdict.ok
                and (attempt.tolerance_ratio or 0) > (worst.tolerance_ratio or 0)
            )
        ):
            worst = attempt
    return worst or _Attempt(ConformanceVerdict.ERROR, "the case has no data set")


def run_case(adapter: Adapter, backend: str, case: Any, rtol: float, atol: float) -> CaseResult:
    """Run one case; an IR refusal is retried at the lowest IR version the opsets allow.

    So op support is measured apart from the backend's IR limit: a case still refused at its
    minimum IR needs an IR the backend does not load, so its opset is unsupported there.
    """
    start = time.perf_counter()
    attempt = _attempt(adapter, case.model, case, rtol, atol)
    ir_version, restamped_from, ir_refused = case.ir_version, None, None
    if attempt.verdict is ConformanceVerdict.IR_UNSUPPORTED:
        ir_refused = case.ir_version
        if case.min_ir_version < case.ir_version:
            restamped_from, ir_version = case.ir_version, case.min_ir_version
            attempt = _attempt(adapter, restamp(case.model, ir_version), case, rtol, atol)
        if attempt.verdict is ConformanceVerdict.IR_UNSUPPORTED:
            ir_refused = ir_version  # the lowest IR the backend was seen to refuse
            opsets = ", ".join(f"{d} {v}" for d, v in sorted(case.opsets.items()))
            attempt = _Attempt(
                ConformanceVerdict.OPSET_UNSUPPORTED,
                f"opsets {opsets} need IR {case.min_ir_version} or newer, which the backend "
                f"refuses ({attempt.message})",
            )
    return CaseResult(
        case=case.name,
        backend=backend,
        verdict=attempt.verdict,
        message=attempt.message,
        max_abs_error=attempt.max_abs_error,
        max_rel_error=attempt.max_rel_error,
        tolerance_ratio=attempt.tolerance_ratio,
        ir_version=ir_version,
        restamped_from=restamped_from,
        ir_refused=ir_refused,
        duration_s=time.perf_counter() - start,
    )
