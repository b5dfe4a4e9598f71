"""The supported-operators index: pure data in, plain JSON-ready data out.

Per operator (domain, op_type) and per version the installed onnx defines (since_version), and
per backend: ``pass`` (every case of that version passed), ``fail`` (with the dominant reason)
or ``no_test``. The index is deterministic, so a fresh run on another machine can be compared
with the committed file: stable ordering, and no timings, dates, error values or machine facts.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mlrelease.ops.cases import DEFAULT_DOMAIN, CaseSummary
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict, dominant

SCHEMA = "mlrelease/supported-ops"
SCHEMA_VERSION = 1
GENERATOR = "mlrelease ops index"


@dataclass(frozen=True)
class OpVersion:
    """An operator version the installed onnx defines."""

    domain: str
    op_type: str
    since_version: int
    deprecated: bool = False


def domain_key(domain: str) -> tuple[int, str]:
    """ai.onnx first, then onnx's other domains, then adopters' domains, alphabetically."""
    return (0 if domain == DEFAULT_DOMAIN else 1 if domain.startswith("ai.onnx") else 2, domain)


def ir_facts(results: Iterable[CaseResult]) -> dict[str, Any]:
    """What a run showed of a backend's IR limit (measured, apart from op support)."""
    loaded: set[int] = set()
    refused: Counter[int] = Counter()
    restamped = 0
    for r in results:
        if r.ir_loaded is not None:
            loaded.add(r.ir_loaded)
        if r.ir_refused is not None:
            refused[r.ir_refused] += 1
        if r.restamped_from is not None and r.ir_loaded is not None:
            restamped += 1
    return {
        "highest_loaded": max(loaded) if loaded else None,
        "refused": sorted(refused),
        "cases_refused": sum(refused.values()),
        "cases_restamped": restamped,
    }


def build(
    *,
    onnx_version: str,
    case_sets: Sequence[str],
    defined: Iterable[OpVersion],
    cases: Iterable[CaseSummary],
    backends: Sequence[Mapping[str, Any]],
    verdicts: Mapping[tuple[str, str], ConformanceVerdict],
    known: Callable[[str, str], bool],
    domains: Sequence[str] = (),
) -> dict[str, Any]:
    """The index. ``backends`` are header entries (``name`` first), in column order; with
    ``domains``, only operators of those domains are indexed."""
    names = [str(b["name"]) for b in backends]
    if domains:
        defined = [op for op in defined if op.domain in domains]
        cases = [c for c in cases if c.domain in domains]
    ops: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    deprecated: dict[tuple[str, str], bool] = {}
    for op in defined:
        ops.setdefault((op.domain, op.op_type), {}).setdefault(op.since_version, _version())
        deprecated[(op.domain, op.op_type)] = op.deprecated
    for case in sorted(cases, key=lambda c: c.name):
        entry = ops.setdefault((case.domain, case.op_type), {}).setdefault(
            case.since_version, _version()
        )
        row = {b: verdicts[(case.name, b)].value for b in names if (case.name, b) in verdicts}
        entry["expanded_cases" if case.expanded else "cases"][case.name] = row

    out_ops, totals = _rated(ops, deprecated, names, known)
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "generator": GENERATOR,
        "onnx": onnx_version,
        "case_sets": list(case_sets),
        "verdicts": [v.value for v in ConformanceVerdict],
        "backends": [dict(b) for b in backends],
        "totals": {
            b: {
                "op_versions": {
                    k: totals[b]["op_versions"].get(k, 0) for k in ("pass", "fail", "no_test")
                },
                "cases": {v.value: totals[b]["cases"].get(v.value, 0) for v in ConformanceVerdict},
            }
            for b in names
        },
        "ops": out_ops,
    }


def _rated(
    ops: Mapping[tuple[str, str], Mapping[int, Mapping[str, Any]]],
    deprecated: Mapping[tuple[str, str], bool],
    names: Sequence[str],
    known: Callable[[str, str], bool],
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Counter[str]]]]:
    """(the index's ``ops``, the backends' counts): each operator version rated per backend from
    its cases, in the index's order, and the op versions and cases of each verdict a backend
    has."""
    totals = {b: {"op_versions": Counter[str](), "cases": Counter[str]()} for b in names}
    out_ops = []
    for domain, op_type in sorted(ops, key=lambda k: (domain_key(k[0]), k[1])):
        versions = []
        for since in sorted(ops[(domain, op_type)]):
            entry = ops[(domain, op_type)][since]
            status = {}
            for b in names:
                status[b] = _status(entry["cases"], b, known)
                totals[b]["op_versions"][status[b]["status"]] += 1
                for row in (*entry["cases"].values(), *entry["expanded_cases"].values()):
                    if b in row:
                        totals[b]["cases"][row[b]] += 1
            versions.append(
                {
                    "since_version": since,
                    "backends": status,
                    "cases": dict(sorted(entry["cases"].items())),
                    "expanded_cases": dict(sorted(entry["expanded_cases"].items())),
                }
            )
        out_ops.append(
            {
                "domain": domain,
                "op_type": op_type,
                "deprecated": deprecated.get((domain, op_type), False),
                "versions": versions,
            }
        )
    return out_ops, totals


def _version() -> dict[str, Any]:
    return {"cases": {}, "expanded_cases": {}}


def _status(
    cases: Mapping[str, Mapping[str, str]], backend: str, known: Callable[[str, str], bool]
) -> dict[str, Any]:
    verdicts = {
        name: ConformanceVerdict(row[backend]) for name, row in cases.items() if backend in row
    }
    if not verdicts:
        return {"status": "no_test"}
    passed = sum(v.ok for v in verdicts.values())
    if passed == len(verdicts):
        return {"status": "pass", "passed": passed, "total": passed}
    reason = dominant(verdicts.values())
    assert reason is not None
    failing = [name for name, v in verdicts.items() if not v.ok]
    return {
        "status": "fail",
        "reason": reason.value,
        "passed": passed,
        "total": len(verdicts),
        "known": sum(known(name, backend) for name in failing),
    }


# --- reading it back ----------------------------------------------------------------------


def dumps(index: Mapping[str, Any]) -> str:
    """The committed text: two-space indent, keys in the built order, trailing newline.

    Objects and lists holding only scalars stay on one line (one line per case and per
    backend status), so a review diff shows exactly which verdicts changed.
    """
    return _format(index, 0) + "\n"


def _format(value: Any, depth: int) -> str:
    flat = isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values())
    flat = flat or (isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value))
    if flat or not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_format(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    items = [f"{inner}{_format(v, depth + 1)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{pad}]"


def loads(text: str, source: str) -> dict[str, Any]:
    """Parse an index; a hand edit that broke the JSON or the schema is a clear error."""
    from mlrelease.errors import UserError

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}). Regenerate it with `mlrelease ops index`."
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise UserError(
            f'{source}: expected a supported-ops index ("schema": "{SCHEMA}"), '
            "found something else. Regenerate it with `mlrelease ops index`."
        )
    if data.get("schema_version") != SCHEMA_VERSION:
        raise UserError(
            f"{source}: schema_version {data.get('schema_version')!r}, this mlrelease reads "
            f"{SCHEMA_VERSION}. Regenerate it with `mlrelease ops index`."
        )
    return data


def case_verdicts(index: Mapping[str, Any]) -> dict[tuple[str, str], ConformanceVerdict]:
    """(case, backend) -> verdict, for every case of the index, expanded ones included."""
    out: dict[tuple[str, str], ConformanceVerdict] = {}
    for op in index.get("ops", []):
        for version in op["versions"]:
            for group in ("cases", "expanded_cases"):
                for name, row in version.get(group, {}).items():
                    for backend, verdict in row.items():
                        out[(name, backend)] = ConformanceVerdict(verdict)
    return out


def backend_header(index: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    return next((dict(b) for b in index.get("backends", []) if b.get("name") == name), None)


def op_label(op: Mapping[str, Any], since: Any = None) -> str:
    label = f"{op.get('domain')} {op.get('op_type')}"
    return f"{label}-{since}" if since is not None else label


def first_index_difference(expected: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    """One line naming the first difference (the first differing op when it is in the ops).

    ``expected`` is the fresh index, ``found`` the committed one.
    """
    derived = ("ops", "totals")  # totals follow from the ops: name the op, not the total
    for key in expected:
        if key not in derived and expected.get(key) != found.get(key):
            return _path_difference(expected.get(key), found.get(key), key)
    for key in found:
        if key not in expected:
            return f"unexpected key {key!r}"
    return _ops_difference(expected, found) or (
        None
        if expected.get("totals") == found.get("totals")
        else _path_difference(expected.get("totals"), found.get("totals"), "totals")
    )


def _ops_difference(expected: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    fresh = {(o["domain"], o["op_type"]): o for o in expected.get("ops", [])}
    committed = {
        (o.get("domain"), o.get("op_type")): o for o in found.get("ops", []) if isinstance(o, dict)
    }
    for op in expected.get("ops", []):
        key = (op["domain"], op["op_type"])
        if key not in committed:
            return f"{op_label(op)}: missing from the committed index"
        other = committed[key]
        if other == op:
            continue
        for version in op["versions"]:
            match = next(
                (
                    v
                    for v in other.get("versions", [])
                    if v.get("since_version") == version["since_version"]
                ),
                None,
            )
            label = op_label(op, version["since_version"])
            if match is None:
                return f"{label}: missing from the committed index"
            if match != version:
                return f"{label}: {_version_difference(version, match)}"
        return f"{op_label(op)}: {_path_difference(op, other, '')}"
    extra = [k for k in committed if k not in fresh]
    if extra:
        return f"{extra[0][0]} {extra[0][1]}: in the committed index but not in a fresh run"
    if list(committed) != list(fresh):
        return "the operators are in a different order"
    return None


def _version_difference(fresh: Mapping[str, Any], committed: Mapping[str, Any]) -> str:
    for backend, status in fresh.get("backends", {}).items():
        other = committed.get("backends", {}).get(backend)
        if other != status:
            return (
                f"{backend}: committed {_status_text(other)}, "
                f"fresh run {_status_text(status)}{_case_hint(fresh, committed, backend)}"
            )
    return _path_difference(fresh, committed, "")


def _case_hint(fresh: Mapping[str, Any], committed: Mapping[str, Any], backend: str) -> str:
    for group in ("cases", "expanded_cases"):
        for name, row in fresh.get(group, {}).items():
            before = committed.get(group, {}).get(name, {}).get(backend)
            if before != row.get(backend):
                return f" (case {name}: committed {before}, fresh run {row.get(backend)})"
    return ""


def _status_text(status: Any) -> str:
    if not isinstance(status, Mapping):
        return repr(status)
    text = str(status.get("status"))
    if status.get("reason"):
        text += f" ({status['reason']})"
    if "total" in status:
        text += f", {status.get('passed')}/{status.get('total')} cases pass"
    return text


def _path_difference(expected: Any, found: Any, path: str) -> str:
    if isinstance(expected, Mapping) and isinstance(found, Mapping):
        for key in expected:
            if expected[key] != found.get(key):
                return _path_difference(expected[key], found.get(key), f"{path}.{key}".strip("."))
        for key in found:
            if key not in expected:
                return f"{path}.{key}: not expected".strip(".")
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        for i, (a, b) in enumerate(zip(expected, found, strict=True)):
            if a != b:
                return _path_difference(a, b, f"{path}[{i}]")
    where = f"{path}: " if path else ""
    return f"{where}fresh run {json.dumps(expected)[:80]}, committed {json.dumps(found)[:80]}"
