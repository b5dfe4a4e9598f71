"""Runtimes that execute ONNX models, and probing of what each one really loads.

onnxruntime has no API that says which IR version or opset it supports, and its release notes
lag its code. So the limits are measured: minimal models stamped with each candidate IR version
and each candidate opset of each domain are handed to the runtime, and the newest ones it
accepts are recorded. Probing takes well under a second; :mod:`.probe_cache` keeps the results
on disk by runtime name, runtime version, execution provider and the onnx version that built the
probe models.

Runtimes are adapters: ``onnxruntime`` (one per execution provider) is built in; a plug-in
module (``[tool.mlrelease.compat] runtime-plugins``) calls :func:`register_runtime` with a factory
that returns :class:`Runtime` objects for a :class:`~mlrelease.models.config.RuntimeSpec`.

This is an edge module: it imports onnx and the runtimes lazily, inside functions.
"""

from __future__ import annotations

import importlib
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlrelease.edges import installed
from mlrelease.edges import onnxruntime as ort
from mlrelease.errors import ConfigError
from mlrelease.models.config import RuntimeSpec, display_domain
from mlrelease.requirements import MissingDependency

if TYPE_CHECKING:
    import numpy as np

PROBE_FORMAT = 1
"""Bumped whenever probe models or the cache layout change (old cache entries are ignored)."""

UNVALIDATED_SENTINEL = 10_000
"""A runtime that loads this opset of a domain does not validate that domain's versions."""


class Session(ABC):
    """A loaded model, ready to run."""

    input_names: list[str]
    output_names: list[str]

    @abstractmethod
    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """Outputs in ``output_names`` order."""


PROBE_ENVIRONMENT = ("ALLOW_RELEASED_ONNX_OPSET_ONLY",)
"""Environment variables that change what any runtime here accepts: part of the probe cache key.
(onnxruntime refuses opsets onnx has not released unless ``ALLOW_RELEASED_ONNX_OPSET_ONLY=0``.)"""


class Runtime(ABC):
    """One runtime on one target (e.g. onnxruntime on CPUExecutionProvider)."""

    name: str
    version: str
    target: str
    environment: tuple[str, ...] = ()
    """Environment variables (beyond :data:`PROBE_ENVIRONMENT`) that change what it accepts."""

    def acceptance(self) -> dict[str, str]:
        """Everything besides name, version and target that changes what it loads: the set
        environment variables of :data:`PROBE_ENVIRONMENT` and :attr:`environment`."""
        names = sorted({*PROBE_ENVIRONMENT, *self.environment})
        return {name: os.environ[name] for name in names if name in os.environ}

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}" + (f" ({self.target})" if self.target else "")

    @property
    def key(self) -> str:
        """A file-name-safe identity: name, version and target (the cache key)."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{self.name}-{self.version}-{self.target}")

    @abstractmethod
    def load(self, model: bytes) -> None:
        """Load a serialized model as a user would; raise whatever the runtime raises."""

    @abstractmethod
    def session(self, path: Path, *, threads: int = 0) -> Session:
        """Load the model at ``path`` (external data next to it) for inference."""


@dataclass(frozen=True)
class Unavailable:
    """A configured runtime or target that cannot be used here, and why."""

    label: str
    reason: str
    required: bool = True


RuntimeFactory = Callable[[RuntimeSpec], Sequence["Runtime | Unavailable"]]
FACTORIES: dict[str, RuntimeFactory] = {}


def register_runtime(name: str, factory: RuntimeFactory) -> None:
    """Make ``name`` usable in ``[tool.mlrelease.compat] runtimes``."""
    FACTORIES[name] = factory


def clean_message(error: BaseException | str) -> str:
    """The user-facing sentence of a runtime error, without source locations and signatures."""
    text = str(error).strip()
    # onnxruntime: "[ONNXRuntimeError] : 1 : FAIL : /src/model.cc:256 ns::Model::Model(args...) Msg"
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ", "", text)
    match = re.match(r"^(?:[^/]*?: ?)?\S+\.(?:cc|h|cpp):\d+ ", text)
    if match:
        rest = text[match.end() :]
        depth, cut = 0, 0
        for i, char in enumerate(rest):
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    cut = i + 1
                    break
        text = rest[cut:].strip() or text
    return " ".join(text.split())


# --- onnxruntime -------------------------------------------------------------------------------


class _OrtSession(Session):
    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.input_names = [i.name for i in inner.get_inputs()]
        self.output_names = [o.name for o in inner.get_outputs()]

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return list(self._inner.run(None, feeds))


class OnnxRuntime(Runtime):
    """onnxruntime on one execution provider."""

    extra_domains = ("com.microsoft", "com.microsoft.nchwc", "ai.onnx.contrib")
    """Domains onnxruntime implements beyond onnx's: probed too."""
    environment = ("ORT_LOAD_CONFIG_FROM_MODEL",)

    def __init__(self, provider: str) -> None:
        self.name = "onnxruntime"
        self.version = ort.version()
        self.target = provider

    @staticmethod
    def _options(threads: int = 0) -> ort.Options:
        # Errors only: probes trip many "legacy opset" warnings.
        return ort.Options(intra_threads=threads, log_severity=ort.ERRORS_ONLY)

    def load(self, model: bytes) -> None:
        ort.session(model, [self.target], options=self._options(1))

    def session(self, path: Path, *, threads: int = 0) -> Session:
        return _OrtSession(ort.session(path, [self.target], options=self._options(threads)))


def _onnxruntime_factory(spec: RuntimeSpec) -> list[Runtime | Unavailable]:
    try:
        available = ort.available_providers()
    except ImportError as exc:
        missing = MissingDependency.of(exc, needed_by="the onnxruntime runtime", extra="models")
        return [
            Unavailable("onnxruntime", str(missing.within(installed.environment())), spec.required)
        ]
    found: list[Runtime | Unavailable] = []
    for provider in spec.providers:
        if provider in available:
            found.append(OnnxRuntime(provider))
        else:
            found.append(
                Unavailable(
                    f"onnxruntime {ort.version()} ({provider})",
                    f"this onnxruntime build has no {provider} (available: {', '.join(available)})",
                    spec.required,
                )
            )
    return found


register_runtime("onnxruntime", _onnxruntime_factory)


def import_plugins(modules: Iterable[str], *, source: str) -> None:
    """Import runtime plug-in modules (they call :func:`register_runtime`)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ConfigError(
                "tool.mlrelease.compat.runtime-plugins",
                "importable module names",
                f"{module!r} ({exc})",
                source=source,
                hint="Install the package that provides it, or remove it from the list.",
            ) from None


def resolve(
    specs: Sequence[RuntimeSpec], *, source: str = "pyproject.toml"
) -> list[Runtime | Unavailable]:
    """The runtimes (one per target) described by ``specs``."""
    found: list[Runtime | Unavailable] = []
    for i, spec in enumerate(specs):
        factory = FACTORIES.get(spec.name)
        if factory is None:
            raise ConfigError(
                f"tool.mlrelease.compat.runtimes[{i}].name",
                "a registered runtime",
                repr(spec.name),
                source=source,
                hint=f"Known runtimes: {', '.join(sorted(FACTORIES))}; a plug-in module listed in "
                "runtime-plugins can register more.",
            )
        found.extend(factory(spec))
    return found


# --- probing -----------------------------------------------------------------------------------


@dataclass
class RuntimeLimits:
    """What one runtime target really loads: IR range and opset range per domain."""

    runtime: str
    version: str
    target: str
    onnx_version: str
    ir: tuple[int, int] | None
    """Oldest and newest IR version loaded; None: nothing loaded."""
    opsets: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """Per domain: oldest and newest opset loaded; None: the domain's versions are not validated
    (the runtime loads any version it is given, e.g. a domain it does not know)."""
    refusals: dict[str, str] = field(default_factory=dict)
    """The runtime's words for the first version refused above each limit ("ir", a domain)."""

    @property
    def label(self) -> str:
        return f"{self.runtime} {self.version}" + (f" ({self.target})" if self.target else "")

    @property
    def max_ir(self) -> int | None:
        return self.ir[1] if self.ir else None

    def max_opset(self, domain: str) -> int | None:
        """The newest opset of ``domain`` loaded; None when unvalidated or not probed."""
        bounds = self.opsets.get(domain)
        return bounds[1] if bounds else None

    def validates(self, domain: str) -> bool:
        return domain in self.opsets and self.opsets[domain] is not None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["probe_format"] = PROBE_FORMAT
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuntimeLimits:
        def pair(value: Any) -> tuple[int, int] | None:
            return (int(value[0]), int(value[1])) if value else None

        return cls(
            runtime=data["runtime"],
            version=data["version"],
            target=data["target"],
            onnx_version=data["onnx_version"],
            ir=pair(data["ir"]),
            opsets={d: pair(v) for d, v in data["opsets"].items()},
            refusals=dict(data.get("refusals", {})),
        )


def probe_model(ir_version: int, opsets: dict[str, int]) -> bytes:
    """The smallest valid model: one ``Identity`` (ai.onnx, since opset 1) and the given imports."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x], [y])
    imports = [helper.make_opsetid(domain, version) for domain, version in opsets.items()]
    model = helper.make_model(graph, ir_version=ir_version, opset_imports=imports)
    return bytes(model.SerializeToString())


def known_domains() -> dict[str, int]:
    """Every domain the installed onnx knows, with its newest opset."""
    from onnx import defs

    return {domain: bounds[1] for domain, bounds in defs.C.schema_version_map().items()}


def _accepts(runtime: Runtime, model: bytes) -> str | None:
    """None when the runtime loads ``model``, else its (cleaned) reason."""
    try:
        runtime.load(model)
    except Exception as exc:  # every runtime raises its own types; a refusal is data here
        return clean_message(exc) or type(exc).__name__
    return None


BASELINE_OPSET = 7
"""ai.onnx opset of the IR probes: Identity exists since opset 1 and every maintained runtime
loads opset 7 (onnxruntime's oldest guaranteed one)."""


def probe(runtime: Runtime, domains: Iterable[str] = ()) -> RuntimeLimits:
    """Measure what ``runtime`` loads: the IR range, then the opset range of each domain.

    Domains probed: the default one, every domain the installed onnx knows, and ``domains``.
    """
    import onnx

    known = known_domains()
    extra = getattr(runtime, "extra_domains", ())
    wanted = sorted({"", *known, *extra, *domains}, key=lambda d: (d != "", d))
    limits = RuntimeLimits(runtime.name, runtime.version, runtime.target, onnx.__version__, None)
    loaded: list[int] = []
    for ir in range(3, onnx.IR_VERSION + 2):  # IR 3 introduced opset imports
        reason = _accepts(runtime, probe_model(ir, {"": BASELINE_OPSET}))
        if reason is None:
            loaded.append(ir)
        elif loaded and "ir" not in limits.refusals:
            limits.refusals["ir"] = reason
        elif not loaded:
            limits.refusals["ir-baseline"] = reason
    if not loaded:
        return limits
    limits.ir = (min(loaded), max(loaded))
    ir = limits.ir[1]
    base = BASELINE_OPSET
    for domain in wanted:

        def imports(version: int, domain: str = domain, base: int = base) -> dict[str, int]:
            # Other domains ride on the newest ai.onnx opset found (probed first).
            return {domain: version} if domain == "" else {"": base, domain: version}

        if _accepts(runtime, probe_model(ir, imports(UNVALIDATED_SENTINEL))) is None:
            limits.opsets[domain] = None
            continue
        top = max(known.get(domain, 1), 1) + 2
        versions: list[int] = []
        for version in range(1, top + 1):
            reason = _accepts(runtime, probe_model(ir, imports(version)))
            if reason is None:
                versions.append(version)
            elif versions and domain not in limits.refusals:
                limits.refusals[domain] = reason
        limits.opsets[domain] = (min(versions), max(versions)) if versions else None
        if not versions:
            limits.refusals.setdefault(domain, reason or "no version loaded")
        if domain == "" and versions:
            base = max(versions)
    return limits


def describe(limits: RuntimeLimits) -> list[str]:
    """Human lines: IR range and opset range per domain."""
    lines = [f"IR {limits.ir[0]}-{limits.ir[1]}" if limits.ir else "IR: nothing loads"]
    for domain, bounds in limits.opsets.items():
        shown = f"{bounds[0]}-{bounds[1]}" if bounds else "any (not validated)"
        lines.append(f"{display_domain(domain)} {shown}")
    return lines
