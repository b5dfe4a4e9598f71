"""Collect the declared operator schemas: the installed onnx's domains plus the custom ones.

Schemas are collected in a fresh subprocess (``python -m mlrelease.opsets.collect``) because
``onnx.defs`` registration is process-global: the installed onnx's domains plus any custom domain
registered by the modules in ``[tool.mlrelease.opset-rules] schema-modules``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mlrelease.config import Config
from mlrelease.edges import installed
from mlrelease.edges.proc import call, python_module
from mlrelease.errors import ConfigError
from mlrelease.models.config import canonical_domain
from mlrelease.opsets.config import OpsetRulesConfig
from mlrelease.opsets.snapshot import SNAPSHOT_FORMAT, Snapshot


def _parameter(p: Any) -> str:
    option = str(p.option).rsplit(".", 1)[-1].lower()
    text = f"{p.name}: {p.type_str}"
    if option != "single":
        text += f" {option}"
    if option == "variadic":
        text += f" min={p.min_arity}" + ("" if p.is_homogeneous else " heterogeneous")
    return text


def _attribute(a: Any) -> str:
    from onnx import helper

    kind = str(a.type).rsplit(".", 1)[-1]
    text = f"{a.name}: {kind}"
    if a.required:
        return text + " required"
    default = a.default_value
    if default is not None and default.type:
        value = helper.get_attribute_value(default)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif isinstance(value, list):
            value = [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
        text += f" = {value!r}"
    else:
        text += " optional"
    return text


def signature(schema: Any) -> dict[str, Any]:
    """What a node binding to this operator relies on; documentation excluded."""
    return {
        "inputs": [_parameter(p) for p in schema.inputs],
        "outputs": [_parameter(p) for p in schema.outputs],
        "attributes": [_attribute(a) for _, a in sorted(schema.attributes.items())],
        "types": {t.type_param_str: sorted(t.allowed_type_strs) for t in schema.type_constraints},
        "arity": [schema.min_input, schema.max_input, schema.min_output, schema.max_output],
    }


def collect(domains: Sequence[str] = (), modules: Sequence[str] = ()) -> Snapshot:
    """Every declared schema of ``domains`` (all when empty) after importing ``modules``."""
    import importlib

    import onnx
    from onnx import defs

    for module in modules:
        importlib.import_module(module)
    versions = defs.C.schema_version_map()
    wanted = {canonical_domain(d) for d in domains} or set(versions)
    snapshot: Snapshot = {
        "format": SNAPSHOT_FORMAT,
        "onnx_version": onnx.__version__,
        "domains": {},
    }
    for domain in sorted(wanted):
        if domain not in versions:
            continue
        operators = sorted(
            (
                {"op": s.name, "since": s.since_version, **signature(s)}
                for s in defs.get_all_schemas_with_history()
                if s.domain == domain
            ),
            key=lambda o: (o["op"], o["since"]),
        )
        low, high = versions[domain]
        snapshot["domains"][domain] = {
            "opset_version": high,
            "min_version": low,
            "operators": operators,
        }
    return snapshot


def _subprocess_main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mlrelease.opsets.collect")
    parser.add_argument("--module", action="append", default=[])
    parser.add_argument("--domain", action="append", default=[])
    args = parser.parse_args(argv)
    json.dump(collect(args.domain, args.module), sys.stdout)
    return 0


def collect_declared(config: Config) -> Snapshot:
    """The project's declared schemas, collected in a fresh interpreter."""
    installed.require("onnx", extra="opsets")
    options = config.table(OpsetRulesConfig)
    env = dict(os.environ)
    import mlrelease

    paths = [str(Path(mlrelease.__file__).resolve().parents[1])]
    paths += [str(config.path(p)) for p in options.python_path]
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    command = python_module("mlrelease.opsets.collect")
    for module in options.schema_modules:
        command += ["--module", module]
    for domain in options.domains:
        command += ["--domain", domain]
    proc = call(command, cwd=config.root, env=env, timeout=300)
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if line.strip()][-3:]
        raise ConfigError(
            "tool.mlrelease.opset-rules.schema-modules",
            "modules that import and register schemas",
            f"a failure: {' | '.join(last) or f'exit {proc.returncode}'}",
            source=str(config.pyproject_path),
            hint="Run `python -c 'import MODULE'` with the python-path folders to see the error.",
        )
    data: Snapshot = json.loads(proc.stdout)
    return data


if __name__ == "__main__":
    sys.exit(_subprocess_main())
