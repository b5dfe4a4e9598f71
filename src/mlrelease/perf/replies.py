"""What a perf worker answers, typed: the JSON that :mod:`mlrelease.perf.worker` writes, parsed
by :meth:`mlrelease.perf.launch.Worker.call` as it reads the result file, so the runner and the
status probe read fields, not dictionary keys.

One frozen class per task (``probe``, ``prepare``, ``run``, ``check``), built by its ``parse``
from the decoded JSON. The parent and the worker can be different installations of mlrelease
(``perf compare`` runs a baseline interpreter's worker), so a reply is checked whole: a missing
field, a field of the wrong type or a field this mlrelease does not know is a
:class:`MalformedReply` naming the field (``rows.4.samples_ns``), never a ``KeyError`` deep in
the runner. Free-form facts (the environment, a runner's facts, the numeric policy) stay
mappings: they are recorded as found, not read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


class MalformedReply(ValueError):
    """A worker's reply that does not have the shape this mlrelease reads (the message names
    the field, what was expected and what was found)."""


def _fields(data: object, where: str, required: set[str], optional: set[str]) -> dict[str, Any]:
    """``data`` as a JSON object with every ``required`` field and no field outside both sets."""
    if not isinstance(data, dict):
        found = f"{data!r:.80}"
        raise MalformedReply(f"`{where or 'the reply'}`: expected a JSON object, found {found}")
    missing = sorted(required - data.keys())
    if missing:
        raise MalformedReply(f"`{_at(where, missing[0])}`: missing (a required field)")
    unknown = sorted(data.keys() - required - optional)
    if unknown:
        raise MalformedReply(f"`{_at(where, unknown[0])}`: a field this mlrelease does not read")
    return data


def _at(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _field(
    data: Mapping[str, Any], where: str, name: str, kinds: tuple[type, ...], what: str
) -> Any:
    """Field ``name`` of ``data``: None when absent, else one of ``kinds`` (a bool is no number)."""
    if name not in data:
        return None
    value = data[name]
    if isinstance(value, kinds) and not isinstance(value, bool):
        return value
    raise MalformedReply(f"`{_at(where, name)}`: expected {what}, found {value!r:.80}")


def _number(data: Mapping[str, Any], where: str, name: str) -> float | None:
    found = _field(data, where, name, (int, float), "a number")
    return None if found is None else float(found)


def _integer(data: Mapping[str, Any], where: str, name: str) -> int | None:
    found: int | None = _field(data, where, name, (int,), "an integer")
    return found


def _text(data: Mapping[str, Any], where: str, name: str) -> str | None:
    found: str | None = _field(data, where, name, (str,), "a string")
    return found


def _mapping(data: Mapping[str, Any], where: str, name: str) -> dict[str, Any]:
    """Field ``name``, a JSON object (empty when absent)."""
    found: dict[str, Any] | None = _field(data, where, name, (dict,), "a JSON object")
    return {} if found is None else found


def _integers(data: Mapping[str, Any], where: str, name: str) -> tuple[int, ...] | None:
    found = _field(data, where, name, (list,), "a list of integers")
    if found is None:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in found):
        shown = f"{found!r:.80}"
        raise MalformedReply(f"`{_at(where, name)}`: expected a list of integers, found {shown}")
    return tuple(found)


def _each(
    data: Mapping[str, Any], where: str, name: str, parse: Callable[[object, str], T]
) -> dict[str, T]:
    """Field ``name``, an object of objects, each parsed under its own key."""
    found = _mapping(data, where, name)
    return {key: parse(value, _at(_at(where, name), key)) for key, value in found.items()}


@dataclass(frozen=True)
class ProbeReply:
    """What a build can run here: its device, its environment, the frameworks it cannot run
    (with why)."""

    device_key: str
    device_name: str
    environment: Mapping[str, Any]
    unavailable: Mapping[str, str]

    @classmethod
    def parse(cls, data: object, where: str = "") -> ProbeReply:
        names = {"device_key", "device_name", "environment", "unavailable"}
        found = _fields(data, where, names, set())
        unavailable = _mapping(found, where, "unavailable")
        for framework in unavailable:
            _text(unavailable, _at(where, "unavailable"), framework)
        return cls(
            device_key=_text(found, where, "device_key") or "",
            device_name=_text(found, where, "device_name") or "",
            environment=_mapping(found, where, "environment"),
            unavailable=unavailable,
        )


@dataclass(frozen=True)
class PrepareReply:
    """One model built at one shape (and exported, for the ONNX frameworks)."""

    build_s: float
    reference: Mapping[str, Any]
    """Where and how the parity reference was computed."""
    export_s: float | None = None
    """None: no export was asked for."""
    onnx: Mapping[str, Any] | None = None
    """The exported model's IR version and opsets (None: not exported)."""
    export_error: str | None = None

    @classmethod
    def parse(cls, data: object, where: str = "") -> PrepareReply:
        optional = {"export_s", "onnx", "export_error"}
        found = _fields(data, where, {"build_s", "reference", "inputs"}, optional)
        _field(found, where, "inputs", (list,), "a list of input names")
        return cls(
            build_s=_number(found, where, "build_s") or 0.0,
            reference=_mapping(found, where, "reference"),
            export_s=_number(found, where, "export_s"),
            onnx=_mapping(found, where, "onnx") if "onnx" in found else None,
            export_error=_text(found, where, "export_error"),
        )


@dataclass(frozen=True)
class BatchReply:
    """One batch size of a ``run``: the status it reached and, when it was timed, the round's
    samples and facts."""

    status: str
    error: str = ""
    models_built: int | None = None
    """Models the worker had built when it served this batch (one: the batches share it)."""
    build_s: float | None = None
    first_s: float | None = None
    parity: float | None = None
    """None: the row did not run far enough to be compared."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """The runner's own facts, less the two below."""
    wall_median_ms: float | None = None
    device_ns: tuple[int, ...] | None = None
    samples_ns: tuple[int, ...] = ()
    """Empty: the batch was not timed."""
    active_wall_ns: tuple[int, ...] = ()
    round_facts: Mapping[str, Any] = field(default_factory=dict)
    warmup_iters: int = 0

    @classmethod
    def parse(cls, data: object, where: str = "") -> BatchReply:
        optional = {"error", "models_built", "build_s", "first_s", "parity", "extra"}
        optional |= {"samples_ns", "active_wall_ns", "round_facts", "warmup_iters"}
        found = _fields(data, where, {"status"}, optional)
        extra = dict(_mapping(found, where, "extra"))
        inner = _at(where, "extra")
        median = _number(extra, inner, "wall_median_ms")
        device = _integers(extra, inner, "device_ns")
        for moved in ("wall_median_ms", "device_ns"):
            extra.pop(moved, None)
        return cls(
            status=_text(found, where, "status") or "",
            error=_text(found, where, "error") or "",
            models_built=_integer(found, where, "models_built"),
            build_s=_number(found, where, "build_s"),
            first_s=_number(found, where, "first_s"),
            parity=_number(found, where, "parity"),
            extra=extra,
            wall_median_ms=median,
            device_ns=device,
            samples_ns=_integers(found, where, "samples_ns") or (),
            active_wall_ns=_integers(found, where, "active_wall_ns") or (),
            round_facts=_mapping(found, where, "round_facts"),
            warmup_iters=_integer(found, where, "warmup_iters") or 0,
        )


@dataclass(frozen=True)
class RunReply:
    """Every batch a ``run`` served (all of them, or those it finished before it died), by
    batch size as written (``"4"``)."""

    rows: Mapping[str, BatchReply]

    @classmethod
    def parse(cls, data: object, where: str = "") -> RunReply:
        found = _fields(data, where, {"rows"}, set())
        return cls(_each(found, where, "rows", BatchReply.parse))


@dataclass(frozen=True)
class CheckReply:
    """A status probe of one model and shape: its preparation, then every framework's batches
    by ``"batch/framework"``."""

    prepared: PrepareReply
    runs: Mapping[str, BatchReply]

    @classmethod
    def parse(cls, data: object, where: str = "") -> CheckReply:
        found = _fields(data, where, {"prepared", "runs"}, set())
        return cls(
            PrepareReply.parse(found["prepared"], _at(where, "prepared")),
            _each(found, where, "runs", BatchReply.parse),
        )
