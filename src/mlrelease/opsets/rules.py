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
verification.) Schemas are collected in a fresh subprocess (:mod:`mlrelease.opsets.collect`)
because ``onnx.defs`` registration is process-global: the installed onnx's domains plus any
custom domain registered by the modules in ``[tool.mlrelease.opset-rules] schema-modules``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from mlrelease.models.config import canonical_domain, display_domain
from mlrelease.opsets.snapshot import Snapshot


def _ops(domain: Mapping[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(o["op"], int(o["since"])): o for o in domain.get("operators", [])}


def _type_sets(types: Any) -> Any:
    """Type constraints as sets: a type listed twice allows nothing more (ONNX Conv-11, 1.21)."""
    if not isinstance(types, Mapping):
        return types
    return {param: sorted(set(allowed)) for param, allowed in types.items()}


def _repeated(op: Mapping[str, Any]) -> list[str]:
    """``T: tensor(float16)`` for each type a constraint lists more than once."""
    types = op.get("types")
    if not isinstance(types, Mapping):
        return []
    return [
        f"{param}: {t}"
        for param, allowed in sorted(types.items())
        for t in sorted(set(allowed))
        if list(allowed).count(t) > 1
    ]


def _changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    old = {**old, "types": _type_sets(old.get("types"))}
    new = {**new, "types": _type_sets(new.get("types"))}
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
        problems += _declared_problems(name, new)
        if old is None:
            facts.append(
                f"{name}: new domain at opset {int(new['opset_version'])} with {len(_ops(new))} "
                "operator version(s)"
            )
            continue
        found, fact = _published_problems(name, old, new)
        problems += found
        facts.append(fact)
    return problems, facts


def _declared_problems(name: str, new: Mapping[str, Any]) -> list[str]:
    """The rules a domain keeps on its own: each type listed once in a constraint, and no
    since_version above the domain's opset version."""
    problems = []
    version = int(new["opset_version"])
    ops_new = _ops(new)
    for op, since in sorted(ops_new):
        repeated = _repeated(ops_new[(op, since)])
        if repeated:
            problems.append(
                f"{name}.{op}:{since}: a type constraint lists a type more than once "
                f"({'; '.join(repeated)}); list each allowed type once"
            )
        if since > version:
            problems.append(
                f"{name}.{op}:{since}: since_version {since} exceeds the domain's "
                f"opset version {version}"
            )
    return problems


def _published_problems(
    name: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> tuple[list[str], str]:
    """(problems, fact): the rules a domain keeps against its previous release (seed PR 186):
    the opset version never goes down and goes up with the inventory, a published operator
    version is never removed or changed, a new one comes after the published opset."""
    problems = []
    version, old_version = int(new["opset_version"]), int(old["opset_version"])
    ops_new, ops_old = _ops(new), _ops(old)
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
    fact = (
        f"{name}: opset {old_version} -> {version}, {len(added)} added, "
        f"{len(removed)} removed, {len(set(ops_new) & set(ops_old))} published "
        "signatures compared"
    )
    return problems, fact
