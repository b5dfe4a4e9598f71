"""Agreement with a peer runner (onnx's ``BackendTest`` under pytest), every difference explained.

Pure: our case results, the peer's per-case outcomes (from its JUnit XML) and the cases' facts
in; counts, a confusion table and the disagreements grouped by their explanation out. A
disagreement no rule explains is returned as such, so the benchmark script can refuse it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mlrelease.ops.policy import Policy
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict


@dataclass(frozen=True)
class PeerOutcome:
    """One test of the peer: ``pass``, ``failure``, ``error`` or ``skipped``, and its message."""

    outcome: str
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == "pass"


def read_junit(text: str, suffix: str = "_cpu") -> dict[str, PeerOutcome]:
    """Per-case outcomes of onnx's BackendTest from pytest's JUnit XML (``test_abs_cpu``)."""
    root = ET.fromstring(text)
    outcomes = {}
    for testcase in root.iter("testcase"):
        name = testcase.get("name", "")
        if not name.endswith(suffix):
            continue
        child = next((c for c in testcase if c.tag in ("failure", "error", "skipped")), None)
        if child is None:
            outcomes[name[: -len(suffix)]] = PeerOutcome("pass")
        else:
            outcomes[name[: -len(suffix)]] = PeerOutcome(child.tag, child.get("message") or "")
    return outcomes


@dataclass(frozen=True)
class CaseFacts:
    """What the rules need to know about a case beyond its result."""

    random_ops: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    key: str
    title: str
    why: str
    applies: Callable[[CaseResult, PeerOutcome, CaseFacts, Policy], bool]


RULES = [
    Rule(
        "numpy-scalar-inputs",
        "NumPy scalars in the case data",
        "onnx's generators store some inputs as NumPy scalars (`np.float32(...)`) where the "
        "model takes 0-d tensors; the peer hands them to onnxruntime as they are, which its "
        "Python binding refuses (`Unable to handle object of type <class 'numpy.float32'>`). "
        "mlrelease feeds them as 0-d arrays, as the same data serialized to a TensorProto would "
        "be, and the operator passes.",
        lambda r, p, f, pol: "Unable to handle object of type <class 'numpy." in p.message,
    ),
    Rule(
        "peer-comparison",
        "The peer's comparison cannot read the output",
        "onnx's `Runner.assert_similar_outputs` recurses into a sequence output element by "
        "element and calls `len()` on a 0-d tensor (`TypeError: Unable to compare expected "
        "type`); mlrelease compares sequences element-wise and the outputs are equal.",
        lambda r, p, f, pol: "Unable to compare expected type" in p.message,
    ),
    Rule(
        "random-ops",
        "Random operators",
        "ONNX leaves the values of random operators (and of Dropout in training mode) to each "
        "backend's generator; the expected outputs are one draw of NumPy's. The peer compares "
        "the values, so it fails whenever the generators differ; mlrelease compares the "
        "outputs' count, shapes and dtypes.",
        lambda r, p, f, pol: bool(f.random_ops),
    ),
    Rule(
        "tolerance-override",
        "Tolerance overridden in ci/tolerances.toml",
        "The peer judges every case by the case's own tolerance (rtol=1e-3); an override in "
        "`ci/tolerances.toml` applies here, with the reason given there.",
        lambda r, p, f, pol: pol.override_for(r.case, r.backend) is not None,
    ),
    Rule(
        "ir-restamp",
        "Re-stamped to the minimum IR version",
        "The peer runs the model as stamped and the runtime refuses its IR version; mlrelease "
        "re-stamps it to the lowest IR version its opsets allow to measure the operator, and "
        "reports the IR limit on its own.",
        lambda r, p, f, pol: r.restamped_from is not None,
    ),
]


def compare(
    ours: Mapping[str, CaseResult],
    peer: Mapping[str, PeerOutcome],
    facts: Mapping[str, CaseFacts],
    policy: Policy,
) -> dict[str, Any]:
    """Agreement on pass / not pass over the cases both ran, disagreements explained."""
    common = sorted(set(ours) & set(peer))
    confusion: dict[str, Counter[str]] = {v.value: Counter() for v in ConformanceVerdict}
    groups: dict[str, list[str]] = {}
    unexplained: list[dict[str, str]] = []
    for name in common:
        result, outcome = ours[name], peer[name]
        confusion[result.verdict.value][outcome.outcome] += 1
        if result.verdict.ok == outcome.ok:
            continue
        fact = facts.get(name, CaseFacts())
        rule = next((r for r in RULES if r.applies(result, outcome, fact, policy)), None)
        if rule is None:
            unexplained.append(
                {
                    "case": name,
                    "ours": result.verdict.value,
                    "ours_message": result.message,
                    "peer": outcome.outcome,
                    "peer_message": outcome.message[:300],
                }
            )
        else:
            groups.setdefault(rule.key, []).append(name)
    explained = [
        {"key": r.key, "title": r.title, "why": r.why, "cases": groups[r.key]}
        for r in RULES
        if r.key in groups
    ]
    if unexplained:
        explained.append(
            {
                "key": "unexplained",
                "title": "Unexplained",
                "why": "No rule explains these; investigate before publishing.",
                "cases": [u["case"] for u in unexplained],
            }
        )
    disagree = sum(len(g["cases"]) for g in explained)
    return {
        "cases": len(common),
        "agree": len(common) - disagree,
        "disagree": disagree,
        "confusion": {k: dict(sorted(v.items())) for k, v in confusion.items() if v},
        "explained": explained,
        "unexplained": unexplained,
    }


# --- the cross-backend agreement rule of the ops_index gate -------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """A case one backend passes while another gives a wrong result."""

    case: str
    op: str
    """The operator version: ``ai.onnx Celu-12``."""
    passing: tuple[str, ...]
    wrong: tuple[str, ...]

    def text(self) -> str:
        return (
            f"{self.case} ({self.op}): {', '.join(self.passing)} pass, "
            f"{', '.join(self.wrong)} wrong result"
        )


def disagreements(index: Mapping[str, Any]) -> list[Disagreement]:
    """Every case of ``index`` on which backends that ran it disagree about the result.

    Only *pass* against *wrong result* counts: a backend without the kernel, or refusing the
    opset, has no opinion on the operator's semantics.
    """
    found = []
    for op in index.get("ops", []):
        for version in op.get("versions", []):
            label = f"{op.get('domain')} {op.get('op_type')}-{version.get('since_version')}"
            for group in ("cases", "expanded_cases"):
                for case, row in sorted(version.get(group, {}).items()):
                    passing = tuple(b for b, v in row.items() if v == ConformanceVerdict.PASS.value)
                    wrong = tuple(
                        b for b, v in row.items() if v == ConformanceVerdict.WRONG_RESULT.value
                    )
                    if passing and wrong:
                        found.append(Disagreement(case, label, passing, wrong))
    return found


def agreement_findings(
    index: Mapping[str, Any], policy: Policy, new_versions: set[str] | None
) -> tuple[list[str], list[str]]:
    """(failures, details) of the agreement rule.

    A disagreement fails unless the known-failures file explains it (reason and expiry). In
    an operator version that is new since the previous release (``new_versions``, labels such
    as ``ai.onnx Celu-12``; None when there is no previous release), it is named a suspected
    reference bug: the expected outputs and the reference evaluator come from the same new
    reference implementation, so only another backend can contradict them (ONNX 1.7's Dropout
    and Celu shipped wrong references that way).
    """
    where = policy.known_failures_path
    failures: list[str] = []
    details: list[str] = []
    unexplained: list[Disagreement] = []
    found = disagreements(index)
    for listed in policy.disagreements:
        if not any(all(listed.matches(d.case, b) for b in d.wrong) for d in found):
            details.append(f"Remove {listed.label(where)}: no case it matches disagrees any more.")
    for d in found:
        entry = policy.explained(d.case, d.wrong)
        if entry is not None:
            details.append(f"Backends disagree on {d.text()}; explained: {entry.label(where)}.")
        else:
            unexplained.append(d)
    suspects = [d for d in unexplained if new_versions is not None and d.op in new_versions]
    for d in suspects:
        failures.append(
            f"suspected reference bug in the new operator version {d.op}: {d.text()}. The "
            "expected outputs come from the new reference implementation; check it against "
            f"an independent implementation, then fix it or list the case in {where} "
            "([[disagreement]] with a reason and an expiry)"
        )
    rest = [d for d in unexplained if d not in suspects]
    if rest:
        failures.append(
            f"{len(rest)} case(s) where backends disagree (one passes, another gives a wrong "
            f"result) without an entry in {where}: {'; '.join(d.text() for d in rest[:5])}"
            + (f"; and {len(rest) - 5} more" if len(rest) > 5 else "")
            + ". Find which backend is wrong; fix it, or list each case as a [[disagreement]] "
            "with a reason and an expiry"
        )
        details += [f"Backends disagree on {d.text()}." for d in rest[5:]]
    return failures, details
