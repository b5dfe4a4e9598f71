"""``[tool.mlrelease.downstream]``: the consumers that verify a release candidate.

Plain frozen dataclasses parsed with every other table; :func:`check` refuses at load what the
types cannot say (two consumers of one name, a requirement that is no PEP 508 requirement, a
consumer with two sources of tests or none, a smoke command beside pytest arguments).

A consumer's tests come from exactly one place:

- the sdist of its ``requirement`` on the index (``requirement = "skl2onnx==1.20.0"``): the
  released tests of the released package, the package itself installed from its wheel;
- a git repository at a ref (``git = "https://github.com/onnx/ir-py"``, ``ref = "v0.1.0"``);
  the package is installed from the checkout unless ``requirement`` names it;
- a folder of this project (``tests-dir = "ci/downstream/onnxruntime"``): a smoke test kept
  here, e.g. "onnxruntime loads the models the candidate makes".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from mlrelease.config import Config
from mlrelease.errors import ConfigError

TABLE = "tool.mlrelease.downstream"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Consumer:
    """One consumer: where it comes from, which of its tests run, what else it needs."""

    name: str
    """Unique, short: ``skl2onnx``; it names results, shards and known failures."""
    requirement: str = ""
    """What is installed on both sides (PEP 508): ``skl2onnx==1.20.0``; unpinned, the version
    the baseline side resolves is pinned on the candidate side too. Its sdist holds the tests
    unless ``git`` or ``tests-dir`` is set."""
    git: str = ""
    """A git repository whose checkout at ``ref`` holds the tests (and the package, unless
    ``requirement`` is set)."""
    ref: str = ""
    """The tag, branch or commit of ``git``."""
    tests_dir: str = ""
    """A folder of this project holding the tests (a smoke test kept with the project)."""
    tests: list[str] = field(default_factory=list)
    """The selection: paths or pytest node ids inside the tests' source (default: ``tests``,
    or the whole ``tests-dir``)."""
    pytest_args: list[str] = field(default_factory=list)
    """More pytest arguments (``-k``, ``-m``), the same on both sides and in re-runs."""
    command: list[str] = field(default_factory=list)
    """A smoke command instead of pytest (``{python}`` is the environment's interpreter); its
    exit status is the one result."""
    requirements: list[str] = field(default_factory=list)
    """Extra requirements of the tests (``pandas``, ``onnxruntime``)."""
    index_urls: list[str] = field(default_factory=list)
    """Extra indexes for this consumer (e.g. the PyTorch CPU index), before the default."""
    find_links: list[str] = field(default_factory=list)
    """Extra folders or pages of distributions for this consumer."""
    time_budget_s: int = 900
    """Wall-clock limit of one side's test run; past it the run is killed (a timeout)."""
    memory_limit_mb: int | None = None
    """Address-space limit of this consumer's test runs (0: none); unset: the table's
    ``memory-limit-mb`` (TensorFlow reserves more address space than 8 GiB at import)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables its tests see, the same on both sides and in re-runs
    (``TF_CPP_MIN_LOG_LEVEL = "2"``)."""
    optional: bool = False
    """When its tests did not run on a side (``not verified``), the gate notes it instead of
    failing; a confirmed regression still fails it."""
    owner: str = ""
    """Who answers for it (a GitHub handle, a team): the report names them on a regression."""
    repository: str = ""
    """Its repository or issue tracker, shown in the report."""

    @property
    def source(self) -> str:
        """``sdist``, ``git`` or ``project``: where the tests come from."""
        if self.git:
            return "git"
        return "project" if self.tests_dir else "sdist"

    @property
    def selection(self) -> list[str]:
        """The paths/node ids pytest is given (the default when none is configured)."""
        if self.tests:
            return list(self.tests)
        return ["."] if self.source == "project" else ["tests"]


@dataclass(frozen=True)
class DownstreamConfig:
    """``[tool.mlrelease.downstream]``: the consumers, the known failures and the environments."""

    package: str = ""
    """The distribution under test; empty: ``[project] name``."""
    consumers: list[Consumer] = field(default_factory=list)
    """The consumers, each run paired: candidate vs baseline."""
    known_failures: str = "ci/downstream_known_failures.toml"
    """Regressions accepted for now, each with an owner, a reason and an expiry date."""
    candidate: str = "dist"
    """What the ``downstream`` gate tests: a folder of the RC's files (or a version)."""
    baseline: str = ""
    """The release compared against; empty: the newest final release on the index older
    than the candidate."""
    index_url: str = "https://pypi.org/simple"
    """The index both sides install from (consumers, their dependencies, the baseline)."""
    find_links: list[str] = field(default_factory=list)
    """Extra folders of distributions both sides see."""
    candidate_index: str = ""
    """The simple index a ``--candidate VERSION`` is read from: the RC channel where
    ``mlrelease release publish --channel rc`` put the RC's bound files (e.g.
    ``https://test.pypi.org/simple/``); only the project's wheel comes from it, every dependency
    from ``index-url``. Empty: the version is taken from ``index-url``."""
    python: str = ""
    """The interpreter of the environments; empty: the one running mlrelease."""
    jobs: int = 0
    """Side runs at once; 0: the number of cores."""
    confidence: float = 0.999
    """How sure a ``regressed`` (or ``fixed``) must be: a difference is re-run on both sides
    until a test that fails half the time would have agreed that often with probability at
    most ``1 - confidence`` (0.999: 5 rounds); a test that flips on any run is ``spurious``."""
    reruns: int = 0
    """At least this many re-run rounds of a difference (0: as many as ``confidence`` asks)."""
    memory_limit_mb: int = 8192
    """Address-space limit of each test run (0: none)."""
    cache_dir: str = ""
    """Environments and results; empty: ``$MLRELEASE_CACHE_DIR/downstream`` or the user cache."""
    results_dir: str = "build/downstream"
    """Where ``downstream run`` writes results.json/.md and junit.xml; the gate reads them."""


TABLES: dict[str, type] = {"downstream": DownstreamConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""


def _fail(key: str, expected: str, found: str, source: str, hint: str = "") -> ConfigError:
    return ConfigError(f"{TABLE}.{key}", expected, found, source=source, hint=hint)


def parse_requirement(text: str, key: str, source: str) -> Requirement:
    """``text`` as a PEP 508 requirement, or a :class:`ConfigError` naming ``key``."""
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise _fail(
            key, "a PEP 508 requirement (name, version specifier)", repr(text), source, str(exc)
        ) from None


def check(table: DownstreamConfig, *, source: str, root: Path, package: str) -> None:
    """Refuse what the types cannot: see the module docstring. ``package`` is the project's
    distribution (a consumer of itself is refused)."""
    if table.jobs < 0 or table.reruns < 0 or table.memory_limit_mb < 0:
        key = "jobs" if table.jobs < 0 else "reruns" if table.reruns < 0 else "memory-limit-mb"
        raise _fail(key, "a number >= 0", str(getattr(table, key.replace("-", "_"))), source)
    if not 0.5 <= table.confidence < 1:
        expected = "a probability from 0.5 to below 1 (0.999)"
        raise _fail("confidence", expected, str(table.confidence), source)
    seen: dict[str, int] = {}
    for i, consumer in enumerate(table.consumers):
        _check_consumer(consumer, f"consumers[{i}]", source, root, package)
        if consumer.name in seen:
            raise _fail(
                f"consumers[{i}].name",
                "a name no other consumer has",
                f"{consumer.name!r}, also consumers[{seen[consumer.name]}]",
                source,
                "Rename one of them.",
            )
        seen[consumer.name] = i


def _check_consumer(c: Consumer, key: str, source: str, root: Path, package: str) -> None:
    if not NAME.fullmatch(c.name):
        raise _fail(f"{key}.name", "letters, digits, '.', '_' or '-'", repr(c.name), source)
    if c.requirement:
        req = parse_requirement(c.requirement, f"{key}.requirement", source)
        if package and canonicalize_name(req.name) == canonicalize_name(package):
            raise _fail(
                f"{key}.requirement",
                f"a consumer of {package}, not {package} itself",
                repr(c.requirement),
                source,
                "The candidate and the baseline are installed by mlrelease.",
            )
    for j, extra in enumerate(c.requirements):
        parse_requirement(extra, f"{key}.requirements[{j}]", source)
    if c.git and c.tests_dir:
        raise _fail(
            f"{key}.tests-dir",
            "one source of tests: git, tests-dir or the requirement's sdist",
            "both git and tests-dir",
            source,
        )
    if c.git and not c.ref:
        raise _fail(
            f"{key}.ref",
            "the tag, branch or commit of git",
            "nothing",
            source,
            "Pin the consumer: a moving branch makes the two sides of a run disagree.",
        )
    if not c.git and not c.requirement:
        raise _fail(
            f"{key}.requirement",
            "a requirement (its sdist holds the tests) or git + ref",
            "neither",
            source,
        )
    if c.tests_dir and not (root / c.tests_dir).is_dir():
        raise _fail(f"{key}.tests-dir", "a folder of the project", repr(c.tests_dir), source)
    if c.command and (c.tests or c.pytest_args):
        raise _fail(
            f"{key}.command",
            "a smoke command or pytest's selection, not both",
            "command with tests/pytest-args",
            source,
        )
    if c.memory_limit_mb is not None and c.memory_limit_mb < 0:
        found = str(c.memory_limit_mb)
        raise _fail(f"{key}.memory-limit-mb", "a number >= 0 (0: no limit)", found, source)
    if c.time_budget_s <= 0:
        raise _fail(f"{key}.time-budget-s", "a number of seconds > 0", str(c.time_budget_s), source)


def package_of(config: Config) -> str:
    """The distribution under test: ``package``, else ``[project] name``."""
    table = config.table(DownstreamConfig)
    return table.package or config.project_name


def check_loaded(config: Config) -> None:
    """:func:`check` on a loaded configuration (the registry calls it when it loads one)."""
    table = config.table(DownstreamConfig)
    check(table, source=str(config.pyproject_path), root=config.root, package=package_of(config))


CHECKS = (check_loaded,)
"""Run on every loaded configuration (:attr:`mlrelease.entries.Feature.checks`)."""
