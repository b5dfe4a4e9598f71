"""The bisect's journal: what each finished step found, one entry per line, and the facts the
planner reads back from it (pure: entries in, :class:`~.state.Facts` out).

The journal lives in the clone's git folder (``mlrelease/bisect/<key>.jsonl``, the key hashing
the two commits, the profile, the row and the design), written through
:func:`mlrelease.edges.journal.append_entry`: a killed bisect loses at most the step it was in,
and running the same command again resumes from the last finished one. A finished bisect's
journal stays, so running it again answers at once from the same facts.

A rounds entry holds the three sides of a step (``reference``, ``subject``, ``bad_side`` and
their rounds' medians ``good``, ``other``, ``bad``). A journal written before steps were
three-way has rounds entries without ``bad_side``: its builds, installs and endpoints are used
as they are, and those rounds are counted (:attr:`~.state.Facts.two_way`) and not used: their
steps are timed again, three-way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mlrelease.perf.bisect.state import EndpointFacts, EndpointRow, Facts, RowTest

BUILD, PREPARED, ENDPOINTS, ROUNDS, FAILED = "build", "prepared", "endpoints", "rounds", "failed"


def replay(entries: Iterable[Mapping[str, Any]]) -> Facts:
    """The facts of a journal's entries, in order (a later round extends the earlier ones)."""
    facts = Facts()
    for entry in entries:
        kind = entry.get("kind")
        if kind == BUILD:
            facts.built[entry["commit"]] = entry.get("error", "")
        elif kind == PREPARED:
            facts.prepared[entry["side"]] = entry.get("error", "")
        elif kind == ENDPOINTS:
            facts.endpoints = endpoints_of(entry)
        elif kind == ROUNDS and "bad_side" not in entry:  # before the three-way steps
            facts.two_way += len(entry.get("good", []))
        elif kind == ROUNDS:
            trio = (entry["reference"], entry["subject"], entry["bad_side"])
            good, other, bad = facts.rounds.get(trio, ([], [], []))
            facts.rounds[trio] = (
                [*good, *entry["good"]],
                [*other, *entry["other"]],
                [*bad, *entry["bad"]],
            )
        elif kind == FAILED:
            facts.failed[(entry["reference"], entry["subject"])] = entry.get("error", "")
    return facts


def endpoints_of(entry: Mapping[str, Any]) -> EndpointFacts:
    rows = tuple(
        EndpointRow(
            row["key"],
            row["kind"],
            row.get("message", ""),
            tuple(RowTest(**test) for test in row.get("tests", [])),
            dict(row.get("good", {})),
            dict(row.get("bad", {})),
        )
        for row in entry.get("rows", [])
    )
    return EndpointFacts(rows, entry.get("summary", ""))


def endpoints_entry(facts: EndpointFacts) -> dict[str, Any]:
    rows = [
        {
            "key": row.key,
            "kind": row.kind,
            "message": row.message,
            "tests": [test.__dict__ for test in row.tests],
            "good": dict(row.good),
            "bad": dict(row.bad),
        }
        for row in facts.rows
    ]
    return {"kind": ENDPOINTS, "summary": facts.summary, "rows": rows}
