"""An index-source worker: ``python -m mlrelease.ops.plugin_worker MODULE:CALLABLE [PATH...]``.

Runs the adopter's callable in its own process (never in mlrelease's) and writes what it
yielded as one JSON document on the original stdout; whatever the adopter's code prints goes to
stderr. Rows are not judged here: :mod:`mlrelease.ops.plugin` validates each one.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any


def _plain(value: Any) -> Any:
    """A JSON-safe copy: strings, numbers, booleans, None and lists; anything else by repr."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return {"repr": repr(value)[:200], "type": type(value).__name__}


def main(argv: list[str]) -> int:
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the adopter's prints go to the log, never into the answer
    sys.stdout = sys.stderr
    spec, *paths = argv
    for path in reversed(paths):
        sys.path.insert(0, path)
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
        rows = [_plain(row) for row in target()]
    except Exception as exc:  # the adopter's code: its failure is the answer, not ours
        answer: dict[str, Any] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
    else:
        answer = {"rows": rows}
    channel.write(json.dumps(answer))
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
