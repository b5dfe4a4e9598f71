"""``[tool.mlrelease.train]``: where a project keeps its train file, the compatibility matrix
page generated from the trains it released, and where the members' refs are fetched (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field

TABLE = "tool.mlrelease.train"


@dataclass(frozen=True)
class TrainConfig:
    """The ``[tool.mlrelease.train]`` table."""

    file: str = "train.toml"
    """The train file (:mod:`.declaration`) the ``train`` commands read without ``--train``."""
    trains: list[str] = field(default_factory=list)
    """Earlier train files, released: the matrix page covers them too, oldest first."""
    matrix: str = "docs/release/compatibility.md"
    """The compatibility matrix page ``mlrelease train matrix`` generates."""
    cache_dir: str = ""
    """Where the members' refs and files are fetched; empty: ``$MLRELEASE_CACHE_DIR/train`` or
    the user cache."""


TABLES: dict[str, type] = {"train": TrainConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
