"""Version constraints (pure): a PEP 440 specifier as conda spells it, a conda constraint read
back, and the two compared by their bounds (which one allows more)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

_WILDCARD = re.compile(r"^(==)?\s*(\d+(?:\.\d+)*)\.\*$")


@dataclass(frozen=True)
class Bounds:
    """The lowest and highest versions a constraint allows (None: unbounded); ``exact`` for
    ``==X``. Bounds are inclusive unless the flag says otherwise."""

    low: Version | None = None
    low_open: bool = False
    high: Version | None = None
    high_open: bool = True


def _next(version: Version, parts: int) -> Version:
    """The first version past ``version``'s first ``parts`` components (2.13 -> 2.14)."""
    release = list(version.release[:parts]) + [0] * max(0, parts - len(version.release))
    release[parts - 1] += 1
    return Version(".".join(str(p) for p in release))


def _wildcard(text: str) -> tuple[Version, Version] | None:
    match = _WILDCARD.match(text.strip())
    if not match:
        return None
    low = Version(match.group(2))
    return low, _next(low, len(low.release))


def conda_spec(specifier: SpecifierSet | str) -> str:
    """A PEP 440 specifier set as conda writes it: lower bounds first, comma-joined, no spaces
    (``>=1.22,<2``); ``~=1.4.2`` becomes ``>=1.4.2,<1.5``; empty for no constraint."""
    parts: list[tuple[int, str]] = []
    for spec in SpecifierSet(str(specifier)):
        op, version = spec.operator, spec.version
        if op == "~=":
            low = Version(version)
            parts += [(0, f">={version}"), (1, f"<{_next(low, len(low.release) - 1)}")]
        elif op in ("==", "===") and version.endswith(".*"):
            parts.append((0, f"{version}"))
        elif op in ("==", "==="):
            parts.append((0, f"=={version}"))
        else:
            parts.append(
                (0 if op.startswith(">") else 1 if op.startswith("<") else 2, op + version)
            )
    return ",".join(text for _, text in sorted(parts))


def bounds(constraint: str) -> Bounds | None:
    """The bounds of a conda constraint (``>=1.22,<2``, ``2.13.*``, ``==1.4.0``); None when it
    is no constraint this module reads (a build string, ``|``), which is then compared by text."""
    low: Version | None = None
    high: Version | None = None
    low_open, high_open = False, True
    for part in filter(None, (p.strip() for p in constraint.split(","))):
        try:
            found = _wildcard(part)
            if found:
                parts = [(">=", found[0]), ("<", found[1])]
            else:
                spec = Specifier(part if part[0] in "<>=!~" else f"=={part}")
                parts = [(spec.operator, Version(spec.version))]
        except (InvalidSpecifier, InvalidVersion):
            return None
        for op, version in parts:
            if op in (">=", ">", "==", "===", "~=") and (low is None or version > low):
                low, low_open = version, op == ">"
            if op in ("<", "<=", "==", "===") and (high is None or version < high):
                high, high_open = version, op == "<"
    return Bounds(low, low_open, high, high_open)


def looser(recipe: str, wheel: str) -> list[str]:
    """How the recipe's constraint allows more than the wheel's (each a phrase: ``no lower
    bound (the wheels need >=4.25.1)``); empty when it allows nothing more, or cannot be read."""
    have, want = bounds(recipe), bounds(wheel)
    if have is None or want is None:
        return []
    found = []
    if want.low is not None and (have.low is None or have.low < want.low):
        found.append(
            f"lower bound {'none' if have.low is None else have.low} below the wheels' {want.low}"
        )
    if want.high is not None and (have.high is None or have.high > want.high):
        found.append(
            f"upper bound {'none' if have.high is None else have.high} above the wheels' "
            f"{want.high}"
        )
    return found


def disjoint(recipe: str, wheel: str) -> bool:
    """Whether the recipe's constraint allows none of the versions the wheel's allows
    (``pytorch >=2.12,<2.13`` for ``torch==2.13.0``)."""
    have, want = bounds(recipe), bounds(wheel)
    if have is None or want is None:
        return False

    def below(high: Version | None, high_open: bool, low: Version | None, low_open: bool) -> bool:
        if high is None or low is None:
            return False
        return high < low or (high == low and (high_open or low_open))

    return below(have.high, have.high_open, want.low, want.low_open) or below(
        want.high, want.high_open, have.low, have.low_open
    )


def stricter(recipe: str, wheel: str) -> list[str]:
    """How the recipe's constraint allows less than the wheel's: the bounds the wheels no
    longer declare (``upper bound 2``), so a pin upstream loosened shows up here."""
    return looser(wheel, recipe)


def sibling_pin(version: Version, pin: str) -> str:
    """The conda constraint of a train sibling at ``version``: ``exact`` ``==2.13.0``,
    ``patch`` ``>=2.13.0,<2.13.1``, ``minor`` ``>=2.13,<2.14``, ``major`` ``>=2,<3``."""
    if pin == "exact":
        return f"=={version}"
    parts = {"patch": 3, "minor": 2, "major": 1}[pin]
    low = Version(".".join(str(p) for p in [*version.release, 0, 0][:parts]))
    return f">={low},<{_next(low, parts)}"
