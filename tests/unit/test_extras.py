"""One source of truth for what mlrelease needs: the extras of pyproject.toml.

The development groups include the extras (``"mlrelease[ops]"``) and may only add pins inside
the extras' ranges; the requirement table (mlrelease.requirements) knows every distribution
the extras bring, and every gate and command names an extra that exists.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from mlrelease import cli, registry, requirements

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _load() -> dict[str, Any]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


EXTRAS: dict[str, list[str]] = _load()["project"]["optional-dependencies"]
GROUPS: dict[str, list[Any]] = _load()["dependency-groups"]


def includes(requirement: str) -> tuple[str, ...]:
    req = Requirement(requirement)
    return tuple(sorted(req.extras)) if requirement_name(requirement) == "mlrelease" else ()


def requirement_name(requirement: str) -> str:
    return requirements.normalize(Requirement(requirement).name)


def expand_extra(name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """The extra's requirements, ``mlrelease[...]`` entries expanded."""
    assert name in EXTRAS, f"mlrelease[{name}] names no extra of pyproject.toml"
    assert name not in seen, f"extra {name} includes itself"
    out: list[str] = []
    for req in EXTRAS[name]:
        inner = includes(req)
        if inner:
            for extra in inner:
                out += expand_extra(extra, seen | {name})
        else:
            out.append(req)
    return out


def expand_group(name: str) -> tuple[list[str], set[str]]:
    """A group's own requirements (includes expanded) and the extras it installs."""
    reqs: list[str] = []
    extras: set[str] = set()
    for item in GROUPS[name]:
        if isinstance(item, dict):
            inner_reqs, inner_extras = expand_group(item["include-group"])
            reqs += inner_reqs
            extras |= inner_extras
        elif includes(item):
            for extra in includes(item):
                extras.add(extra)
                extras |= {e for r in EXTRAS[extra] for e in includes(r)}
        else:
            reqs.append(item)
    return reqs, extras


def test_every_distribution_of_an_extra_is_in_the_requirement_table() -> None:
    for extra in EXTRAS:
        for req in expand_extra(extra):
            name = requirement_name(req)
            assert name in requirements.BY_DISTRIBUTION, (
                f"mlrelease[{extra}] brings {name}, which mlrelease.requirements.MODULES does "
                "not know (add its import name, so messages and `doctor` can name it)"
            )


def test_every_module_of_the_table_comes_with_an_extra() -> None:
    brought = {requirement_name(r) for extra in EXTRAS for r in expand_extra(extra)}
    for module in requirements.MODULES.values():
        assert module.distribution in brought, f"no extra brings {module.distribution}"


def test_one_range_per_distribution_across_the_extras() -> None:
    ranges: dict[str, set[str]] = {}
    for extra in EXTRAS:
        for req in expand_extra(extra):
            ranges.setdefault(requirement_name(req), set()).add(str(Requirement(req).specifier))
    assert {n: r for n, r in ranges.items() if len(r) > 1} == {}


def test_every_extra_has_a_lower_bound() -> None:
    for extra in EXTRAS:
        for req in expand_extra(extra):
            specifier = Requirement(req).specifier
            assert any(s.operator in (">=", "==", "~=") for s in specifier), (extra, req)


def test_the_pins_of_the_development_groups_lie_inside_the_extras_ranges() -> None:
    ranges = {
        requirement_name(r): Requirement(r).specifier for e in EXTRAS for r in expand_extra(e)
    }
    for group in GROUPS:
        for req in expand_group(group)[0]:
            parsed = Requirement(req)
            name = requirement_name(req)
            pins = [s.version for s in parsed.specifier if s.operator == "=="]
            if name not in ranges:
                continue  # a development-only tool (pytest, ruff, pypiserver...)
            for pin in pins:
                assert ranges[name].contains(pin, prereleases=True), (
                    f"group {group} pins {name}=={pin}, outside the extras' range "
                    f"{ranges[name]}: development would test what users cannot install"
                )
            assert pins or str(parsed.specifier) == str(ranges[name]), (
                f"group {group} lists {req}; the extras say {name}{ranges[name]}: include "
                "the extra instead of repeating its requirement"
            )


def test_every_extra_is_installed_by_a_development_group() -> None:
    installed = set().union(*(expand_group(g)[1] for g in GROUPS))
    assert set(EXTRAS) - installed == set(), "an extra no development environment tests"


def test_all_is_every_extra_a_cpu_machine_installs_without_a_multi_gb_download() -> None:
    inside = {e for r in EXTRAS["all"] for e in includes(r)}
    assert inside == set(EXTRAS) - {"all", *requirements.NOT_IN_ALL}
    names = {requirement_name(r) for r in expand_extra("all")}
    assert not names & {"torch", "torch-tensorrt", "onnxruntime-gpu"}


def test_every_gate_and_command_names_an_extra_that_exists() -> None:
    for name, gate in registry.gates().items():
        assert gate.extra is None or gate.extra in EXTRAS, (name, gate.extra)
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None
    declared = registry.command_extras()
    own = {"verify", "report", "gates", "doctor"}  # the composition root's: the package alone
    assert set(commands) - own <= set(declared), "a feature's command the registry cannot see"
    for key, extra in declared.items():
        assert extra is None or extra in EXTRAS, (key, extra)
        assert key.split()[0] in commands, f"{key}: no such command"


@pytest.mark.parametrize("module", sorted(requirements.MODULES))
def test_the_table_names_distributions_in_normal_form(module: str) -> None:
    info = requirements.MODULES[module]
    for name in (info.distribution, *info.shadows, *info.alternatives):
        assert name == requirements.normalize(name)
