"""init's bump-my-version configuration writes back every PEP 440 version it reads: each
release marker (``a``, ``b``, ``rc``, ``.dev``, ``.post``) and each combination of them, as
``packaging`` spells and orders them."""

from __future__ import annotations

import tomllib
from helpers.pep440 import bumpversion_config, pep440_versions
from hypothesis import given
from packaging.version import Version

from mlrelease.init import detect, propose
from mlrelease.init.snapshot import Snapshot

versions = pep440_versions()
"""Canonical PEP 440 versions of three release numbers (``str(Version(...))``)."""


def _proposed(version: str) -> dict:  # type: ignore[type-arg]
    """The ``[tool.bumpversion]`` table init proposes for a project at ``version``."""
    texts = {
        "pyproject.toml": f'[project]\nname = "pkg"\nversion = "{version}"\n',
        "version.txt": f"{version}\n",
    }
    found = detect.detect(Snapshot(files=sorted(texts), texts=texts, tags=[], branches=["main"]))
    return dict(tomllib.loads(propose.propose(found, {}).text)["tool"]["bumpversion"])


CONFIG = bumpversion_config(_proposed("2.14.0a0"))


@given(versions)
def test_every_pep440_version_round_trips_through_the_proposed_configuration(text: str) -> None:
    parsed = CONFIG.parse(text)
    assert parsed is not None, text
    assert CONFIG.serialize(parsed, {}) == text
    expected = Version(text)
    values = {name: part.value for name, part in parsed.components.items()}
    assert expected.release == tuple(int(values[k]) for k in ("major", "minor", "patch"))
    if values["pre_l"] == ".dev":  # X.Y.Z.devN: the development stage, before any pre-release
        assert (expected.pre, expected.dev) == (None, int(values["pre_n"]))
    elif values["pre_l"] not in (None, "final"):
        assert expected.pre == (values["pre_l"], int(values["pre_n"]))


def test_init_keeps_an_alpha_marker_it_found() -> None:
    table = _proposed("2.14.0a0")
    assert table["current_version"] == "2.14.0a0"
    assert CONFIG.serialize(CONFIG.parse("2.14.0a0"), {}) == "2.14.0a0"  # type: ignore[arg-type]


def test_the_stage_bumps_in_pep440_order() -> None:
    stages = propose.PEP440_PARTS["pre_l"]["values"]
    ordered = [Version(f"1.0.0{s}0") if s != "final" else Version("1.0.0") for s in stages]
    assert ordered == sorted(ordered) and len(set(ordered)) == len(ordered)
