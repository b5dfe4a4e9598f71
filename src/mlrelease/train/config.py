"""``[tool.mlrelease.train]``: where a project keeps its train file, the compatibility matrix
page generated from the trains it released, where the members' refs are fetched, and how a
member's own tests run against its upstream's candidate (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.requirements import InvalidRequirement, Requirement

from mlrelease.config import Config
from mlrelease.errors import ConfigError

TABLE = "tool.mlrelease.train"


@dataclass(frozen=True)
class MemberTests:
    """``[tool.mlrelease.train.tests]``: this member's own tests, which ``train bind`` runs
    against each upstream candidate it binds (and against the upstream's previous release)."""

    folder: str = "tests"
    """The tests' folder, at the candidate's commit; they run against the installed wheels (a
    copy of the folder, never the source tree)."""
    select: list[str] = field(default_factory=list)
    """Paths or pytest node ids inside ``folder`` (default: all of it)."""
    pytest_args: list[str] = field(default_factory=list)
    """More pytest arguments (``-k``, ``-m``), the same on both sides and in re-runs."""
    requirements: list[str] = field(default_factory=list)
    """What the tests need besides the member's wheel, its upstreams and pytest (PEP 508)."""
    index_url: str = "https://pypi.org/simple"
    """Where those and the member's other dependencies come from; never the upstream's files,
    which come from the train's staging index (the candidate, by SHA-256) and release index
    (its previous release)."""
    find_links: list[str] = field(default_factory=list)
    """Extra folders or pages of distributions."""
    python: str = ""
    """The interpreter of the environments; empty: the one running mlrelease."""
    time_budget_s: int = 900
    """Wall-clock limit of one run of the tests; past it the run is killed (not run)."""
    memory_limit_mb: int = 8192
    """Address-space limit of each run of the tests (0: none)."""
    confidence: float = 0.999
    """How sure a regression must be: a test that passed against the previous release and
    failed against the candidate is re-run on both until a test failing half the time would
    have agreed that often with probability at most ``1 - confidence``."""


@dataclass(frozen=True)
class TrainConfig:
    """The ``[tool.mlrelease.train]`` table."""

    file: str = "train.toml"
    """The train file (:mod:`.declaration`) the ``train`` commands read without ``--train``."""
    trains: list[str] = field(default_factory=list)
    """Earlier train files, released: the matrix page covers them too, oldest first."""
    matrix: str = "docs/release/compatibility.md"
    """The compatibility matrix page ``mlrelease train matrix`` generates."""
    cache_dir: str = ""
    """Where the members' refs and files are fetched; empty: ``$MLRELEASE_CACHE_DIR/train`` or
    the user cache."""
    tests: MemberTests = field(default_factory=MemberTests)
    """This member's tests against its upstream's candidate (``train bind``)."""


TABLES: dict[str, type] = {"train": TrainConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""


def check_loaded(config: Config) -> None:
    """Refuse what the types cannot say: a requirement that is not PEP 508, a limit or a
    confidence out of range."""
    tests = config.table(TrainConfig).tests
    source = str(config.pyproject_path)
    for i, text in enumerate(tests.requirements):
        try:
            Requirement(text)
        except InvalidRequirement as exc:
            expected = "a PEP 508 requirement (name, version specifier)"
            raise _fail(f"requirements[{i}]", expected, repr(text), source, str(exc)) from None
    if not 0.5 <= tests.confidence < 1:
        expected = "a probability from 0.5 to below 1 (0.999)"
        raise _fail("confidence", expected, str(tests.confidence), source)
    if tests.time_budget_s <= 0:
        raise _fail("time-budget-s", "a number of seconds > 0", str(tests.time_budget_s), source)
    if tests.memory_limit_mb < 0:
        expected = "a number >= 0 (0: no limit)"
        raise _fail("memory-limit-mb", expected, str(tests.memory_limit_mb), source)


def _fail(key: str, expected: str, found: str, source: str, hint: str = "") -> ConfigError:
    return ConfigError(f"{TABLE}.tests.{key}", expected, found, source=source, hint=hint)


CHECKS = (check_loaded,)
"""Run on every loaded configuration (:attr:`mlrelease.entries.Feature.checks`)."""
