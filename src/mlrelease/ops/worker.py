"""A conformance worker: ``python -m mlrelease.ops.worker``.

It reads tasks from stdin and answers on its original stdout, one case at a time, in order.
Native code may print anything: file descriptor 1 is pointed at stderr (the worker's log file)
before any backend is imported, so nothing corrupts the frames. If a kernel kills the process,
the runner sees the pipe close and marks the case in flight ``crash``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mlrelease.ops import protocol


def main() -> int:
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # native prints go to the log, never into the frames
    sys.stdout = sys.stderr

    from mlrelease.ops import backends
    from mlrelease.ops.config import BackendConfig
    from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict

    specs: list[BackendConfig] = []
    adapters: dict[int, Any] = {}
    protocol.send(channel_out, ("ready", os.getpid()))
    while True:
        message = protocol.receive(channel_in)
        if message is None or message[0] == "stop":
            return 0
        kind = message[0]
        if kind == "init":
            specs, paths = message[1], message[2]
            for path in reversed(paths):
                if path not in sys.path:
                    sys.path.insert(0, path)
        elif kind == "describe":
            protocol.send(channel_out, ("described", [backends.describe(s) for s in specs]))
        elif kind == "run":
            _, task_id, backend_index, case, rtol, atol = message
            spec = specs[backend_index]
            print(f"run {spec.name} {case.name}", file=sys.stderr, flush=True)
            try:
                if backend_index not in adapters:
                    adapters[backend_index] = backends.create(spec)
            except Exception as exc:
                result = CaseResult(
                    case.name,
                    spec.name,
                    ConformanceVerdict.ERROR,
                    f"cannot load the backend: {backends.first_line(exc)}",
                )
            else:
                result = backends.run_case(adapters[backend_index], spec.name, case, rtol, atol)
            protocol.send(channel_out, ("result", task_id, result))


if __name__ == "__main__":
    sys.exit(main())
