"""What the steps of one model share: its job, its temp folder, what earlier steps found."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mlrelease.models.config import RuntimeSpec
from mlrelease.models.manifest import ModelJob
from mlrelease.models.runtimes import Runtime, Unavailable
from mlrelease.models.safefile import Root
from mlrelease.models.verdicts import StepStatus, StepVerdict

if TYPE_CHECKING:
    import numpy as np
    from onnx import ModelProto


Arrays = list["np.ndarray"]


@dataclass
class Dataset:
    name: str
    feeds: dict[str, np.ndarray]
    expected: Arrays | None


@dataclass
class State:
    """What the steps of one model share."""

    job: ModelJob
    tmp: Path
    root: Root | None = None
    """The folder the job's files are read from, opened once (None: it could not be opened,
    and ``refused`` says why)."""
    refused: str = ""
    header: ModelProto | None = None
    model: Path | None = None
    """Step 0's private copy of the model file: what every later step opens."""
    external_files: set[Path] = field(default_factory=set)
    """Step 0's private copies of the external data files."""
    sources: dict[Path, Path] = field(default_factory=dict)
    """Private copy -> the file it was read from."""
    stop: str = ""
    """Set when later steps must not run (integrity failed): the reason."""
    datasets: list[Dataset] | None = None
    baseline: list[Arrays] | None = None
    """Outputs step 6 compares against: expected outputs, else the reference's, else step 5's."""
    _runtimes: list[Runtime | Unavailable] | None = None

    @property
    def path(self) -> Path:
        """The private copy of the model (step 0 made it; no later step runs without it)."""
        if self.model is None:
            raise RuntimeError("step 0 (integrity) made no private copy of the model")
        return self.model

    def runtimes(self) -> list[Runtime | Unavailable]:
        if self._runtimes is None:
            from mlrelease.models import runtimes

            runtimes.import_plugins(self.job.runtime_plugins, source="runtime-plugins")
            specs = [RuntimeSpec(**spec) for spec in self.job.runtimes] or [RuntimeSpec()]
            self._runtimes = runtimes.resolve(specs)
        return self._runtimes


def verdict(
    step: str, outcome: StepStatus, summary: str, details: list[str] | None = None
) -> StepVerdict:
    return StepVerdict(step, outcome, summary, details or [])


def first_line(error: object) -> str:
    text = str(error).strip()
    return " ".join(text.splitlines()[0].split()) if text else type(error).__name__
