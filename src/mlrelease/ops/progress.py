"""The live progress of a conformance run on the console: a spinner while the cases load, then a
bar per backend with the counts by verdict so far."""

from __future__ import annotations

from collections import Counter
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mlrelease.ops.config import BackendConfig
from mlrelease.ops.verdicts import CaseResult, ConformanceVerdict

STYLES = {  # the console style of each verdict
    ConformanceVerdict.PASS: "green",
    ConformanceVerdict.WRONG_RESULT: "bold red",
    ConformanceVerdict.NOT_IMPLEMENTED: "yellow",
    ConformanceVerdict.OPSET_UNSUPPORTED: "cyan",
    ConformanceVerdict.IR_UNSUPPORTED: "cyan",
    ConformanceVerdict.CRASH: "bold magenta",
    ConformanceVerdict.TIMEOUT: "magenta",
    ConformanceVerdict.ERROR: "red",
    ConformanceVerdict.ENVIRONMENT: "dim",
}


class Display:
    """A progress bar per backend with counts by verdict."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}
        self.counts: dict[str, Counter[ConformanceVerdict]] = {}

    def start(self, backends: list[BackendConfig], cases: int) -> None:
        for backend in backends:
            self.counts[backend.name] = Counter()
            self.tasks[backend.name] = self.progress.add_task(backend.name, total=cases, counts="")

    def result(self, result: CaseResult) -> None:
        counts = self.counts[result.backend]
        counts[result.verdict] += 1
        text = " ".join(
            f"[{STYLES[v]}]{v.label} {counts[v]}[/]" for v in ConformanceVerdict if counts[v]
        )
        self.progress.update(self.tasks[result.backend], advance=1, counts=text)


def bar(console: Console) -> Progress:
    """The bars' layout: backend, bar, cases done of all, time, counts by verdict."""
    return Progress(
        TextColumn("{task.description:<18}"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[counts]}"),
        console=console,
        transient=False,
    )


class ConsoleProgress:
    """A conformance run on the console (:class:`mlrelease.ops.verbs.RunProgress`): a spinner
    while the cases load, then a bar per backend."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.display = Display(bar(console))

    def loading(self) -> AbstractContextManager[Any]:
        return self.console.status("Loading the conformance cases")

    def generating(self, path: Path) -> None:
        self.console.print(
            f"Generating the onnx node test cases (once per onnx version) into {path}"
        )

    def running(self) -> AbstractContextManager[Any]:
        return self.display.progress

    def start(self, backends: list[BackendConfig], cases: int) -> None:
        self.display.start(backends, cases)

    def result(self, result: CaseResult) -> None:
        self.display.result(result)
