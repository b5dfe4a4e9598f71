"""``[tool.mlrelease.conda]``: the feedstock a release updates, and how its recipe is read."""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.utils import canonicalize_name

from mlrelease.config import Config
from mlrelease.errors import ConfigError

TABLE = "tool.mlrelease.conda"
SOURCES = ("sdist", "archive")
PINS = ("exact", "patch", "minor", "major")


@dataclass(frozen=True)
class CondaConfig:
    """``[tool.mlrelease.conda]``: the conda-forge feedstock of the project."""

    feedstock: str = ""
    """A clone of the feedstock (a folder, relative to the project root): its ``remote`` is
    read, and ``--execute`` writes the change's branch there (``--push``: and to the remote)."""
    remote: str = "origin"
    """The feedstock clone's remote: the recipe is read from its ``branch``."""
    branch: str = "main"
    """The feedstock branch the change starts from (conda-forge's default is ``main``)."""
    recipe: str = ""
    """The recipe file in the feedstock; empty: ``recipe/recipe.yaml`` (rattler-build), else
    ``recipe/meta.yaml`` (conda-build)."""
    package: str = ""
    """The conda package name; empty: the project's name through the PyPI-to-conda mapping."""
    source: str = "sdist"
    """What the recipe's ``sha256`` is of: ``sdist`` (the bound sdist, as PyPI serves it) or
    ``archive`` (the final tag's source archive as GitHub serves it: ``git archive`` of the
    tag with the prefix ``<name>-<version>/``, compressed by ``gzip -n``)."""
    siblings: dict[str, str] = field(default_factory=dict)
    """Train siblings: PyPI name -> how the conda pin follows the version the wheels require
    (``exact``, ``patch``, ``minor``, ``major``): ``{ torch = "minor" }`` turns
    ``torch==2.13.0`` into ``pytorch >=2.13,<2.14``."""
    rc_label: str = ""
    """The label release candidates go to (CFEP-05); empty: ``<package>_rc``."""
    channel: str = ""
    """A conda channel rattler-build may build from (a URL or a folder); empty: render and
    lint only (a build needs conda channels)."""


TABLES: dict[str, type] = {"conda": CondaConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""


def check(config: Config) -> None:
    """Refuse at load what the types cannot say: an unknown source or sibling pin."""
    table = config.table(CondaConfig)
    source = str(config.pyproject_path)
    if table.source not in SOURCES:
        raise ConfigError(
            f"{TABLE}.source",
            f"one of {', '.join(SOURCES)}",
            repr(table.source),
            source=source,
            hint="`sdist`: the recipe downloads the sdist from PyPI; `archive`: GitHub's "
            "archive of the tag.",
        )
    for name, pin in table.siblings.items():
        if pin not in PINS:
            raise ConfigError(
                f"{TABLE}.siblings.{name}",
                f"one of {', '.join(PINS)}",
                repr(pin),
                source=source,
                hint='e.g. siblings = { torch = "minor" } pins pytorch >=X.Y,<X.Y+1.',
            )
        if canonicalize_name(name) != name.lower().replace("_", "-"):
            raise ConfigError(
                f"{TABLE}.siblings",
                "PyPI project names",
                repr(name),
                source=source,
            )


CHECKS = (check,)
