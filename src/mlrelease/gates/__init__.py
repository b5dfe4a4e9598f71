"""The gate contract: one exit criterion of a release.

A gate has a name, a one-line description (it becomes a row of the exit-criteria page) and a
``run(context) -> GateResult`` function. :func:`gate` makes one from a function::

    @gate("versions", "Every file listed for bump-my-version carries the same version.")
    def check_versions(ctx: Context) -> GateResult:
        ...
        return GateResult.passed("4 files carry 1.4.0")

Built-in gates are listed in their feature's ``GATES``, and the features in
:data:`mlrelease.registry.FEATURES`; an adopter keeps its own in a module named in
``[tool.mlrelease] gate-plugins``, whose module-level gates are all loaded. This module is the
contract alone: finding, checking and selecting gates is the registry's
(:func:`mlrelease.registry.select`). A gate gets everything it needs through its
:class:`Context`, never by importing the modules above it.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mlrelease import requirements
from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.naming import Names
from mlrelease.toml_tables import parse_section

T = TypeVar("T")


class Status(str, enum.Enum):
    """The verdict of one gate."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"  # the gate itself broke (an exception, a missing tool)

    @property
    def ok(self) -> bool:
        return self in (Status.PASS, Status.SKIP)


@dataclass
class Needs:
    """What a gate needs on this machine beyond its extra, as ``mlrelease doctor`` shows it:
    what was found, what is missing (the gate cannot run), and notes (it runs, with less)."""

    found: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class GateResult:
    """What a gate found. ``details`` are Markdown lines; ``evidence`` are paths of files."""

    status: Status
    summary: str
    details: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    name: str = ""

    @classmethod
    def passed(cls, summary: str, **kwargs: Any) -> GateResult:
        return cls(Status.PASS, summary, **kwargs)

    @classmethod
    def failed(cls, summary: str, **kwargs: Any) -> GateResult:
        return cls(Status.FAIL, summary, **kwargs)

    @classmethod
    def skipped(cls, reason: str, **kwargs: Any) -> GateResult:
        return cls(Status.SKIP, reason, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "summary": self.summary,
            "details": list(self.details),
            "evidence": list(self.evidence),
            "duration_s": round(self.duration_s, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateResult:
        return cls(
            status=Status(data["status"]),
            summary=data["summary"],
            details=list(data.get("details", [])),
            evidence=list(data.get("evidence", [])),
            duration_s=float(data.get("duration_s", 0.0)),
            name=data["name"],
        )


@dataclass
class Context:
    """What a gate may look at: the project's configuration, the configured gates and where to
    put evidence."""

    config: Config
    strict: bool = False
    evidence_dir: Path | None = None
    configured: Sequence[Gate] = ()
    """The configured gates, in order (:func:`mlrelease.registry.select`): the exit-criteria
    page lists them."""
    environment: Callable[[], requirements.Environment] = requirements.Environment
    """What is installed here (:func:`mlrelease.edges.installed.environment`), read when a
    gate finds something missing: its message names the install line that fits."""

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def names(self) -> Names:
        """Branch and tag names, compiled once per configuration."""
        return self.config.names

    def options(self, gate_name: str, cls: type[T]) -> T:
        """Parse ``[tool.mlrelease.gate-options.<gate_name>]`` into the dataclass ``cls``."""
        table = self.config.gate_options.get(gate_name, {})
        return parse_section(
            cls,
            table,
            prefix=f"tool.mlrelease.gate-options.{gate_name}",
            source=str(self.config.pyproject_path),
        )

    def evidence_path(self, gate_name: str, filename: str) -> Path:
        """A path under the report folder where a gate may write an evidence file."""
        base = self.evidence_dir or self.config.path(self.config.report_dir)
        folder = base / "evidence" / gate_name
        folder.mkdir(parents=True, exist_ok=True)
        return folder / filename

    def display(self, path: Path) -> str:
        """``path`` relative to the project root when inside it (for reports), else absolute."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)


GateFunction = Callable[[Context], GateResult]


@dataclass(frozen=True)
class ReuseOptions:
    """``[tool.mlrelease.gate-options.NAME]`` of a gate whose passing verdict may be reused
    (:mod:`mlrelease.edges.reuse`): ``reuse = false`` always runs it."""

    reuse: bool = True
    """Reuse the last passing verdict of the same commit, tree, inputs and environment."""


@dataclass(frozen=True)
class Gate:
    """A registered exit criterion."""

    name: str
    description: str
    run: GateFunction
    required: bool = True
    options: type | None = None
    """The dataclass of its ``[tool.mlrelease.gate-options.NAME]`` table, checked at load."""
    extra: str | None = None
    """The extra of the ``mlrelease`` package that brings what the gate needs (None: nothing
    beyond the package itself); ``mlrelease doctor``, ``init`` and the nox sessions read it."""
    programs: tuple[str, ...] = ()
    """Programs it runs from PATH (``git``, ``uv``); ``mlrelease doctor`` looks for them."""
    preflight: Callable[[Config], Needs] | None = None
    """What else it needs here, checked without running it (the project's test command, the
    locales of the operator cases); ``mlrelease doctor`` shows it."""

    @property
    def how_to_run(self) -> str:
        return f"mlrelease verify --only {self.name}"

    def __call__(self, ctx: Context) -> GateResult:
        """Run the gate's function itself (exceptions propagate; see :meth:`execute`)."""
        return self.run(ctx)

    def _missing(self, exc: requirements.MissingDependency, ctx: Context) -> GateResult:
        gate = f"the `{self.name}` gate"
        message = str(exc.within(ctx.environment(), gate, self.extra))
        return GateResult(Status.ERROR, f"{message} Or remove the gate from tool.mlrelease.gates.")

    def execute(self, ctx: Context) -> GateResult:
        """Run the gate; an exception becomes an ``error`` result instead of a crash."""
        start = time.perf_counter()
        try:
            result = self.run(ctx)
        except requirements.MissingDependency as exc:
            result = self._missing(exc, ctx)
        except UserError as exc:
            result = GateResult(Status.ERROR, str(exc))
        except ImportError as exc:  # ModuleNotFoundError, or a name an old package lacks
            result = self._missing(requirements.MissingDependency.of(exc), ctx)
        except Exception as exc:  # a broken gate must not hide the other gates' verdicts
            result = GateResult(Status.ERROR, f"{type(exc).__name__}: {exc}")
        result.name = self.name
        result.duration_s = time.perf_counter() - start
        return result


def gate(
    name: str,
    description: str,
    *,
    required: bool = True,
    options: type | None = None,
    extra: str | None = None,
    programs: tuple[str, ...] = (),
    preflight: Callable[[Config], Needs] | None = None,
) -> Callable[[GateFunction], Gate]:
    """Make ``run`` the gate ``name``; ``description`` is one line, what it checks;
    ``options`` is the dataclass of its gate-options table, validated when the config loads;
    ``extra``, ``programs`` and ``preflight`` what it needs (:class:`Gate`)."""

    def make(run: GateFunction) -> Gate:
        return Gate(name, description, run, required, options, extra, programs, preflight)

    return make


def shard(gates: list[Gate], index: int, count: int) -> list[Gate]:
    """Gates of shard ``index`` (1-based) of ``count``: round-robin over the selection."""
    return [g for i, g in enumerate(gates) if i % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)`` (``--shard I/N``); raises ValueError with the expected form."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected I/N, e.g. 1/3") from None
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text!r}: I must be between 1 and N")
    return index, count
