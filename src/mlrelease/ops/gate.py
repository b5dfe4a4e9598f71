"""The ``ops_index`` gate: the committed supported-operators index is current and honest."""

from __future__ import annotations

import datetime as dt
import shutil
from typing import Any

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.gates import Context, GateResult, Needs, gate
from mlrelease.ops import agreement, service, source_index
from mlrelease.ops import diff as diff_mod
from mlrelease.ops import environment as locales
from mlrelease.ops import index as index_mod
from mlrelease.ops import policy as policy_mod
from mlrelease.ops.config import OpsConfig


def ops_index_needs(config: Config) -> Needs:
    """The locales the operator cases need: a missing one leaves its cases unmeasured (a
    note, not a problem), unless ``localedef`` can compile it when a run needs it."""
    needs = Needs()
    for locale in locales.REQUIRED_LOCALES:
        if locales.has_locale(locale):
            needs.found.append(f"locale {locale}")
        elif shutil.which("localedef"):
            needs.found.append(f"locale {locale}: compiled into the cache when a run needs it")
        else:
            needs.notes.append(
                f"locale {locale} missing: its cases are not measured here; {locales.INSTALL_HINT}"
            )
    return needs


@gate(
    "ops_index",
    "The supported-operators index (`docs/indices/supported_ops.json` and its page) equals a "
    "fresh conformance run (every changed operator version named; one that got worse is a "
    "regression to explain), no known failure has expired, no case that passed in the previous "
    "release's index fails, and no case on which backends disagree (one passes, another gives "
    "a wrong result) goes unexplained, unless `ci/known_failures.toml` lists it. When "
    "`[tool.mlrelease.ops] source` declares the index source (a callable yielding (operator, "
    "status, notes) rows, run in a subprocess): the index and page equal a fresh run of it, "
    "every row is valid, and no operator of the previous release's index is gone without a "
    "`[[tool.mlrelease.ops.dropped]]` decision.",
    extra="ops",
    preflight=ops_index_needs,
)
def check_ops_index(ctx: Context) -> GateResult:
    config = ctx.config
    ops = service.ops_config(config)
    if ops.source:
        return _check_source(ctx, ops)
    policy = policy_mod.load(config.root, ops.tolerances, ops.known_failures)
    failures: list[str] = [
        f"{k.label(ops.known_failures)} expired on {k.expiry}: fix the failure or renew the "
        f"entry ({k.reason})"
        for k in policy.expired(dt.date.today())
    ]
    cases = service.load_cases(config, ops)
    outcome = service.run(config, ops, cases, policy=policy, jobs=service.default_jobs(ops))
    results_path = ctx.evidence_path("ops_index", "results.json")
    service.write_results(results_path, outcome)
    committed = service.read_committed(config, ops)
    fresh = service.build_index(outcome, policy, committed, ops.domains)
    fresh_path = ctx.evidence_path("ops_index", "supported_ops.json")
    fresh_path.write_text(index_mod.dumps(fresh), encoding="utf-8")
    evidence = [ctx.display(results_path), ctx.display(fresh_path)]
    details: list[str] = outcome.environment_notes()
    _against_committed(config, ops, policy, committed, fresh, failures, details)
    new_versions = _against_previous(config, ops, policy, fresh, failures, details)
    disagree, explained = agreement.agreement_findings(fresh, policy, new_versions)
    failures += disagree
    details += explained + _housekeeping(ops, policy, outcome, committed)
    totals = ", ".join(
        f"{fresh['totals'][b]['cases']['pass']}/{sum(fresh['totals'][b]['cases'].values())} "
        f"cases pass on {b}"
        for b in outcome.measured
    )
    if failures:
        return GateResult.failed(failures[0], details=failures[1:] + details, evidence=evidence)
    # An environment gap is no verdict, but it is said where it is seen: in the summary.
    gaps = [n for n in outcome.environment_notes() if "not measured here" in n]
    return GateResult.passed(
        f"{ops.index} is current ({totals})" + "".join(f"; {gap}" for gap in gaps),
        details=details,
        evidence=evidence,
    )


def _against_committed(
    config: Config,
    ops: OpsConfig,
    policy: policy_mod.Policy,
    committed: dict[str, Any] | None,
    fresh: dict[str, Any],
    failures: list[str],
    details: list[str],
) -> None:
    """The committed index and page against the fresh run: a version that got worse is a
    regression to explain, any other change makes them stale."""
    regenerate = f"run `{ops.regenerate_command}` and commit the result"
    page_is_checked = True
    if committed is None:
        failures.append(f"{ops.index} does not exist; {regenerate}")
    else:
        changed = diff_mod.version_changes(committed, fresh)
        worse = [c for c in changed if any(policy.known(k, b) is None for k, b in c.worse)]
        if worse:
            failures.append(
                f"{len(worse)} operator version(s) got worse than the committed {ops.index}, a "
                f"regression to explain (regenerating would hide it): "
                + "; ".join(f"{c.label}: {c.text}" for c in worse[:5])
                + f". Fix the backend, or list each failing case in {ops.known_failures} "
                "with a reason and an expiry"
            )
            details += [f"Got worse: {c.label}: {c.text}" for c in worse[5:]]
        rest = [c for c in changed if c not in worse]
        if rest:
            failures.append(
                f"{ops.index} is stale: {len(rest)} operator version(s) changed: "
                + "; ".join(f"{c.label}: {c.text}" for c in rest[:5])
                + (f"; and {len(rest) - 5} more (listed below)" if len(rest) > 5 else "")
                + f"; {regenerate}"
            )
            details += [f"Changed: {c.label}: {c.text}" for c in rest[5:]]
        difference = None if changed else index_mod.first_index_difference(fresh, committed)
        if difference:
            failures.append(f"{ops.index} is stale: {difference}; {regenerate}")
        if worse:  # the page follows the index: its staleness is the same regression
            page_is_checked = False
    page_path = config.path(ops.page)
    page = service.render_page(config, ops, fresh)
    current_page = page_path.read_text(encoding="utf-8") if page_path.is_file() else ""
    page_difference = files.first_difference(page, current_page) if page_is_checked else None
    if page_difference:
        failures.append(f"{ops.page} is stale ({page_difference}); {regenerate}")


def _against_previous(
    config: Config,
    ops: OpsConfig,
    policy: policy_mod.Policy,
    fresh: dict[str, Any],
    failures: list[str],
    details: list[str],
) -> set[str] | None:
    """The previous release's index against the fresh run: a case that passed there and fails
    now, unlisted, is a regression. Returns the operator versions new since then."""
    previous = diff_mod.load_previous(
        config.root, ops.previous_index, ops.index, config.version, config.names
    )
    if previous is None:
        details.append(
            "No previous release index to compare with (no earlier release tag "
            "holds one); regressions not checked."
        )
        return None
    label, old = previous
    changes = diff_mod.diff(old, fresh, lambda c, b: policy.known(c, b) is not None)
    details += [f"Since {label}: {line}" for line in changes.lines()] or [
        f"No operator changes since {label}."
    ]
    if changes.regressions:
        failures.append(
            f"{len(changes.regressions)} case(s) passed in {label} and fail now without a "
            f"known-failure entry: {'; '.join(changes.regressions[:5])}"
        )
    return set(changes.added) | set(changes.first_measured)


def _housekeeping(
    ops: OpsConfig,
    policy: policy_mod.Policy,
    outcome: service.ConformanceRun,
    committed: dict[str, Any] | None,
) -> list[str]:
    """Known failures that are no longer needed, and backends this machine could not run."""
    notes = []
    rows = ((r.case, r.backend, r.verdict.ok) for r in outcome.results)
    for entry, why in policy.unneeded(rows, set(outcome.measured)):
        notes.append(f"Remove {entry.label(ops.known_failures)}: {why}.")
    for name, reason in outcome.skipped.items():
        kept = committed is not None and index_mod.backend_header(committed, name) is not None
        column = "its column is kept as committed" if kept else "the index has no column for it"
        notes.append(f"Backend `{name}` not run here: {reason} ({column}).")
    return notes


def _check_source(ctx: Context, ops: OpsConfig) -> GateResult:
    """A declared source's index: no bad row, the committed index and page equal a fresh run
    of the source, and no operator of the previous release's index is gone."""
    config = ctx.config
    try:
        fresh = source_index.run(config, ops)
        committed = source_index.committed(config, ops)
    except UserError as exc:  # the adopter's source or file: a verdict, not a broken gate
        return GateResult.failed(str(exc))
    fresh_path = ctx.evidence_path("ops_index", "supported_ops.json")
    fresh_path.write_text(source_index.dumps(fresh.index), encoding="utf-8")
    evidence = [ctx.display(fresh_path)]
    regenerate = f"run `{ops.regenerate_command}` and commit the result"
    failures = list(fresh.problems)
    details: list[str] = []
    if committed is None:
        failures.append(f"{ops.index} does not exist; {regenerate}")
    elif committed != fresh.index:
        lines = source_index.diff(committed, fresh.index).lines() or ["its source or layout"]
        failures.append(f"{ops.index} is stale ({'; '.join(lines[:5])}); {regenerate}")
    page_path = config.path(ops.page)
    current = page_path.read_text(encoding="utf-8") if page_path.is_file() else ""
    if difference := files.first_difference(fresh.page, current):
        failures.append(f"{ops.page} is stale ({difference}); {regenerate}")
    previous = diff_mod.load_previous(
        config.root,
        ops.previous_index,
        ops.index,
        config.version,
        config.names,
        loads=source_index.loads,
    )
    if previous is None:
        details.append("No previous release index to compare with; removals not checked.")
    else:
        label, old = previous
        changes = source_index.diff(old, fresh.index)
        details += [f"Since {label}: {line}" for line in changes.lines()]
        details += [
            f"Dropped by decision: {d.operator} ({d.reason}; {d.decision})"
            for d in ops.dropped
            if d.operator in changes.removed
        ]
        if gone := source_index.unwaived(changes, ops):
            failures.append(source_index.removal_message(gone, label))
    if failures:
        return GateResult.failed(failures[0], details=failures[1:] + details, evidence=evidence)
    return GateResult.passed(
        f"{ops.index} is current: {len(fresh.index['operators'])} operators from {ops.source}",
        details=details,
        evidence=evidence,
    )


GATES = (check_ops_index,)
