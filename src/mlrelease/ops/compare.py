"""Compare a backend's outputs with a case's expected outputs (pure numpy).

The rule is onnx's own (``onnx.backend.test.runner.Runner.assert_similar_outputs``): same number
of outputs, same shapes, same dtypes, strings equal, numbers within
``|actual - expected| <= atol + rtol * |expected|`` with NaN equal to NaN. bfloat16 gets two ULPs
of relative tolerance, as onnx does. Unlike an assertion, the comparison measures the worst
absolute and relative errors and how close the worst element came to its tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class OutputComparison:
    """The outcome of comparing all outputs of one run."""

    ok: bool = True
    message: str = ""
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    tolerance_ratio: float = 0.0

    def merge(self, other: OutputComparison) -> None:
        if self.ok and not other.ok:
            self.ok, self.message = False, other.message
        self.max_abs_error = max(self.max_abs_error, other.max_abs_error)
        self.max_rel_error = max(self.max_rel_error, other.max_rel_error)
        self.tolerance_ratio = max(self.tolerance_ratio, other.tolerance_ratio)


def compare(
    expected: Sequence[Any],
    actual: Sequence[Any],
    rtol: float,
    atol: float,
    *,
    values: bool = True,
) -> OutputComparison:
    """Compare every output; the first mismatch names the output and what differs.

    With ``values=False`` only the structure is compared (count, sequences, shapes, dtypes): for
    random operators, whose values ONNX leaves to each backend's generator.
    """
    actual = list(actual) if isinstance(actual, (list, tuple)) else [actual]
    if len(actual) != len(expected):
        return _mismatch(f"{len(actual)} outputs, expected {len(expected)}")
    result = OutputComparison()
    for i, (want, have) in enumerate(zip(expected, actual, strict=True)):
        result.merge(_compare_value(want, have, rtol, atol, f"output {i}", values))
    return result


def _mismatch(message: str, inf: bool = True) -> OutputComparison:
    worst = math.inf if inf else 0.0
    return OutputComparison(False, message, worst, worst, worst)


def _compare_value(
    want: Any,
    have: Any,
    rtol: float,
    atol: float,
    where: str,
    values: bool,
) -> OutputComparison:
    if want is None:
        if have is None:
            return OutputComparison()
        return _mismatch(f"{where}: got a value, expected an empty optional")
    if isinstance(want, (list, tuple)):
        if not isinstance(have, (list, tuple)):
            return _mismatch(f"{where}: got {type(have).__name__}, expected a sequence")
        if len(have) != len(want):
            return _mismatch(f"{where}: sequence of {len(have)}, expected {len(want)}")
        result = OutputComparison()
        for j, (w, h) in enumerate(zip(want, have, strict=True)):
            result.merge(_compare_value(w, h, rtol, atol, f"{where}[{j}]", values))
        return result
    if have is None or isinstance(have, (list, tuple, dict)):
        return _mismatch(f"{where}: got {type(have).__name__}, expected a tensor")
    return _compare_arrays(np.asarray(want), np.asarray(have), rtol, atol, where, values)


def _compare_arrays(
    want: np.ndarray,
    have: np.ndarray,
    rtol: float,
    atol: float,
    where: str,
    values: bool,
) -> OutputComparison:
    if want.shape != have.shape:
        return _mismatch(f"{where}: shape {have.shape}, expected {want.shape}")
    if not values:
        if have.dtype != want.dtype:
            return _mismatch(f"{where}: dtype {have.dtype}, expected {want.dtype}")
        return OutputComparison()
    if want.dtype == object or have.dtype == object or want.dtype.kind in "USb":
        if have.dtype != want.dtype and not (want.dtype == object or have.dtype == object):
            return _mismatch(f"{where}: dtype {have.dtype}, expected {want.dtype}")
        if np.array_equal(have, want):
            return OutputComparison()
        return _mismatch(f"{where}: values differ ({_first_differing_element(want, have)})")
    if have.dtype != want.dtype:
        return _mismatch(f"{where}: dtype {have.dtype}, expected {want.dtype}")
    if want.dtype.kind == "V":  # ml_dtypes (bfloat16, float8, int4, ...): compare as float32
        if want.dtype.name == "bfloat16":
            rtol = max(rtol, 2.0**-6)  # two bfloat16 ULPs, as onnx's runner allows
        want, have = want.astype(np.float32), have.astype(np.float32)
    close = np.isclose(have, want, rtol=rtol, atol=atol, equal_nan=True)
    want64 = want.astype(np.float64)
    have64 = have.astype(np.float64)
    both_nan = np.isnan(want64) & np.isnan(have64)
    same = (want64 == have64) | both_nan  # equal infinities count as no error
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        error = np.where(same, 0.0, np.abs(have64 - want64))
        error = np.where(np.isnan(error), math.inf, error)
        scale = np.abs(want64)
        # Relative error is undefined where the expected value is 0: any error there is inf.
        rel = np.where(error == 0, 0.0, error / scale)
        budget = atol + rtol * scale
        ratio = np.where(error == 0, 0.0, error / budget)
    result = OutputComparison(
        ok=bool(close.all()),
        max_abs_error=float(error.max(initial=0.0)),
        max_rel_error=float(np.nan_to_num(rel, nan=math.inf, posinf=math.inf).max(initial=0.0)),
        tolerance_ratio=float(np.nan_to_num(ratio, nan=math.inf, posinf=math.inf).max(initial=0.0)),
    )
    if not result.ok:
        bad = int((~close).sum())
        result.message = (
            f"{where}: {bad} of {close.size} values beyond rtol={rtol:g}, atol={atol:g} "
            f"(max abs error {result.max_abs_error:.3g}, max rel error {result.max_rel_error:.3g})"
        )
    return result


def _first_differing_element(want: np.ndarray, have: np.ndarray) -> str:
    flat_want, flat_have = want.reshape(-1), have.reshape(-1)
    for i, (w, h) in enumerate(zip(flat_want, flat_have, strict=True)):
        if w != h:
            return f"at flat index {i}: {h!r}, expected {w!r}"
    return "same elements, different types"
