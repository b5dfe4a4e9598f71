"""Judging IR versions and opsets against probed runtime limits. Pure: plain data in and out.

What a project ships is (a) what its exporters stamp, declared in ``[tool.mlrelease.compat]``
(``ir-version``, ``opsets``) or, when undeclared, what the pinned onnx stamps by default
(``onnx.helper.make_model``), and (b) what its models declare. Each is a :class:`Produced`,
checked against each runtime's :class:`~mlrelease.models.runtimes.RuntimeLimits`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from mlrelease.models.config import canonical_domain, display_domain
from mlrelease.models.runtimes import RuntimeLimits


@dataclass(frozen=True)
class Produced:
    """An IR version and opsets that something produces or declares."""

    source: str
    """Who: "tool.mlrelease.compat", "onnx 1.23.2 defaults (onnx.helper.make_model)", a model."""
    ir_version: int
    opsets: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CompatFinding:
    ok: bool
    message: str


def judge(produced: Produced, limits: RuntimeLimits) -> list[CompatFinding]:
    """Whether ``limits``' runtime loads what ``produced`` stamps; one finding per fact."""
    out: list[CompatFinding] = []
    who, rt = produced.source, limits.label
    if limits.ir is None:
        reason = limits.refusals.get("ir-baseline", "no probe model loaded")
        return [CompatFinding(False, f"{rt} loads no model at all ({reason})")]
    low, high = limits.ir
    if produced.ir_version > high:
        why = limits.refusals.get("ir", "")
        out.append(
            CompatFinding(
                False,
                f"{who} stamps IR {produced.ir_version}; {rt} loads IR <= "
                f"{high}" + (f' (it says: "{why}")' if why else ""),
            )
        )
    elif produced.ir_version < low:
        out.append(
            CompatFinding(False, f"{who} stamps IR {produced.ir_version}; {rt} loads IR >= {low}")
        )
    else:
        out.append(
            CompatFinding(True, f"{who}: IR {produced.ir_version} loads on {rt} (IR {low}-{high})")
        )
    for domain, version in sorted(produced.opsets.items()):
        name = display_domain(domain)
        if domain not in limits.opsets:
            out.append(CompatFinding(True, f"{who}: {name} opset {version}: not probed on {rt}"))
            continue
        bounds = limits.opsets[domain]
        if bounds is None:
            out.append(
                CompatFinding(
                    True,
                    f"{who}: {name} opset {version}: {rt} does not validate "
                    f"{name} versions (a custom domain needs its own kernels)",
                )
            )
        elif version > bounds[1]:
            why = limits.refusals.get(domain, "")
            out.append(
                CompatFinding(
                    False,
                    f"{who} stamps {name} opset {version}; {rt} loads "
                    f"{name} opset <= {bounds[1]}" + (f' (it says: "{why}")' if why else ""),
                )
            )
        elif version < bounds[0]:
            out.append(
                CompatFinding(
                    False,
                    f"{who} stamps {name} opset {version}; {rt} loads {name} opset >= {bounds[0]}",
                )
            )
        else:
            out.append(
                CompatFinding(
                    True, f"{who}: {name} opset {version} loads on {rt} ({bounds[0]}-{bounds[1]})"
                )
            )
    return out


def declared(ir_version: int | None, opsets: Mapping[str, int], defaults: Produced) -> Produced:
    """What the project's exporters stamp: its declaration, completed by the onnx defaults."""
    if ir_version is None and not opsets:
        return defaults
    merged = {canonical_domain(d): v for d, v in opsets.items()} or dict(defaults.opsets)
    return Produced(
        "tool.mlrelease.compat",
        defaults.ir_version if ir_version is None else ir_version,
        merged,
    )


@dataclass(frozen=True)
class OnnxFacts:
    """What the installed onnx says about itself."""

    version: str
    ir_version: int
    """``onnx.IR_VERSION``."""
    opset: int
    """``onnx.defs.onnx_opset_version()``."""
    ml_opset: int
    made: Produced
    """What ``onnx.helper.make_model`` really stamps on a model with no explicit versions."""
    version_table: list[tuple[Any, ...]]
    """``onnx.helper.VERSION_TABLE``: (release, IR, ai.onnx, ai.onnx.ml, ai.onnx.training?)."""


def version_table_problems(facts: OnnxFacts) -> list[str]:
    """Inconsistencies between onnx's defaults and its own release version table."""
    problems = []
    release = Version(facts.version)
    rows = [
        row
        for row in facts.version_table
        if Version(str(row[0])).release[:2] == release.release[:2]
    ]
    where = "onnx.helper.VERSION_TABLE"
    if not rows:
        problems.append(
            f"{where} has no row for onnx {release.major}.{release.minor} "
            f"(the installed {facts.version}); tools that map opsets to IR "
            "versions cannot place its default opset"
        )
    else:
        row = max(rows, key=lambda r: Version(str(r[0])))
        if int(row[1]) != facts.ir_version:
            problems.append(
                f"{where} row {row[0]} says IR {row[1]}, but onnx {facts.version} "
                f"has IR_VERSION {facts.ir_version}"
            )
        if int(row[2]) != facts.opset:
            problems.append(
                f"{where} row {row[0]} says ai.onnx opset {row[2]}, but onnx "
                f"{facts.version} defaults to opset {facts.opset}"
            )
        if len(row) > 3 and int(row[3]) != facts.ml_opset:
            problems.append(
                f"{where} row {row[0]} says ai.onnx.ml opset {row[3]}, but onnx "
                f"{facts.version} defaults to {facts.ml_opset}"
            )
    if not any(
        int(r[1]) == facts.ir_version and int(r[2]) == facts.opset for r in facts.version_table
    ):
        problems.append(
            f"{where} has no release pairing the default IR {facts.ir_version} "
            f"with the default opset {facts.opset}"
        )
    made = facts.made
    if made.ir_version != facts.ir_version or made.opsets.get("") != facts.opset:
        problems.append(
            f"onnx.helper.make_model stamps IR {made.ir_version} / opset "
            f"{made.opsets.get('')}, not onnx's own defaults IR {facts.ir_version} / "
            f"opset {facts.opset}"
        )
    return problems


def pins(pyproject: Mapping[str, Any], package: str) -> list[tuple[str, str]]:
    """Where ``package`` is pinned in pyproject.toml: (where, specifier) pairs."""
    found: list[tuple[str, str]] = []

    def scan(where: str, entries: Iterable[Any]) -> None:
        for entry in entries:
            if not isinstance(entry, str):
                continue  # {include-group = ...}
            try:
                req = Requirement(entry)
            except InvalidRequirement:
                continue
            if req.name.lower().replace("_", "-") == package and str(req.specifier):
                found.append((where, str(req.specifier)))

    project = pyproject.get("project", {})
    scan("project.dependencies", project.get("dependencies", []))
    for extra, entries in project.get("optional-dependencies", {}).items():
        scan(f"project.optional-dependencies.{extra}", entries)
    for group, entries in pyproject.get("dependency-groups", {}).items():
        scan(f"dependency-groups.{group}", entries)
    return found


def pin_problems(
    pyproject: Mapping[str, Any], package: str, installed: str
) -> tuple[list[str], list[str]]:
    """(problems, notes): the installed version must satisfy every pin of ``package``."""
    from packaging.specifiers import SpecifierSet

    problems, notes = [], []
    found = pins(pyproject, package)
    for where, spec in found:
        if Version(installed) not in SpecifierSet(spec):
            problems.append(
                f"{package} {installed} is installed but {where} pins {package}{spec}: "
                "the verdict would be about the wrong onnx; install the pinned one"
            )
        else:
            notes.append(f"{package} {installed} ({where}: {package}{spec})")
    if not found:
        notes.append(f"{package} is not pinned in pyproject.toml; judged the installed {installed}")
    return problems, notes


def model_produced(name: str, ir_version: int, imports: Sequence[tuple[str, int]]) -> Produced:
    """A model's declaration (its opset imports, first one per domain)."""
    opsets: dict[str, int] = {}
    for domain, version in imports:
        opsets.setdefault(canonical_domain(domain), version)
    return Produced(name, ir_version, opsets)


def onnx_facts() -> OnnxFacts:
    """Ask the installed onnx what it is and what ``helper.make_model`` really stamps."""
    import onnx
    from onnx import TensorProto, defs, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "defaults", [x], [y])
    made = helper.make_model(graph)
    produced = model_produced(
        f"onnx {onnx.__version__} defaults (onnx.helper.make_model)",
        made.ir_version,
        [(o.domain, o.version) for o in made.opset_import],
    )
    return OnnxFacts(
        version=onnx.__version__,
        ir_version=onnx.IR_VERSION,
        opset=defs.onnx_opset_version(),
        ml_opset=defs.onnx_ml_opset_version(),
        made=produced,
        version_table=[tuple(row) for row in helper.VERSION_TABLE],
    )
