"""Worker replies are read once, typed, at the edge: a reply of the right shape gives exactly
what the worker wrote, and one of the wrong shape a one-line error naming the field (the
parent and the worker can be two installations of mlrelease: ``perf compare`` runs a baseline
interpreter's worker)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from mlrelease.perf.replies import (
    BatchReply,
    CheckReply,
    MalformedReply,
    PrepareReply,
    ProbeReply,
    RunReply,
)

TIMED: dict[str, Any] = {
    "status": "ok",
    "build_s": 0.25,
    "extra": {"session": "cpu", "wall_median_ms": 1.5, "device_ns": [7, 8]},
    "first_s": 0.01,
    "parity": 1e-7,
    "samples_ns": [1200, 1100, 1150],
    "active_wall_ns": [1300, 1200, 1250],
    "round_facts": {"cpu": 3},
    "warmup_iters": 4,
    "models_built": 1,
}
"""One timed batch, as :func:`mlrelease.perf.worker._measure` writes it."""

PREPARED: dict[str, Any] = {
    "build_s": 0.5,
    "reference": {"device": "cpu", "dtype": "torch.float32"},
    "inputs": ["x"],
    "onnx": {"ir_version": 10, "opsets": {"ai.onnx": 20}},
    "export_s": 1.25,
}

PROBED: dict[str, Any] = {
    "device_key": "cpu-x86_64",
    "device_name": "a CPU",
    "environment": {"libraries": {"torch": "2.13.0"}},
    "unavailable": {"onnxruntime_cuda": "no CUDA device"},
}


def test_a_timed_batch_reads_as_written() -> None:
    reply = RunReply.parse({"rows": {"4": TIMED, "8": {"status": "oom", "error": "killed"}}})
    timed, failed = reply.rows["4"], reply.rows["8"]
    assert timed == BatchReply(
        status="ok",
        models_built=1,
        build_s=0.25,
        first_s=0.01,
        parity=1e-7,
        extra={"session": "cpu"},
        wall_median_ms=1.5,
        device_ns=(7, 8),
        samples_ns=(1200, 1100, 1150),
        active_wall_ns=(1300, 1200, 1250),
        round_facts={"cpu": 3},
        warmup_iters=4,
    )
    assert failed == BatchReply(status="oom", error="killed")
    assert TIMED["extra"]["wall_median_ms"] == 1.5, "the worker's reply is not changed"


def test_probe_prepare_and_check_read_as_written() -> None:
    probe = ProbeReply.parse(PROBED)
    assert (probe.device_key, probe.device_name) == ("cpu-x86_64", "a CPU")
    assert probe.unavailable == {"onnxruntime_cuda": "no CUDA device"}
    prepared = PrepareReply.parse(PREPARED)
    assert (prepared.build_s, prepared.export_s, prepared.export_error) == (0.5, 1.25, None)
    assert prepared.onnx == {"ir_version": 10, "opsets": {"ai.onnx": 20}}
    no_export = PrepareReply.parse({k: PREPARED[k] for k in ("build_s", "reference", "inputs")})
    assert (no_export.onnx, no_export.export_s) == (None, None)
    check = CheckReply.parse({"prepared": PREPARED, "runs": {"1/pytorch": TIMED}})
    assert check.prepared == prepared and check.runs["1/pytorch"].samples_ns[0] == 1200


def _without(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda batch: batch.pop(key)


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda batch: batch.__setitem__(key, value)


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        (_without("status"), "rows.4.status", "missing"),
        (_set("status", 3), "rows.4.status", "expected a string, found 3"),
        (_set("samples_ns", ["1200"]), "rows.4.samples_ns", "expected a list of integers"),
        (_set("samples_ns", 1200), "rows.4.samples_ns", "expected a list of integers"),
        (_set("parity", True), "rows.4.parity", "expected a number, found True"),
        (_set("extra", []), "rows.4.extra", "expected a JSON object"),
        (_set("warmup_iters", 4.5), "rows.4.warmup_iters", "expected an integer"),
        (_set("sample_ns", [1]), "rows.4.sample_ns", "a field this mlrelease does not read"),
        (lambda batch: batch["extra"].update(device_ns="fast"), "rows.4.extra.device_ns", "list"),
    ],
)
def test_a_malformed_batch_names_its_field(
    change: Callable[[dict[str, Any]], None], field: str, expected: str
) -> None:
    batch = copy.deepcopy(TIMED)
    change(batch)
    with pytest.raises(MalformedReply) as raised:
        RunReply.parse({"rows": {"4": batch}})
    message = str(raised.value)
    assert message.startswith(f"`{field}`: ") and expected in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("parse", "reply", "field"),
    [
        (RunReply.parse, [], "the reply"),
        (RunReply.parse, {"rows": {"4": "ok"}}, "rows.4"),
        (RunReply.parse, {}, "rows"),
        (ProbeReply.parse, {**PROBED, "unavailable": {"pytorch": None}}, "unavailable.pytorch"),
        (ProbeReply.parse, {k: v for k, v in PROBED.items() if k != "device_key"}, "device_key"),
        (CheckReply.parse, {"prepared": {"build_s": 1.0}, "runs": {}}, "prepared.inputs"),
        (CheckReply.parse, {"prepared": PREPARED, "runs": {"1/pytorch": {}}}, "runs.1/pytorch"),
    ],
)
def test_a_malformed_reply_names_its_field(
    parse: Callable[[object], object], reply: object, field: str
) -> None:
    with pytest.raises(MalformedReply, match=f"^`{field}[`.]"):
        parse(reply)
