"""Whether the committed supported-operators index and its page are current: the decision of
``mlrelease ops index --check`` (:func:`check`), made here so the command only prints it.

The committed index is stale when a fresh run's index differs from it (the first difference
named, with a hint when the case is a floating-point borderline one), the page when it differs
from the page the fresh index renders; a known failure past its expiry date fails the check too.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.ops import index as index_mod
from mlrelease.ops import policy as policy_mod
from mlrelease.ops import service
from mlrelease.ops.config import OpsConfig


@dataclass
class Staleness:
    """What ``ops index --check`` found."""

    stale: list[str] = field(default_factory=list)
    """The index or the page differs from a fresh generation (or cannot be read)."""
    expired: list[str] = field(default_factory=list)
    """Known failures past their expiry date."""

    @property
    def ok(self) -> bool:
        """True when both files are current and no known failure has expired."""
        return not self.stale and not self.expired


def expired(policy: policy_mod.Policy, path: str, today: dt.date | None = None) -> list[str]:
    """The known failures of ``path`` past their expiry date, one line each."""
    today = today or dt.date.today()
    return [f"{k.label(path)} expired on {k.expiry} ({k.reason})" for k in policy.expired(today)]


def check(
    config: Config,
    ops: OpsConfig,
    policy: policy_mod.Policy,
    outcome: service.ConformanceRun,
    fresh: dict[str, Any],
    committed: dict[str, Any] | None,
    committed_error: str = "",
) -> Staleness:
    """The committed index (``committed``, or why it could not be read) and page against the
    ``fresh`` index of ``outcome``, and the known failures' expiry dates."""
    found = Staleness(expired=expired(policy, ops.known_failures))
    if committed_error:
        found.stale.append(committed_error)
    elif committed is None:
        found.stale.append(f"{ops.index} does not exist")
    else:
        difference = index_mod.first_index_difference(fresh, committed)
        if difference:
            found.stale.append(
                f"{ops.index} is stale: {difference}{_flip_hint(difference, outcome)}"
            )
    page = service.render_page(config, ops, fresh)
    page_path = config.path(ops.page)
    current_page = page_path.read_text(encoding="utf-8") if page_path.is_file() else ""
    page_difference = files.first_difference(page, current_page)
    if page_difference:
        found.stale.append(f"{ops.page} is stale ({page_difference})")
    return found


def _flip_hint(difference: str, outcome: service.ConformanceRun) -> str:
    for result in service.borderline(outcome.results):
        if f"case {result.case}:" in difference:
            return (
                f". {result.case} is within {result.tolerance_ratio:.2f}x of its tolerance "
                "here: floating point may round across the line on another CPU; consider "
                "a tolerance override in ci/tolerances.toml"
            )
    return ""
