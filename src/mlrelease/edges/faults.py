"""Fault points: where the fault-injection tests kill a mutating command, as a crash would.

A fault point is a name (``prepare:after:bump``) a command passes on its way. Only when
``$MLRELEASE_FAULT`` names it does :func:`fault_point` SIGKILL the process (and the commands above
it: a checklist that ran the step, a promotion that ran the publisher). A kill cannot be caught
or cleaned up after, which is what a crash, an OOM kill or a closed laptop looks like; the tests
then check that a re-run converges. Outside those tests every point is a no-op.
"""

from __future__ import annotations

import os
import signal
import sys

FAULT_ENV = "MLRELEASE_FAULT"
"""Test hook: the name of a point (``prepare:after:bump``) where the process kills itself;
``*`` kills it at the first point it passes (a resumed run, killed again at its first step)."""
FAULT_ALSO_KILL_ENV = "MLRELEASE_FAULT_ALSO_KILL"
"""Test hook: process ids (comma-separated) killed together with this one (the checklist
that ran the step, the promotion that ran the publisher)."""
FAULT_RECORD_ENV = "MLRELEASE_FAULT_RECORD"
"""Test hook: a file every fault point a run passes appends its name to."""


def active() -> bool:
    """Whether a fault-injection test runs (a point may kill, or every point is recorded)."""
    return bool(os.environ.get(FAULT_ENV) or os.environ.get(FAULT_RECORD_ENV))


def fault_point(name: str) -> None:
    """SIGKILL this process (and the checklist runner above it) when ``$MLRELEASE_FAULT`` names
    this point. Used only by the fault-injection tests: a kill cannot be caught or cleaned up
    after, which is what a crash, an OOM kill or a closed laptop looks like."""
    record = os.environ.get(FAULT_RECORD_ENV)
    if record:  # the harness lists every point a run passes, to kill it there next
        with open(record, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    if os.environ.get(FAULT_ENV) not in (name, "*"):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    for other in os.environ.get(FAULT_ALSO_KILL_ENV, "").split(","):
        if other.isdigit() and int(other) != os.getpid():
            os.kill(int(other), kill)
    os.kill(os.getpid(), kill)


def fault_env() -> dict[str, str]:
    """The environment of a child process: a fault point in it kills this process (and the
    ones above it) too, as a crash of the machine would."""
    above = os.environ.get(FAULT_ALSO_KILL_ENV, "")
    return {**os.environ, FAULT_ALSO_KILL_ENV: ",".join(filter(None, [above, str(os.getpid())]))}
