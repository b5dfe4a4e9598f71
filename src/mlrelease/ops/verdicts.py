"""Verdicts of one case on one backend, and how a set of them sums up to one status."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Description:
    """What the runner needs to know about a backend before the run (asked of a worker)."""

    name: str
    available: bool
    runtime: str
    """Runtime and version, e.g. ``onnxruntime 1.31.1``."""
    reason: str = ""
    """Why it is not available (the run skips it)."""


class ConformanceVerdict(str, enum.Enum):
    """What running one case on one backend showed."""

    PASS = "pass"
    WRONG_RESULT = "wrong_result"  # ran, but an output differs beyond the tolerance
    NOT_IMPLEMENTED = "not_implemented"  # the backend has no kernel for the op (or attribute)
    OPSET_UNSUPPORTED = "opset_unsupported"  # the backend refuses the model's opset version
    IR_UNSUPPORTED = "ir_unsupported"  # the backend refuses the IR version (after re-stamping)
    CRASH = "crash"  # the worker process died while running the case
    TIMEOUT = "timeout"  # the case ran past the time limit and the worker was killed
    ERROR = "error"  # the backend raised something none of the above explains
    ENVIRONMENT = "environment"  # the machine lacks what the case needs (a locale, a module)

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")

    @property
    def ok(self) -> bool:
        return self is ConformanceVerdict.PASS


SEVERITY = [
    ConformanceVerdict.CRASH,
    ConformanceVerdict.TIMEOUT,
    ConformanceVerdict.WRONG_RESULT,
    ConformanceVerdict.ERROR,
    ConformanceVerdict.NOT_IMPLEMENTED,
    ConformanceVerdict.OPSET_UNSUPPORTED,
    ConformanceVerdict.IR_UNSUPPORTED,
    ConformanceVerdict.ENVIRONMENT,
]
"""Failure verdicts, most severe first: breaks ties when choosing the dominant reason."""


def dominant(verdicts: Iterable[ConformanceVerdict]) -> ConformanceVerdict | None:
    """The most frequent failure verdict (ties: the more severe); None when all passed."""
    counts = Counter(v for v in verdicts if not v.ok)
    if not counts:
        return None
    return max(counts, key=lambda v: (counts[v], -SEVERITY.index(v)))


@dataclass
class CaseResult:
    """One case on one backend. Numbers and messages are evidence, never part of the index."""

    case: str
    backend: str
    verdict: ConformanceVerdict
    message: str = ""
    """The error, or which output differs and by how much; empty on a pass."""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    tolerance_ratio: float | None = None
    """Worst ``|actual - expected| / (atol + rtol * |expected|)``: <= 1 passes. Near 1 the verdict
    may flip on another CPU (different SIMD paths round differently)."""
    ir_version: int | None = None
    """The IR version the verdict was measured at (the case's own, or the re-stamped one)."""
    restamped_from: int | None = None
    """The model's own IR version when the backend refused it and it was re-stamped."""
    ir_refused: int | None = None
    """The lowest IR version the backend refused for this case (its IR limit is below it)."""
    duration_s: float = 0.0

    @property
    def ir_loaded(self) -> int | None:
        """The IR version the backend loaded the case at, when it did."""
        if self.ir_version is None or self.verdict in (
            ConformanceVerdict.CRASH,
            ConformanceVerdict.TIMEOUT,
        ):
            return None
        if self.ir_refused is not None and self.ir_refused <= self.ir_version:
            return None
        return self.ir_version

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["verdict"] = self.verdict.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        return cls(**{**data, "verdict": ConformanceVerdict(data["verdict"])})
