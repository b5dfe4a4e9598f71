"""Cases that need something from the machine (a locale), on a machine without it.

onnxruntime's StringNormalizer needs the en_US.UTF-8 locale; fresh Debian images have none.
``LOCPATH`` pointing at an empty folder makes this machine such a fresh one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.ops import ops_project, private_cache
from helpers.projects import single_gate

from mlrelease.cli import main
from mlrelease.ops import cases, policy, service
from mlrelease.ops.verdicts import ConformanceVerdict
from mlrelease.registry import load_config

pytestmark = pytest.mark.skipif(
    not hasattr(os, "confstr") or shutil.which("localedef") is None,
    reason="a glibc system with localedef: the locale is compiled with it",
)


@pytest.fixture
def fresh_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No locale but C and POSIX; a cache of our own that already holds the node cases."""
    empty = tmp_path / "no-locales"
    empty.mkdir()
    monkeypatch.setenv("LOCPATH", str(empty))
    cache = private_cache(tmp_path / "cache")
    backends = [single_gate.RT]
    root = ops_project(tmp_path / "project", ["test_strnormalizer*"], backends, cache)
    return root


def _run(root: Path) -> service.ConformanceRun:
    config = load_config(root)
    ops = service.ops_config(config)
    rules = policy.load(root, ops.tolerances, ops.known_failures)
    return service.run(config, ops, service.load_cases(config, ops), policy=rules, jobs=1)


def test_the_missing_locale_is_compiled_into_the_cache(fresh_machine: Path) -> None:
    outcome = _run(fresh_machine)
    assert outcome.provision.provided == ("en_US.UTF-8",)
    verdicts = {r.case: r.verdict for r in outcome.results}
    assert len(verdicts) == 6
    assert set(verdicts.values()) == {ConformanceVerdict.PASS}, outcome.results
    assert "compiled it into the cache" in outcome.environment_notes()[0]


def test_a_locale_that_cannot_be_provided_is_not_called_stale(
    fresh_machine: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["--root", str(fresh_machine), "ops", "index", "--execute"]) == 0
    )  # measured with the locale
    committed = (fresh_machine / "docs/indices/supported_ops.json").read_text()
    assert '"test_strnormalizer_export_monday_casesensintive_lower": {"rt": "pass"}' in committed

    # A machine where the locale cannot be compiled either: no localedef, an empty cache.
    pyproject = fresh_machine / "pyproject.toml"
    fresh_cache = fresh_machine.parent / "cache2"
    target = cases.cache_path(fresh_cache)
    target.parent.mkdir(parents=True)
    shutil.copy(cases.cache_path(fresh_machine.parent / "cache"), target)
    pyproject.write_text(pyproject.read_text().replace("/cache", "/cache2"))
    monkeypatch.setenv("PATH", str(fresh_machine.parent / "no-locales"))

    outcome = _run(fresh_machine)
    assert outcome.provision.missing == {
        "en_US.UTF-8": "`localedef` (glibc's locale compiler) is not on PATH"
    }
    not_measured = {r.case for r in outcome.not_measured}
    assert "test_strnormalizer_export_monday_casesensintive_lower" in not_measured
    assert all(
        r.verdict in (ConformanceVerdict.PASS, ConformanceVerdict.ENVIRONMENT)
        for r in outcome.results
    )

    capsys.readouterr()
    assert main(["--root", str(fresh_machine), "ops", "index", "--check"]) == 0
    out = " ".join("".join(capsys.readouterr()).split())
    assert "is stale" not in out and "and commit" not in out
    assert "not measured here" in out and "apt-get install locales" in out
    assert "needs the en_US.UTF-8 locale" in out
    assert main(["--root", str(fresh_machine), "ops", "index", "--execute"]) == 0
    assert (fresh_machine / "docs/indices/supported_ops.json").read_text() == committed
