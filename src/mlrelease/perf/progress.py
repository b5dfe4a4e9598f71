"""A profile run on the console: a line per build probed, then one bar over every worker call
(:class:`mlrelease.perf.run_context.ProfileProgress`, drawn with rich)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class ProfileBar:
    """The console's view of a profile run: what each step is doing, and how many are done."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._bar: tuple[Progress, TaskID] | None = None

    def probing(self, build: str, python: str) -> None:
        # `[build]` is not markup: rich would swallow `[current]` as a style tag.
        self.console.print(f"[{build}] probing {python} ...", markup=False)

    @contextmanager
    def running(self, total: int) -> Iterator[None]:
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=self.console, transient=False) as progress:
            self._bar = (progress, progress.add_task("perf", total=total))
            try:
                yield
            finally:
                self._bar = None

    def step(self, description: str) -> None:
        if self._bar is not None:
            self._bar[0].update(self._bar[1], description=description)

    def advance(self, steps: int = 1) -> None:
        if self._bar is not None:
            self._bar[0].advance(self._bar[1], steps)

    def extend(self, steps: int) -> None:
        if self._bar is not None:
            progress, task = self._bar
            total = next(t.total for t in progress.tasks if t.id == task) or 0
            progress.update(task, total=total + steps)
