"""What breaks feedstocks, checked on the proposed recipe (pure):

- ``run-exports``: a train sibling in host that run does not pin: packages built against
  pytorch X.Y then install with another pytorch (conda-forge admin-requests #427);
- ``loose-pin``: a run requirement looser than the wheels' metadata: a missing upper bound is
  an error (conda-forge-repodata-patches #374, #589, #1023 patched such pins after release),
  a missing or lower lower bound a warning;
- ``variant-dropped``: a Python version or platform the upstream ships wheels for and the
  feedstock does not build (a CUDA user left on the CPU build, pytorch-cpu-feedstock #477),
  or a variant built for a Python the release no longer supports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from mlrelease.conda import specs
from mlrelease.conda.propose import FeedstockChange
from mlrelease.conda.release import ReleaseFacts
from mlrelease.conda.wanted import wants

ERROR = "error"
WARNING = "warning"

PLATFORMS = {
    "manylinux": {"x86_64": "linux-64", "aarch64": "linux-aarch64", "ppc64le": "linux-ppc64le"},
    "macosx": {"x86_64": "osx-64", "arm64": "osx-arm64"},
    "win": {"amd64": "win-64", "arm64": "win-arm64"},
}


@dataclass(frozen=True)
class LintFinding:
    """One lint finding: its rule, how bad, and what it says."""

    rule: str
    level: str
    text: str


def _platform(tag: str) -> str | None:
    """The conda platform of a wheel platform tag (``manylinux_2_28_aarch64``: linux-aarch64)."""
    tag = tag.lower()
    for family, arches in PLATFORMS.items():
        if tag.startswith(family) or (family == "manylinux" and tag.startswith("musllinux")):
            return next((p for arch, p in arches.items() if tag.endswith(arch)), None)
    return None


def shipped(release: ReleaseFacts) -> tuple[set[str], set[str]]:
    """(Python versions ``3.12``, conda platforms) the release's compiled wheels cover."""
    pythons, platforms = set(), set()
    for wheel in release.wheels:
        for tag in wheel.tags:
            interp, abi, plat = tag.split("-")
            if plat == "any":
                continue
            if interp.startswith("cp") and abi != "abi3" and interp[2:].isdigit():
                pythons.add(f"{interp[2]}.{interp[3:]}")
            found = _platform(plat)
            if found:
                platforms.add(found)
    return pythons, platforms


def variants_of(variants: Sequence[Mapping[str, str]]) -> tuple[set[str], set[str]]:
    """(Python versions, platforms) the feedstock's variant files build."""
    pythons = {v["python"].split(" ")[0].rstrip(".*") for v in variants if v.get("python")}
    platforms = {v["target_platform"] for v in variants if v.get("target_platform")}
    return pythons, platforms


def lint(
    proposal: FeedstockChange,
    release: ReleaseFacts,
    variants: Sequence[Mapping[str, str]],
    siblings: Mapping[str, str],
    noarch: bool,
) -> list[LintFinding]:
    """The findings on the recipe as the proposal leaves it."""
    found = _pins(proposal, release, siblings)
    if not noarch and variants:
        found += _variants(release, variants)
    return found


def _pins(
    proposal: FeedstockChange, release: ReleaseFacts, siblings: Mapping[str, str]
) -> list[LintFinding]:
    found = []
    run, host = proposal.sections["run"], proposal.sections["host"]
    for k, want in sorted(wants(release.run_requirements(), siblings=siblings).by_name.items()):
        if want.sibling and k in host and not run.get(k):
            found.append(
                LintFinding(
                    "run-exports",
                    ERROR,
                    f"{want.name} is a train sibling in host but run does not pin it: the "
                    f"package would install with another {want.name} than it was built "
                    f"against; pin `{want.name} {want.constraint}` in run",
                )
            )
        if k not in run:
            continue
        if specs.disjoint(run[k], want.constraint):
            found.append(
                LintFinding(
                    "loose-pin",
                    ERROR,
                    f"run: {want.name} {run[k]} allows none of the versions the wheels need "
                    f"({want.pypi})",
                )
            )
            continue
        if want.sibling and run[k] == want.constraint:
            continue  # the train's pin: looser than the wheel's == by design
        for problem in specs.looser(run[k], want.constraint):
            level = ERROR if problem.startswith("upper") else WARNING
            found.append(
                LintFinding(
                    "loose-pin",
                    level,
                    f"run: {want.name} {run[k] or '(any version)'} is looser than the wheels' "
                    f"{want.pypi}: {problem}",
                )
            )
    return found


def _variants(release: ReleaseFacts, variants: Sequence[Mapping[str, str]]) -> list[LintFinding]:
    found = []
    wheel_pythons, wheel_platforms = shipped(release)
    built_pythons, built_platforms = variants_of(variants)
    for python in sorted(wheel_pythons - built_pythons, key=Version):
        found.append(
            LintFinding(
                "variant-dropped",
                ERROR,
                f"the release ships cp{python.replace('.', '')} wheels; the feedstock builds no "
                f"python {python} variant",
            )
        )
    for platform in sorted(wheel_platforms - built_platforms):
        found.append(
            LintFinding(
                "variant-dropped",
                WARNING,
                f"the release ships wheels for {platform}; the feedstock builds none",
            )
        )
    if release.requires_python:
        allowed = SpecifierSet(release.requires_python)
        for python in sorted(built_pythons, key=Version):
            if not allowed.contains(f"{python}.0", prereleases=True):
                found.append(
                    LintFinding(
                        "variant-dropped",
                        ERROR,
                        f"the feedstock builds python {python}, which the release does not "
                        f"support (Requires-Python {release.requires_python})",
                    )
                )
    return found


def errors(findings: Sequence[LintFinding]) -> list[LintFinding]:
    return [f for f in findings if f.level == ERROR]
