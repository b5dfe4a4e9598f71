"""What `mlrelease doctor` says about an extra, from a snapshot of the environment (the real
environments: tests/integration/install)."""

from __future__ import annotations

from mlrelease import doctor
from mlrelease.registry import gate_extras
from mlrelease.requirements import Distribution, Environment

EXTRAS = {
    "release": ("bump-my-version>=1.2.4", "git-changelog>=2.7"),
    "models": ("onnx>=1.19", "onnxruntime>=1.20", "numpy>=1.26"),
}


def test_an_extra_installed_within_its_ranges_is_found() -> None:
    env = Environment(
        extras=EXTRAS,
        distributions={"bump-my-version": "1.8.1", "git-changelog": "2.10.0"},
    )
    assert doctor.distributions(env, "release") == (
        ["bump-my-version 1.8.1", "git-changelog 2.10.0"],
        [],
    )


def test_missing_old_and_shadowed_distributions_are_problems() -> None:
    env = Environment(
        extras=EXTRAS,
        providers={"bumpversion": (Distribution("bump2version", "1.0.1"),)},
        distributions={"bumpversion": "0.6.0", "bump2version": "1.0.1", "git-changelog": "2.5.0"},
    )
    found, problems = doctor.distributions(env, "release")
    assert found == []
    assert problems == [
        "bump-my-version: `bumpversion` comes from bumpversion 0.6.0, bump2version 1.0.1",
        "git-changelog 2.5.0 (needs >=2.7)",
    ]


def test_an_alternative_distribution_fits() -> None:
    env = Environment(
        extras=EXTRAS,
        distributions={"onnx": "1.23.2", "onnxruntime-gpu": "1.31.1", "numpy": "2.4.6"},
    )
    found, problems = doctor.distributions(env, "models")
    assert problems == [] and "onnxruntime-gpu 1.31.1" in found


def test_a_pure_project_without_cibuildwheel_needs_nothing_for_its_wheels_gate() -> None:
    gates = ["git_state", "versions", "wheels", "tests"]
    assert gate_extras(gates, cibuildwheel=False) == ["release"]
    assert gate_extras(gates) == ["release", "wheels"]
    assert gate_extras(["ops_index", "compat", "perf"]) == ["models", "ops", "perf"]
