"""What a release wants in a recipe section (pure): its requirements as conda names and
constraints, each marker decided over the environments the feedstock builds for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from packaging.markers import Marker, UndefinedEnvironmentName
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from mlrelease.conda import names, specs

Environment = Mapping[str, str]

DEFAULT_ENVIRONMENTS: tuple[Environment, ...] = tuple(
    {
        "python_version": py,
        "python_full_version": f"{py}.0",
        "platform_machine": machine,
        "sys_platform": system,
        "platform_system": {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}[system],
        "os_name": "nt" if system == "win32" else "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    for py in ("3.10", "3.11", "3.12", "3.13", "3.14")
    for system, machine in (("linux", "x86_64"), ("darwin", "arm64"), ("win32", "AMD64"))
)
"""conda-forge's usual build matrix, when the feedstock's own is not known."""


@dataclass(frozen=True)
class Want:
    """One requirement as the recipe should carry it."""

    name: str
    """The conda name."""
    constraint: str
    """The conda constraint the release's metadata says (siblings: the train pin)."""
    pypi: str
    """The requirement as the metadata writes it."""
    mapped: bool
    """Whether the PyPI-to-conda mapping lists the name (else its spelling was kept)."""
    sibling: bool = False


@dataclass(frozen=True)
class Wants:
    """A section's wants, and the requirements whose markers split the environments."""

    by_name: dict[str, Want]
    split: tuple[str, ...] = ()


def _applies(marker: Marker | None, envs: Sequence[Environment]) -> tuple[bool, bool]:
    """(true in every environment, true in some)."""
    if marker is None:
        return True, True
    results = []
    for env in envs:
        try:
            results.append(marker.evaluate(dict(env)))
        except UndefinedEnvironmentName:
            results.append(True)
    return all(results), any(results)


def key(name: str) -> str:
    """How names compare: conda-forge treats ``_`` and ``-`` as one (``typing_extensions``)."""
    return name.lower().replace("_", "-")


def wants(
    requirements: Iterable[Requirement],
    *,
    siblings: Mapping[str, str] | None = None,
    envs: Sequence[Environment] = DEFAULT_ENVIRONMENTS,
) -> Wants:
    """The conda requirements of PyPI ``requirements`` (markers decided over ``envs``; two
    requirements of one name joined), with the train ``siblings`` pinned by their rule."""
    sibling_pins = {key(n): p for n, p in (siblings or {}).items()}
    joined: dict[str, tuple[Requirement, SpecifierSet]] = {}
    split = []
    for req in requirements:
        always, some = _applies(req.marker, envs)
        if not some:
            continue
        if not always:
            split.append(str(req))
            continue
        k = key(req.name)
        spec = joined[k][1] & req.specifier if k in joined else req.specifier
        joined[k] = (req, spec)
    found: dict[str, Want] = {}
    for k, (req, spec) in joined.items():
        conda, mapped = names.conda_name(req.name)
        constraint = specs.conda_spec(spec)
        pin = sibling_pins.get(k)
        if pin:
            constraint = specs.sibling_pin(_pinned_version(spec), pin) if spec else ""
        found[key(conda)] = Want(conda, constraint, str(req), mapped, sibling=bool(pin))
    return Wants(found, tuple(split))


def _pinned_version(spec: SpecifierSet) -> Version:
    """The version a sibling requirement points at: its ``==`` or its lower bound."""
    found = specs.bounds(specs.conda_spec(spec))
    if found is None or found.low is None:
        return Version("0")
    return found.low


def environments(variants: Iterable[Mapping[str, str]]) -> tuple[Environment, ...]:
    """Marker environments of the feedstock's variants (``python``, ``target_platform``)."""
    machines = {
        "64": "x86_64",
        "aarch64": "aarch64",
        "ppc64le": "ppc64le",
        "arm64": "arm64",
        "s390x": "s390x",
    }
    found = []
    for variant in variants:
        python = variant.get("python", "").split(" ")[0].rstrip(".*")
        platform = variant.get("target_platform", "")
        system, _, arch = platform.partition("-")
        if not python or not system:
            continue
        sys_platform = {"linux": "linux", "osx": "darwin", "win": "win32"}.get(system, system)
        machine = machines.get(arch, arch)
        if sys_platform == "win32" and machine == "x86_64":
            machine = "AMD64"
        found.append(
            {
                **DEFAULT_ENVIRONMENTS[0],
                "python_version": python,
                "python_full_version": f"{python}.0",
                "platform_machine": machine,
                "sys_platform": sys_platform,
                "platform_system": {"linux": "Linux", "darwin": "Darwin"}.get(
                    sys_platform, "Windows"
                ),
                "os_name": "nt" if sys_platform == "win32" else "posix",
            }
        )
    return tuple(found) or DEFAULT_ENVIRONMENTS
