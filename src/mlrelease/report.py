"""Release-verify reports: Markdown, JSON (versioned schema), JUnit XML; merging shards.

Pure functions turn a :class:`Report` into text; :func:`write` puts the three files on disk.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mlrelease import __version__, markdown
from mlrelease.errors import UserError
from mlrelease.gates import GateResult, Status

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).parent / "schemas" / "report.schema.json"
ICONS = {Status.PASS: "✅", Status.FAIL: "❌", Status.SKIP: "⏭️", Status.ERROR: "💥"}
SETUP_ENV = "MLRELEASE_SETUP_TIMES"
"""Set by the nox session before ``mlrelease verify`` runs: a JSON object of the environment
set-up's steps (venv creation, installs) and their seconds, shown at the end of the report."""


@dataclass(frozen=True)
class SetupStep:
    """One step of preparing the environment the gates run in, e.g. ``install`` 41.2 s."""

    name: str
    duration_s: float


def setup_steps(text: str | None) -> list[SetupStep]:
    """The steps in ``$MLRELEASE_SETUP_TIMES`` (``{"venv": 1.2, "install": 40.3}``), in order."""
    if not text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(
        isinstance(v, (int, float)) and v >= 0 for v in data.values()
    ):
        raise UserError(
            f"${SETUP_ENV}: expected a JSON object of step name -> seconds, e.g. "
            f'{{"venv": 1.2, "install": 40.3}}; found {text[:80]!r}. Unset it, or let the '
            "nox session set it."
        )
    return [SetupStep(str(k), float(v)) for k, v in data.items()]


@dataclass(frozen=True)
class Worktree:
    """What a report verified beside its commit: the tree, the configuration as read, and any
    difference between the work tree and the commit (a report is the commit's verdict only when
    there is none: docs/release/invariants.md (b))."""

    tree: str | None
    """The tree of HEAD."""
    config_sha256: str | None
    """SHA-256 of pyproject.toml as the run read it."""
    dirty: tuple[str, ...] = ()
    """Uncommitted changes and untracked files (the report's own folder aside)."""
    hidden: tuple[str, ...] = ()
    """Files marked ``--skip-worktree`` or ``--assume-unchanged``: changes git status hides."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tree": self.tree,
            "config_sha256": self.config_sha256,
            "dirty": list(self.dirty),
            "hidden": list(self.hidden),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Worktree | None:
        if not isinstance(data, dict):
            return None
        return cls(
            data.get("tree"),
            data.get("config_sha256"),
            tuple(data.get("dirty") or ()),
            tuple(data.get("hidden") or ()),
        )


@dataclass
class Report:
    """The outcome of one ``mlrelease verify`` run (or of merged shards)."""

    project: str
    version: str
    commit: str | None
    gates: list[str]
    """Every selected gate in configured order, before sharding (a merge checks coverage)."""
    results: list[GateResult]
    strict: bool = False
    shard: tuple[int, int] | None = None
    worktree: Worktree | None = None
    """What was verified beside the commit; None in a report of an older mlrelease."""
    setup: list[SetupStep] = field(default_factory=list)
    """The environment set-up before the gates ran (from the nox session), for the timings."""
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )

    @property
    def ok(self) -> bool:
        return all(r.status.ok for r in self.results)

    @property
    def verdict(self) -> str:
        return "pass" if self.ok else "fail"

    def counts(self) -> dict[str, int]:
        return {s.value: sum(r.status is s for r in self.results) for s in Status}

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "mlrelease", "version": __version__},
            "project": {"name": self.project, "version": self.version},
            "commit": self.commit,
            "created": self.created,
            "strict": self.strict,
            "shard": None
            if self.shard is None
            else {"index": self.shard[0], "count": self.shard[1]},
            "gates": list(self.gates),
            "worktree": self.worktree.to_dict() if self.worktree else None,
            "verdict": self.verdict,
            "counts": self.counts(),
            "results": [r.to_dict() for r in self.results],
            "setup": [{"name": s.name, "duration_s": s.duration_s} for s in self.setup],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "report") -> Report:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise UserError(
                f"{source}: schema_version {version!r} is not supported (expected "
                f"{SCHEMA_VERSION}); produce the report with mlrelease {__version__}."
            )
        shard = data.get("shard")
        return cls(
            project=data["project"]["name"],
            version=data["project"]["version"],
            commit=data.get("commit"),
            gates=list(data["gates"]),
            results=[GateResult.from_dict(r) for r in data["results"]],
            strict=bool(data.get("strict", False)),
            shard=None if shard is None else (shard["index"], shard["count"]),
            worktree=Worktree.from_dict(data.get("worktree")),
            setup=[SetupStep(s["name"], float(s["duration_s"])) for s in data.get("setup", [])],
            created=data.get("created", ""),
        )


def to_markdown(report: Report) -> str:
    """The report as GitHub-flavoured Markdown (also used for ``$GITHUB_STEP_SUMMARY``)."""
    counts = report.counts()
    head = "PASS: the release may ship" if report.ok else "FAIL: the release must not ship"
    shard = f" (shard {report.shard[0]}/{report.shard[1]})" if report.shard else ""
    lines = [
        f"# Release verification: {report.project} {report.version}".rstrip() + shard,
        "",
        f"**{head}**: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + ".",
        "",
        f"Commit `{report.commit or 'unknown'}`, {report.created}"
        + (", strict" if report.strict else "")
        + ".",
        "",
    ]
    lines += markdown.table(
        ["gate", "status", "summary", "time"],
        [
            (
                f"`{r.name}`",
                f"{ICONS[r.status]} {r.status.value}",
                r.summary,
                f"{r.duration_s:.1f} s",
            )
            for r in report.results
        ],
        align=[markdown.LEFT] * 3 + [markdown.RIGHT],
    )
    for r in report.results:
        if r.details or r.evidence:
            lines += ["", f"## `{r.name}`: {r.status.value}", ""]
            lines += [f"- {d}" for d in r.details]
            lines += [f"- evidence: `{e}`" for e in r.evidence]
    lines += ["", "## Timings", ""]
    lines += markdown.table(
        ["step", "time"],
        [(name, f"{seconds:.1f} s") for name, seconds in timings(report)],
        align=[markdown.LEFT, markdown.RIGHT],
    )
    return "\n".join(lines) + "\n"


def timings(report: Report) -> list[tuple[str, float]]:
    """Where the time went: each set-up step, each gate, and the total, in that order."""
    rows = [(f"environment set-up: {s.name}", s.duration_s) for s in report.setup]
    rows += [(f"gate `{r.name}`", r.duration_s) for r in report.results]
    return [*rows, ("total", sum(seconds for _, seconds in rows))]


def to_junit(report: Report) -> str:
    """The report as JUnit XML: one test case per gate."""
    counts = report.counts()
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="release_verify",
        tests=str(len(report.results)),
        failures=str(counts["fail"]),
        errors=str(counts["error"]),
        skipped=str(counts["skip"]),
        time=f"{sum(r.duration_s for r in report.results):.3f}",
        timestamp=report.created,
    )
    for r in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"{report.project}.release_verify",
            name=r.name,
            time=f"{r.duration_s:.3f}",
        )
        body = "\n".join([*r.details, *(f"evidence: {e}" for e in r.evidence)])
        tag = {Status.FAIL: "failure", Status.ERROR: "error", Status.SKIP: "skipped"}.get(r.status)
        if tag:
            element = ET.SubElement(case, tag, message=r.summary)
            element.text = body or None
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def write(report: Report, folder: Path) -> dict[str, Path]:
    """Write report.md, report.json and junit.xml; append to $GITHUB_STEP_SUMMARY when set."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "markdown": folder / "report.md",
        "json": folder / "report.json",
        "junit": folder / "junit.xml",
    }
    markdown = to_markdown(report)
    paths["markdown"].write_text(markdown, encoding="utf-8")
    paths["json"].write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
    paths["junit"].write_text(to_junit(report), encoding="utf-8")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(markdown + "\n")
    return paths


def read(path: Path) -> Report:
    """Read a report.json, with a clear error for a missing or foreign file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such report; run `mlrelease verify` first.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not a JSON report ({exc}).") from None
    except OSError as exc:  # a folder, a file it may not read
        raise UserError(f"{path}: cannot read this report ({exc.strerror or exc}).") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object, found {type(data).__name__}.")
    return Report.from_dict(data, source=str(path))


def merge(reports: list[Report]) -> Report:
    """Combine shard reports into one, in configured gate order.

    Refuses reports of different commits, gate selections or strictness, a gate reported twice
    and a gate no shard reported: a merged report must be the same as one unsharded run.
    """
    if not reports:
        raise UserError("report merge: give at least one report.json.")
    first = reports[0]
    for other in reports[1:]:
        for attr in ("project", "commit", "gates", "strict", "version"):
            if getattr(other, attr) != getattr(first, attr):
                raise UserError(
                    f"report merge: the reports disagree on {attr} ({getattr(first, attr)!r} vs "
                    f"{getattr(other, attr)!r}); merge only shards of one `verify` run."
                )
    by_name: dict[str, GateResult] = {}
    for report in reports:
        for r in report.results:
            if r.name in by_name:
                raise UserError(f"report merge: gate {r.name!r} is reported by two shards.")
            by_name[r.name] = r
    missing = [g for g in first.gates if g not in by_name]
    if missing:
        raise UserError(
            f"report merge: no shard reported {', '.join(missing)}; pass every shard's report.json."
        )
    return Report(
        project=first.project,
        version=first.version,
        commit=first.commit,
        gates=first.gates,
        results=[by_name[g] for g in first.gates],
        strict=first.strict,
        shard=None,
        # One work tree verified by every shard, or none the merged report can vouch for.
        worktree=first.worktree if all(r.worktree == first.worktree for r in reports) else None,
        setup=[
            replace(s, name=f"shard {r.shard[0]}/{r.shard[1]}: {s.name}") if r.shard else s
            for r in reports
            for s in r.setup
        ],
    )
