"""What an ``mlrelease ops`` command was asked: one frozen value, built once from the command
line by :mod:`mlrelease.ops.cli` (as cibuildwheel's ``CommandLineArguments``). The commands'
decisions (:mod:`mlrelease.ops.verbs`) read this value, never argparse's namespace; each verb
fills the options it has and leaves the others at their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges.files import Mode


@dataclass(frozen=True)
class OpsArguments:
    """The options of one ``mlrelease ops`` command."""

    mode: Mode = Mode.DRY_RUN
    """``ops index``: show the diff of the index and page, write them, or check them."""
    wrote_by_default: bool = False
    """``ops index`` wrote by default until the dry run became the default (say so)."""
    jobs: int = 0
    """Worker processes (0: ``[tool.mlrelease.ops] jobs``, else one per CPU)."""
    backends: tuple[str, ...] = ()
    """Run only these configured backends (none: every one)."""
    select: tuple[str, ...] = ()
    """Run or list only the cases whose names match these fnmatch patterns."""
    diff: str = ""
    """``ops index --diff``: also compare with this previous index (a file, a ref, ``auto``)."""
    from_results: tuple[Path, ...] = ()
    """``ops index --from-results``: build the index from these results files (CI shards)."""
    shard: tuple[int, int] | None = None
    """``ops run --shard I/N``: run shard I of N."""
    output: Path | None = None
    """``ops run -o``: the results file (default: in the build folder)."""
    old: str = ""
    """``ops diff OLD``: the index compared from."""
    new: str = ""
    """``ops diff OLD NEW``: the index compared to (empty: the committed one)."""
