"""Step 3: opset imports and IR version agree with each other and with what the model uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mlrelease.models.config import display_domain
from mlrelease.models.steps.facts import ir_features
from mlrelease.models.steps.state import State, first_line, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict

if TYPE_CHECKING:
    from onnx import ModelProto


def opset_import_problems(model: ModelProto) -> tuple[list[str], list[str], dict[str, int]]:
    """Step 3's rules: (problems, warnings, imports).

    Problems: a node's domain not imported, a domain imported twice (or at another version by a
    function), an IR version older than a feature the model uses, or newer than onnx knows.
    Warning: an IR version older than the one onnx's VERSION_TABLE pairs with the opsets (runtimes
    tolerate it today; it is still an inconsistency a strict consumer may refuse).
    """
    problems, imports = _domain_problems(model)
    ir_problems, warnings = _ir_version_problems(model, imports)
    return problems + ir_problems, warnings, imports


def _domain_problems(model: ModelProto) -> tuple[list[str], dict[str, int]]:
    """(problems, imports): each domain imported once, at one version by the model and its
    functions, and every node's domain imported (or the node a local function)."""
    problems: list[str] = []
    imports: dict[str, int] = {}
    for entry in model.opset_import:
        domain = entry.domain if entry.domain != "ai.onnx" else ""
        if domain in imports:
            problems.append(
                f"domain {display_domain(domain)} is imported twice (opset {imports[domain]} and "
                f"{entry.version}); a model must import one version of each domain"
            )
        else:
            imports[domain] = entry.version
    local = {(f.domain, f.name) for f in model.functions}
    for f in model.functions:
        for entry in f.opset_import:
            domain = entry.domain if entry.domain != "ai.onnx" else ""
            if domain in imports and imports[domain] != entry.version:
                problems.append(
                    f"function {f.domain}::{f.name} imports {display_domain(domain)} opset "
                    f"{entry.version} but the model imports opset {imports[domain]}: mixed "
                    "versions of one domain"
                )

    def nodes(graph: Any, where: str) -> None:
        for node in graph.node:
            domain = node.domain if node.domain != "ai.onnx" else ""
            if domain not in imports and (node.domain, node.op_type) not in local:
                problems.append(
                    f"{where}: node '{node.name or node.op_type}' ({node.op_type}) "
                    f"uses domain {display_domain(domain)}, which the model does not "
                    "import"
                )
            for attr in node.attribute:
                if attr.HasField("g"):
                    nodes(attr.g, f"{where} > {node.op_type}.{attr.name}")
                for g in attr.graphs:
                    nodes(g, f"{where} > {node.op_type}.{attr.name}")

    nodes(model.graph, "graph")
    return problems, imports


def _ir_version_problems(model: ModelProto, imports: dict[str, int]) -> tuple[list[str], list[str]]:
    """(problems, warnings): the IR version against the features the model uses, the onnx
    installed here, and the IR version onnx's VERSION_TABLE pairs with the imported opsets."""
    import onnx
    from onnx import helper

    problems: list[str] = []
    warnings: list[str] = []
    for ir, feature in ir_features(model):
        if model.ir_version < ir:
            problems.append(
                f"the model declares IR {model.ir_version} but uses {feature}, "
                f"which needs IR >= {ir}"
            )
    if model.ir_version > onnx.IR_VERSION:
        problems.append(
            f"IR {model.ir_version} is newer than onnx {onnx.__version__} knows "
            f"(IR {onnx.IR_VERSION})"
        )
    if imports:
        try:
            paired = helper.find_min_ir_version_for(
                [helper.make_opsetid(d, v) for d, v in imports.items()], ignore_unknown=True
            )
        except Exception as exc:  # an opset newer than this onnx knows
            problems.append(
                f"cannot map the opsets to an IR version with onnx "
                f"{onnx.__version__}: {first_line(exc)}"
            )
        else:
            if model.ir_version < paired:
                opsets = ", ".join(f"{display_domain(d)} {v}" for d, v in imports.items())
                warnings.append(
                    f"IR {model.ir_version} is older than IR {paired}, which onnx's VERSION_TABLE "
                    f"pairs with opsets {opsets}; no IR feature the model uses needs more, but a "
                    "strict consumer may refuse it"
                )
    return problems, warnings


def step_opset_imports(state: State) -> StepVerdict:
    assert state.header is not None
    problems, warnings, imports = opset_import_problems(state.header)
    shown = ", ".join(f"{display_domain(d)} {v}" for d, v in imports.items()) or "none"
    if problems:
        return verdict("opset_imports", StepStatus.FAIL, problems[0], problems + warnings)
    if warnings:
        return verdict("opset_imports", StepStatus.WARN, warnings[0], warnings)
    return verdict(
        "opset_imports",
        StepStatus.PASS,
        f"IR {state.header.ir_version}, opsets {shown}: consistent",
    )
