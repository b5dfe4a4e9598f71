"""A paired run's results as a summary line, Markdown and JUnit XML (pure).

Test ids, failure messages and resolver output are third-party text: every one goes through
:func:`code` (an inline code span that no backtick in the text can close) or :func:`block` (a
fence longer than any backtick run inside), and table cells through :mod:`mlrelease.markdown`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from mlrelease import markdown
from mlrelease.downstream.known import INSTALL
from mlrelease.downstream.results import (
    COMPARED,
    NOT_INSTALLED,
    ConsumerResult,
    Judgement,
    Regression,
    RunResults,
    totals,
)
from mlrelease.downstream.verdicts import PairVerdict, counts, is_test, levels

COLUMNS = (
    PairVerdict.REGRESSED,
    PairVerdict.SPURIOUS,
    PairVerdict.FIXED,
    PairVerdict.BROKEN,
    PairVerdict.PASSED,
    PairVerdict.SKIPPED,
)


def code(text: str) -> str:
    """``text`` as one inline code span, safe whatever backticks it holds."""
    text = " ".join(text.split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def block(text: str) -> list[str]:
    """``text`` as a fenced block no line inside can close."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *text.splitlines(), fence]


def who(r: ConsumerResult) -> str:
    return ", ".join(x for x in (r.owner, r.repository) if x) or "owner not configured"


def status(r: ConsumerResult) -> str:
    if r.not_verified:
        sides = " and ".join(r.not_verified)
        optional = ", optional" if r.optional else ""
        return f"not verified ({sides}{optional})"
    if r.status == NOT_INSTALLED:
        sides = " and ".join(sorted(r.install))
        return f"could not install ({'both sides' if len(r.install) == 2 else sides})"
    if r.status == COMPARED:
        return "compared" + (" (cached)" if r.cached else "")
    return f"error: {r.error.splitlines()[0] if r.error else '?'}"


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def summary(run: RunResults, judgement: Judgement) -> str:
    """One line, in one unit each: consumers, regressed tests, module- or run-level and install
    regressions (blocking and accepted), the tests' other verdicts, consumers not verified."""
    t = totals(run.results)
    parts = [_plural(len(run.results), "consumer")]
    found = [*judgement.blocking, *judgement.accepted]
    kinds = {
        "regressed test": [f for f in found if is_test(f.nodeid)],
        "install regression": [f for f in found if f.nodeid == INSTALL],
        "module/run-level regression": [
            f for f in found if not is_test(f.nodeid) and f.nodeid != INSTALL
        ],
    }
    for what, these in kinds.items():
        if these or what == "regressed test":
            known = sum(1 for f in these if f.match.entry is not None)
            parts.append(_plural(len(these), what) + (f" ({known} known)" if known else ""))
    for v in (PairVerdict.SPURIOUS, PairVerdict.FIXED, PairVerdict.BROKEN, PairVerdict.PASSED):
        parts.append(f"{t[v.value]} {v.value}")
    if t["not verified"]:
        parts.append(f"{t['not verified']} not verified")
    if t.get(NOT_INSTALLED):
        parts.append(f"{t[NOT_INSTALLED]} could not install")
    if t.get("error"):
        parts.append(f"{t['error']} error")
    return ", ".join(parts)


def headline(judgement: Judgement) -> str:
    """Why the gate fails: the blocking regressions and the consumers not verified."""
    parts = []
    if judgement.blocking:
        first = judgement.blocking[0]
        parts.append(
            f"{len(judgement.blocking)} regression(s), first {first.consumer.name} {first.nodeid}"
        )
    if judgement.unverified:
        names = ", ".join(
            f"{r.name} ({' and '.join(r.not_verified)})" for r in judgement.unverified
        )
        parts.append(f"not verified: {names}")
    return "; ".join(parts) or "passed"


def consumer_table(run: RunResults) -> list[str]:
    rows = []
    for r in run.results:
        c = counts(r.verdicts)
        other = len(levels(r.verdicts))
        row = [r.name, r.version or "-", r.origin or "-", *(c[v] for v in COLUMNS), other]
        rows.append([*row, status(r)])
    header = ["consumer", "version", "tests from", *(v.value for v in COLUMNS)]
    header += ["module/run-level", "status"]
    align = [markdown.LEFT] * 3 + [markdown.RIGHT] * (len(COLUMNS) + 1) + [markdown.LEFT]
    return markdown.table(header, rows, align=align)


def finding_lines(f: Regression) -> list[str]:
    """A regression as a bullet, its first failure lines in a fenced block under it."""
    known = f" — known: {f.match.entry.describe()}" if f.match.entry else ""
    expired = (
        f" — its known-failure entry expired on {f.match.expired.expires} ({f.match.expired.owner})"
        if f.match.expired and not f.match.entry
        else ""
    )
    lines = [f"- {_what(f)} ({who(f.consumer)}){known}{expired}"]
    if f.message:
        lines += ["", *("  " + line for line in block(f.message)), ""]
    return lines


def unverified_lines(r: ConsumerResult) -> list[str]:
    """A consumer not verified: each side, why, and the command that reproduces it."""
    lines = []
    for side, found in r.not_verified.items():
        optional = " (optional: not failing the gate)" if r.optional else ""
        lines += ["", f"- **{r.name}** not verified on the {side} side{optional}", ""]
        lines += ["  " + line for line in block(found.get("why", ""))]
        if found.get("reproduce"):
            lines += ["", "  Reproduce:", "", *("  " + x for x in block(found["reproduce"]))]
    return lines


def details(run: RunResults, judgement: Judgement) -> list[str]:
    """The gate's Markdown lines: the consumer table, then regressions, consumers not
    verified, install failures, module- and run-level results."""
    lines = consumer_table(run)
    for title, found in (("Regressions", judgement.blocking), ("Known", judgement.accepted)):
        if found:
            lines += ["", f"**{title}**", ""]
            for f in found:
                lines += finding_lines(f)
    if any(r.not_verified for r in run.results):
        lines += ["", "**Not verified**"]
        for r in run.results:
            lines += unverified_lines(r)
        lines.append("")
    for r in run.results:
        for v in levels(r.verdicts):
            lines.append(f"- {r.name} {code(v.nodeid)}: {v.verdict.value} (module/run level)")
        if r.status == NOT_INSTALLED and not r.install_regressed:
            side = "both sides" if len(r.install) == 2 else ", ".join(r.install)
            reason = next(iter(r.install.values()), "")
            lines += ["", f"- {r.name}: could not install ({side})", "", *block(reason), ""]
        if r.error:
            lines += ["", f"- {r.name}: error", "", *block(r.error), ""]
    for r in run.results:
        for v in r.tests(PairVerdict.SPURIOUS):
            lines.append(f"- spurious: {r.name} {code(v.nodeid)}: {v.note}")
    lines += [f"- {note}" for note in judgement.notes]
    return lines


def _first(text: str, lines: int = 3) -> str:
    """The first meaningful lines of a failure on one line (pytest's ``E`` marks dropped)."""
    kept = []
    for line in text.splitlines():
        line = line[1:] if line.startswith("E ") else line
        if line.strip() and line.strip() != "E":
            kept.append(line.strip())
    return code(" / ".join(kept[:lines])) if kept else ""


def _what(f: Regression) -> str:
    if f.nodeid == INSTALL:
        return f"**{f.consumer.name}** cannot be installed with the candidate"
    return f"**{f.consumer.name}** {code(f.nodeid)}"


def _counts(r: ConsumerResult) -> str:
    c = counts(r.verdicts)
    shown = [f"{c[v]} {v.value}" for v in COLUMNS if c[v]]
    tests = ", ".join(shown) or "no tests"
    other = levels(r.verdicts)
    return tests + (f"; {len(other)} module/run-level" if other else "")


def gate_details(run: RunResults, judgement: Judgement) -> list[str]:
    """The gate's details: one self-contained line each (the report shows them as a list, JUnit
    as text); the full tables and failure blocks are in the evidence's results.md."""
    lines = [f"{run.candidate} vs {run.baseline}, Python {run.python}"]
    for r in run.results:
        where = f", tests from {code(r.origin)}" if r.origin else ""
        lines.append(f"**{r.name}** {r.version or ''}{where}: {_counts(r)} — {status(r)}")
    for title, found in (("regressed", judgement.blocking), ("known", judgement.accepted)):
        for f in found:
            known = f" — {f.match.entry.describe()}" if f.match.entry else ""
            if f.match.expired and not f.match.entry:
                known = f" — its known-failure entry expired on {f.match.expired.expires}"
            lines.append(f"{title}: {_what(f)} ({who(f.consumer)}){known}: {_first(f.message)}")
    for r in run.results:
        if r.status == NOT_INSTALLED and not r.install_regressed:
            side = "both sides" if len(r.install) == 2 else ", ".join(r.install)
            why = next(iter(r.install.values()), "")
            lines.append(f"**{r.name}** could not install ({side}): " + _first(why, 2))
        if r.error:
            lines.append(f"**{r.name}** error: " + _first(r.error, 2))
        for side, nv in r.not_verified.items():
            how = f"; reproduce: {code(nv['reproduce'])}" if nv.get("reproduce") else ""
            lines.append(f"not verified: **{r.name}** {side}: {_first(nv['why'], 2)}{how}")
        for v in r.tests(PairVerdict.SPURIOUS):
            lines.append(f"spurious: **{r.name}** {code(v.nodeid)}: {v.note}")
    return lines + judgement.notes


def page(run: RunResults, judgement: Judgement) -> str:
    """The whole results page (results.md)."""
    head = "PASS" if judgement.ok else "FAIL"
    lines = [
        f"# Downstream verification: {run.candidate} vs {run.baseline}",
        "",
        f"**{head}**: {summary(run, judgement)}.",
        "",
        f"Python {run.python}; {run.created}; {run.seconds:.0f} s.",
        "",
        *details(run, judgement),
    ]
    changed = [(r.name, c) for r in run.results for c in r.changes]
    if changed:
        lines += ["", "## Dependencies resolved differently on the candidate side", ""]
        lines += [f"- {name}: {c}" for name, c in changed]
    return "\n".join(lines).rstrip() + "\n"


def junit(run: RunResults, judgement: Judgement) -> str:
    """JUnit XML: a suite per consumer, a case per judged test; a blocking regression is a
    failure, an accepted one a skip, an install failure a case named ``<install>``."""
    blocking = {(f.consumer.name, f.nodeid) for f in judgement.blocking}
    accepted = {(f.consumer.name, f.nodeid): f for f in judgement.accepted}
    suites = ET.Element("testsuites", name=f"downstream {run.package}")
    for r in run.results:
        suite = ET.SubElement(suites, "testsuite", name=r.name)
        cases: Sequence[tuple[str, str, str]] = [
            (v.nodeid, v.verdict.value, v.message or v.note) for v in r.verdicts
        ]
        if r.status == NOT_INSTALLED:
            cases = [("<install>", NOT_INSTALLED, "\n".join(r.install.values())), *cases]
        for side, found in r.not_verified.items():
            text = f"{found['why']}\nreproduce: {found.get('reproduce', '')}"
            cases = [(f"<not verified: {side}>", "not verified", text), *cases]
            if not r.optional:
                blocking.add((r.name, f"<not verified: {side}>"))
        for nodeid, verdict, text in cases:
            case = ET.SubElement(suite, "testcase", classname=r.name, name=nodeid)
            if (r.name, nodeid) in blocking:
                ET.SubElement(case, "failure", message=f"{verdict}: {nodeid}").text = text
            elif (r.name, nodeid) in accepted:
                why = accepted[(r.name, nodeid)].match.entry
                ET.SubElement(case, "skipped", message=f"known: {why.describe() if why else ''}")
            elif verdict not in (PairVerdict.PASSED.value, PairVerdict.FIXED.value):
                ET.SubElement(case, "skipped", message=verdict).text = text or None
        suite.set("tests", str(len(suite)))
        suite.set("failures", str(sum(1 for c in suite if c.find("failure") is not None)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
