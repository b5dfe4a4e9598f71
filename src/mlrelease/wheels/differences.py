"""The classes of allowed difference from the reference build, and a comparison's verdict (pure).

Every member of every release file, and every field of METADATA, PKG-INFO, WHEEL and
``entry_points.txt``, equals the reference build of the RC's commit, or falls in one of the
:data:`CLASSES` below, each with its reason; a class is allowed only where the project's
``[tool.mlrelease.wheels.accept]`` accepts it (with the project's own reason). Anything else
refuses the release. What was accepted is printed by ``release bind`` and recorded in the
manifest bound to the RC.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlrelease import markdown
from mlrelease.wheels.config import Accept

KEY = "tool.mlrelease.wheels.accept"


@dataclass(frozen=True)
class Class:
    """One class of allowed difference: its name (the config key below :data:`KEY`), how bind
    shows a member of it, and why it may differ."""

    name: str
    shown: str
    reason: str

    @property
    def key(self) -> str:
        return f"{KEY}.{self.name}"


CLASSES: dict[str, Class] = {
    c.name: c
    for c in (
        Class(
            "compiled-normalised",
            "compared after normalising",
            "an extension rebuilt here from the commit's sources differs from the release's only "
            "where a compiler writes the build folder: the GNU build-id note and the sections "
            "the loader never maps (debug info, .comment, symbol tables). The ELF header, the "
            "program headers and every allocated section are compared byte for byte",
        ),
        Class(
            "provenance",
            "provenance, not rebuilt",
            "the member cannot be rebuilt here: compiled code of a wheel whose tags this "
            "machine does not build (another platform, Python or toolchain: a manylinux "
            "container, Windows, macOS), or, on the metadata-only path, a file only the build "
            "makes. It is accepted with the provenance of the build that made the wheel: an "
            "in-toto statement naming the wheel's SHA-256, the workflow run, the RC's commit "
            "and the source digest of its tree",
        ),
        Class(
            "metadata-only",
            "not compared (no wheel builds here)",
            "no wheel of the commit builds on this machine (a CUDA or Bazel build): each "
            "wheel's members are compared with the sdist's files, its METADATA with the "
            "metadata the sdist's backend prepares; what has neither counterpart needs "
            "provenance, and WHEEL's Generator line is not compared",
        ),
        Class(
            "generator",
            "another build backend version",
            "the Generator line of .dist-info/WHEEL names the build backend and its version; "
            "installers never read it",
        ),
    )
}
"""Every class of allowed difference, by name."""


def table() -> list[str]:
    """The classes as a Markdown table (docs/release/reference-build.md)."""
    rows = [(f"`{c.name}`", f"`{c.key}`", c.shown, c.reason + ".") for c in CLASSES.values()]
    return markdown.table(["class", "accepted by", "bind shows", "why it may differ"], rows)


def accepted(accept: Accept, name: str) -> str:
    """The project's reason for accepting class ``name`` (empty: not accepted)."""
    return str(getattr(accept, name.replace("-", "_"))).strip()


def not_accepted(name: str) -> str:
    """What a refusal says about a class the project does not accept."""
    cls = CLASSES[name]
    return (
        f"it differs only as class {name} allows ({cls.reason}), which the project does not "
        f"accept: set {cls.key} to the reason it does"
    )


@dataclass(frozen=True)
class Difference:
    """One accepted difference: a member of a file, its class, and the evidence."""

    file: str
    member: str
    kind: str
    detail: str

    def line(self) -> str:
        shown = CLASSES[self.kind].shown
        return f"{self.file}: {self.member}: {shown}, class {self.kind} ({self.detail})"


@dataclass
class ReferenceVerdict:
    """A comparison's outcome: what refuses the file, and what differs by an accepted class."""

    problems: list[str] = field(default_factory=list)
    accepted: list[Difference] = field(default_factory=list)
    reference: str = ""
    """The digest of the reference build compared with (recorded in the manifest)."""

    def add(self, other: ReferenceVerdict) -> ReferenceVerdict:
        self.problems += other.problems
        self.accepted += other.accepted
        self.reference = other.reference or self.reference
        return self
