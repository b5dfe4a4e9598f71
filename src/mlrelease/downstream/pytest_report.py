"""A pytest plugin that mlrelease loads into a consumer's test run (``-p``); standalone.

It imports nothing but the standard library (it runs in the consumer's environment, where
mlrelease is not installed: :mod:`mlrelease.downstream.runner` copies this file next to the
run). Each phase report and each collection problem is one JSON line appended, and flushed, to
``$MLRELEASE_DOWNSTREAM_REPORT`` as it happens, so a run killed at its time limit still leaves
the results of every test it finished.
"""

from __future__ import annotations

import json
import os
from typing import Any

_LINES = 8
_WIDTH = 300


def _message(report: Any) -> str:
    """The first lines of a failure: pytest's ``E`` lines when there are any, else the end."""
    text = str(getattr(report, "longreprtext", "") or "")
    lines = text.splitlines()
    errors = [line for line in lines if line.startswith("E ")]
    picked = errors[:_LINES] if errors else lines[-_LINES:]
    return "\n".join(line[:_WIDTH] for line in picked)


def _write(record: dict[str, Any]) -> None:
    path = os.environ.get("MLRELEASE_DOWNSTREAM_REPORT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
        handle.flush()


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _write({"start": nodeid})


def pytest_runtest_logreport(report: Any) -> None:
    record = {
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "xfail": bool(getattr(report, "wasxfail", None) is not None),
    }
    if report.failed:
        record["message"] = _message(report)
    _write(record)


def pytest_collectreport(report: Any) -> None:
    if report.failed or report.skipped:
        _write({"collect": report.nodeid, "outcome": report.outcome, "message": _message(report)})
