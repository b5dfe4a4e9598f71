"""``mlrelease init``: propose (dry run) or write the project's ``[tool.mlrelease]`` and
``[tool.bumpversion]``; ``pyproject.toml`` is the only file it ever writes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mlrelease.init import service


def cmd_init(args: argparse.Namespace) -> int:
    return service.run(
        args.root or Path.cwd(),
        execute=args.execute,
        load_config=args.load_config,
        gate_extras=args.gate_extras,
        index=args.index,
    )


def register(sub: Any) -> None:
    p = sub.add_parser(
        "init",
        help="describe this repository in [tool.mlrelease] and [tool.bumpversion]",
        description="Read the repository (version sources, tags, release model, pure or "
        "native, changelog, tests, docs, ONNX use) and propose the pyproject.toml tables that "
        "describe it, with the reason for each. Dry run unless --execute; only pyproject.toml "
        "is ever written.",
    )
    p.add_argument("--execute", action="store_true", help="append the tables to pyproject.toml")
    p.add_argument(
        "--index",
        metavar="SIMPLE_URL",
        help="propose [tool.mlrelease.wheels.files] from the newest release's files on this "
        "simple index (e.g. https://pypi.org/simple/)",
    )
    p.set_defaults(func=cmd_init)
