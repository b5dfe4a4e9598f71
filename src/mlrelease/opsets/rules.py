"""Operator-versioning rules (ONNX PR 186) on declared schemas, against a committed snapshot.

An operator is identified by (domain, op_type, since_version); an operator set is a domain at
an opset version. Published operators are immutable. Checked against the previous release's
schema snapshot (``mlrelease opset snapshot`` writes it; commit it with the release):

1. a change in a domain's inventory (an operator version added or removed) comes with a higher
   opset version, and a domain's opset version never decreases;
2. an operator whose signature (inputs, outputs, attributes with their defaults, type
   constraints) changed keeps no since_version it was published under: it needs a new one;
3. an operator added since the snapshot has a since_version above the snapshot's opset version
   (an already released opset cannot gain operators), and no published operator version is
   removed (ONNX keeps the history and deprecates instead: old models keep their schema);
4. no since_version exceeds its domain's opset version.

(The fifth rule, "a model never imports two versions of one domain", is step 3 of model
verification.) Schemas are collected in a fresh subprocess (``python -m mlrelease.opsets.rules``)
because ``onnx.defs`` registration is process-global: the installed onnx's domains plus any
custom domain registered by the modules in ``[tool.mlrelease.opset-rules] schema-modules``.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mlrelease.config import Config, load
from mlrelease.errors import ConfigError
from mlrelease.gates import Context, GateResult, gate
from mlrelease.models.config import OpsetRulesConfig, canonical_domain, display_domain
from mlrelease.terminal import make_console

SNAPSHOT_FORMAT = 1

Snapshot = dict[str, Any]


# --- collecting (runs in the subprocess) -------------------------------------------------------


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
    parser = argparse.ArgumentParser(prog="python -m mlrelease.opsets.rules")
    parser.add_argument("--module", action="append", default=[])
    parser.add_argument("--domain", action="append", default=[])
    args = parser.parse_args(argv)
    json.dump(collect(args.domain, args.module), sys.stdout)
    return 0


def collect_declared(config: Config) -> Snapshot:
    """The project's declared schemas, collected in a fresh interpreter."""
    options = config.opset_rules
    env = dict(os.environ)
    import mlrelease

    paths = [str(Path(mlrelease.__file__).resolve().parents[1])]
    paths += [str(config.path(p)) for p in options.python_path]
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-m", "mlrelease.opsets.rules"]
    for module in options.schema_modules:
        command += ["--module", module]
    for domain in options.domains:
        command += ["--domain", domain]
    proc = subprocess.run(
        command, cwd=config.root, env=env, capture_output=True, text=True, check=False, timeout=300
    )
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


# --- the rules (pure) --------------------------------------------------------------------------


def _ops(domain: Mapping[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(o["op"], int(o["since"])): o for o in domain.get("operators", [])}


def _changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for part in ("inputs", "outputs", "attributes", "types", "arity"):
        if old.get(part) != new.get(part):
            a = json.dumps(old.get(part), sort_keys=True)
            b = json.dumps(new.get(part), sort_keys=True)
            if (
                part != "arity"
                and isinstance(old.get(part), list)
                and isinstance(new.get(part), list)
            ):
                gone = [x for x in old[part] if x not in new[part]]
                came = [x for x in new[part] if x not in old[part]]
                a, b = json.dumps(gone), json.dumps(came)
                out.append(f"{part}: removed {a}, added {b}")
            else:
                out.append(f"{part}: {a} -> {b}")
    return out


def check(
    previous: Snapshot, current: Snapshot, domains: Iterable[str] = ()
) -> tuple[list[str], list[str]]:
    """(problems, facts): the versioning rules, ``current`` against ``previous``."""
    problems: list[str] = []
    facts: list[str] = []
    chosen = {canonical_domain(d) for d in domains}
    before, after = previous.get("domains", {}), current.get("domains", {})
    for domain in sorted(chosen or {*before, *after}):
        name = display_domain(domain)
        old, new = before.get(domain), after.get(domain)
        if new is None:
            if old is not None:
                problems.append(
                    f"{name}: in the snapshot (opset {old['opset_version']}) but no "
                    "longer registered; a published domain cannot disappear (is its "
                    "schema module listed in schema-modules?)"
                )
            continue
        version = int(new["opset_version"])
        ops_new = _ops(new)
        for op, since in sorted(ops_new):
            if since > version:
                problems.append(
                    f"{name}.{op}:{since}: since_version {since} exceeds the domain's "
                    f"opset version {version}"
                )
        if old is None:
            facts.append(
                f"{name}: new domain at opset {version} with {len(ops_new)} operator version(s)"
            )
            continue
        old_version = int(old["opset_version"])
        ops_old = _ops(old)
        added = sorted(set(ops_new) - set(ops_old))
        removed = sorted(set(ops_old) - set(ops_new))
        if version < old_version:
            problems.append(f"{name}: opset version went down from {old_version} to {version}")
        if (added or removed) and version <= old_version:
            listed = ", ".join([f"+{o}:{s}" for o, s in added] + [f"-{o}:{s}" for o, s in removed])
            problems.append(
                f"{name}: inventory changed ({listed}) but the opset version stayed "
                f"at {version}; a new operator set needs opset {old_version + 1}"
            )
        for op, since in removed:
            problems.append(
                f"{name}.{op}:{since}: published in the previous release (opset "
                f"{old_version}) and removed; a published operator version is never removed "
                "(models that import it lose their schema): keep it registered, and deprecate "
                "the operator with a new since_version instead"
            )
        for op, since in added:
            if since <= old_version:
                problems.append(
                    f"{name}.{op}:{since}: added with since_version {since}, but opset "
                    f"{old_version} was already published without it; a new operator "
                    f"(or a new version of one) needs since_version > {old_version}"
                )
        for key in sorted(set(ops_new) & set(ops_old)):
            diff = _changes(ops_old[key], ops_new[key])
            if diff:
                op, since = key
                problems.append(
                    f"{name}.{op}:{since}: signature changed under the published "
                    f"since_version {since} ({'; '.join(diff)}); give the new "
                    f"signature since_version {max(version, old_version + 1)} and "
                    "raise the opset version"
                )
        facts.append(
            f"{name}: opset {old_version} -> {version}, {len(added)} added, "
            f"{len(removed)} removed, {len(set(ops_new) & set(ops_old))} published "
            "signatures compared"
        )
    return problems, facts


# --- snapshot files ----------------------------------------------------------------------------


def render(snapshot: Snapshot) -> str:
    """Stable JSON, one operator per line (reviewable diffs)."""
    lines = [
        "{",
        f'  "format": {snapshot["format"]},',
        f'  "onnx_version": {json.dumps(snapshot["onnx_version"])},',
        '  "domains": {',
    ]
    domains = list(snapshot["domains"].items())
    for i, (domain, data) in enumerate(domains):
        lines.append(f"    {json.dumps(domain)}: {{")
        lines.append(f'      "opset_version": {data["opset_version"]},')
        lines.append(f'      "min_version": {data["min_version"]},')
        lines.append('      "operators": [')
        ops = data["operators"]
        for j, op in enumerate(ops):
            lines.append("        " + json.dumps(op) + ("," if j < len(ops) - 1 else ""))
        lines.append("      ]")
        lines.append("    }" + ("," if i < len(domains) - 1 else ""))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def read_snapshot(path: Path, *, key: str, source: str) -> Snapshot:
    try:
        data: Snapshot = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            key,
            "the previous release's schema snapshot",
            f"no file at {path}",
            source=source,
            hint="Write it with `mlrelease opset snapshot --execute` and commit it.",
        ) from None
    except ValueError as exc:
        raise ConfigError(
            key, "a JSON schema snapshot", f"invalid JSON ({exc})", source=source
        ) from None
    if data.get("format") != SNAPSHOT_FORMAT or "domains" not in data:
        raise ConfigError(
            key,
            f"a snapshot of format {SNAPSHOT_FORMAT}",
            f"format {data.get('format')!r}",
            source=source,
            hint="Rewrite it with `mlrelease opset snapshot --execute`.",
        )
    return data


def _snapshot_path(config: Config) -> Path:
    return config.path(config.opset_rules.snapshot)


@gate(
    "opset_rules",
    "Operator-versioning rules (ONNX PR 186) hold for every declared schema (the installed "
    "onnx's and custom domains) against the previous release's committed snapshot: inventory "
    "changes raise the opset version, no signature changes under a published since_version, "
    "no published operator version removed, since_version <= opset version.",
)
def check_opset_rules(ctx: Context) -> GateResult:
    config = ctx.config
    options: OpsetRulesConfig = config.opset_rules
    previous = read_snapshot(
        _snapshot_path(config),
        key="tool.mlrelease.opset-rules.snapshot",
        source=str(config.pyproject_path),
    )
    current = collect_declared(config)
    problems, facts = check(previous, current, options.domains)
    evidence = ctx.evidence_path("opset_rules", "current-snapshot.json")
    evidence.write_text(render(current), encoding="utf-8")
    against = (
        f"snapshot {options.snapshot} (onnx {previous.get('onnx_version')}) vs declared "
        f"schemas (onnx {current['onnx_version']})"
    )
    if problems:
        return GateResult.failed(
            f"{len(problems)} rule violation(s): {problems[0]}",
            details=[f"**{p}**" for p in problems] + facts,
            evidence=[ctx.display(evidence)],
        )
    count = sum(len(d["operators"]) for d in current["domains"].values())
    return GateResult.passed(
        f"{count} operator versions in {len(current['domains'])} domain(s) "
        f"follow the rules; {against}",
        details=facts,
        evidence=[ctx.display(evidence)],
    )


# --- CLI ---------------------------------------------------------------------------------------


def cmd_snapshot(args: argparse.Namespace) -> int:
    from rich.markup import escape

    console = make_console()
    config = load(args.root)
    if args.schema_module:
        config = dataclasses.replace(
            config,
            opset_rules=dataclasses.replace(
                config.opset_rules, schema_modules=list(args.schema_module)
            ),
        )
    path = args.output or _snapshot_path(config)
    current = collect_declared(config)
    text = render(current)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    shown = Context(config=config).display(path)
    if before == text:
        console.print(f"{shown} is current; nothing to write.")
        return 0
    if before:
        try:
            previous = json.loads(before)
            problems, facts = check(previous, current, config.opset_rules.domains)
        except (ValueError, KeyError, TypeError):
            problems, facts = [], ["the existing file is not a readable snapshot"]
        for fact in facts:
            console.print(f"  {escape(fact)}")
        for problem in problems:
            console.print(f"  [bold red]rule violation[/]: {escape(problem)}")
        changed = sum(1 for _ in difflib.unified_diff(before.splitlines(), text.splitlines(), n=0))
        console.print(f"{shown}: {changed} diff lines against the committed snapshot.")
    else:
        console.print(f"{shown} does not exist yet.")
    if not args.execute:
        console.print(
            "Dry run: nothing written. Re-run with --execute to write the snapshot "
            "(at release time, then commit it)."
        )
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    count = sum(len(d["operators"]) for d in current["domains"].values())
    console.print(
        f"Wrote {shown}: {count} operator versions in {len(current['domains'])} domain(s)."
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``opset snapshot`` to the mlrelease command line."""
    p = sub.add_parser("opset", help="operator-versioning snapshots (gate opset_rules)")
    opset_sub = p.add_subparsers(dest="opset_command", required=True, metavar="ACTION")
    s = opset_sub.add_parser(
        "snapshot",
        help="write the declared schemas' snapshot (dry run unless --execute)",
        description="Collect every declared operator schema (the installed onnx's domains and "
        "the custom ones registered by [tool.mlrelease.opset-rules] schema-modules) and write "
        "them to the snapshot file the opset_rules gate compares against. Run at release time "
        "and commit the file. Dry run (shows what changed and any rule violation) unless "
        "--execute.",
    )
    s.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write here instead of [tool.mlrelease.opset-rules] snapshot",
    )
    s.add_argument(
        "--schema-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this module instead of [tool.mlrelease.opset-rules] "
        "schema-modules (repeatable)",
    )
    s.add_argument("--execute", action="store_true", help="write the file")
    s.set_defaults(func=cmd_snapshot)


if __name__ == "__main__":
    sys.exit(_subprocess_main())
