"""Constraints: PEP 440 to conda, bounds, looser / disjoint, the train's sibling pins."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.conda import specs


def test_pep440_as_conda_writes_it() -> None:
    assert specs.conda_spec("<2,>=1.22") == ">=1.22,<2"
    assert specs.conda_spec("~=1.4.2") == ">=1.4.2,<1.5"
    assert specs.conda_spec("==2.13.0") == "==2.13.0"
    assert specs.conda_spec("") == ""


def test_looser_names_each_missing_bound() -> None:
    assert specs.looser("", ">=4.25.1") == ["lower bound none below the wheels' 4.25.1"]
    assert specs.looser(">=1.22", ">=1.22,<2") == ["upper bound none above the wheels' 2"]
    assert specs.looser(">=1.22,<2", ">=1.22") == []
    assert specs.stricter(">=1.22,<2", ">=1.22") == ["upper bound none above the wheels' 2"]


def test_a_pin_that_allows_none_of_the_wheels_versions() -> None:
    assert specs.disjoint(">=2.12,<2.13", "==2.13.0")
    assert not specs.disjoint(">=2.13,<2.14", "==2.13.0")


def test_sibling_pins() -> None:
    assert specs.sibling_pin(Version("2.13.0"), "minor") == ">=2.13,<2.14"
    assert specs.sibling_pin(Version("2.13.1"), "patch") == ">=2.13.1,<2.13.2"
    assert specs.sibling_pin(Version("2.13.0"), "major") == ">=2,<3"
    assert specs.sibling_pin(Version("2.13.0"), "exact") == "==2.13.0"
