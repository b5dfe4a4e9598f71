"""bump-my-version with fault points inside its own file writes (a test hook).

``python -m mlrelease.project.bump_faults ARGS`` runs ``bump-my-version ARGS`` after wrapping
the two ways it writes a file (``ConfiguredFile.write_file_contents`` for the listed files,
``Path.write_text`` for ``current_version`` in pyproject.toml): each write first truncates the
file, as ``open(path, "w")`` does, then writes it, with a fault point after each stage:

- ``bmv:truncated:N-FILE``: the Nth write emptied FILE (an empty pyproject.toml);
- ``bmv:after:N-FILE``: the Nth write is complete; later files are not written yet (a
  mixed-version tree).

:func:`mlrelease.project.bump.execute` runs this module instead of bump-my-version only while
the fault-injection environment is set (:func:`mlrelease.edges.faults.active`): the kill
harness kills the bump there and checks that a re-run converges. The process kills the command
above it too (:func:`~mlrelease.edges.faults.fault_env`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mlrelease.edges.faults import fault_point


def install(root: Path) -> None:
    """Wrap bump-my-version's file writes with the fault points."""
    from bumpversion import files

    count = 0

    def staged(write: Callable[[str], Any], filename: str, contents: str) -> None:
        nonlocal count
        count += 1
        path = Path(filename).resolve()
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        write("")
        fault_point(f"bmv:truncated:{count}-{name}")
        write(contents)
        fault_point(f"bmv:after:{count}-{name}")

    configured = files.ConfiguredFile.write_file_contents

    def write_file_contents(self: Any, contents: str) -> None:
        staged(lambda text: configured(self, text), self.file_change.filename, contents)

    write_text = Path.write_text

    def path_write_text(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        staged(lambda text: write_text(self, text, *args, **kwargs), str(self), data)
        return len(data)

    files.ConfiguredFile.write_file_contents = write_file_contents
    Path.write_text = path_write_text  # type: ignore[method-assign]


def main() -> None:
    install(Path.cwd().resolve())
    from bumpversion.cli import cli

    sys.argv[0] = "bump-my-version"
    cli()


if __name__ == "__main__":
    main()
