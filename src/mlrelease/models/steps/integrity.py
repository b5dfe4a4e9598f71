"""Step 0: the file is safe to parse and run, read once into a private copy
(:mod:`mlrelease.models.staging`, :mod:`mlrelease.models.integrity`)."""

from __future__ import annotations

from pathlib import Path

from mlrelease.models.staging import Budget, stage_model
from mlrelease.models.steps.state import State, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict

WEIGHT_STEPS = frozenset({"inference", "version_conversion", "performance"})
"""Steps that load a model's weights (its external data counts against the size budget)."""


def step_integrity(state: State) -> StepVerdict:
    job = state.job
    if state.root is None:
        state.stop = "step 0 (integrity) could not open the model's folder"
        return verdict("integrity", StepStatus.FAIL, state.refused or state.stop)
    limits = Budget(job.max_nodes, job.max_model_bytes, bool(WEIGHT_STEPS & set(job.steps)))
    staged = stage_model(
        state.root,
        Path(job.model),
        state.tmp / "model",
        job.checksums,
        job.max_tensor_elements,
        limits,
    )
    found = staged.found
    if found.problems or staged.header is None:
        state.stop = "step 0 (integrity) failed; the file is not safe to parse or run"
        problems = found.problems or ["step 0 read nothing"]
        return verdict("integrity", StepStatus.FAIL, problems[0], problems)
    state.header, state.model = staged.header, staged.model
    state.external_files, state.sources = found.external_files, staged.external
    checks = f"{len(job.checksums)} checksum(s) match; " if job.checksums else ""
    external = (
        f", {len(found.external_files)} external data file(s)" if found.external_files else ""
    )
    return verdict(
        "integrity",
        StepStatus.PASS,
        f"{checks}{found.tensors} tensors consistent with their shapes, {staged.nodes:,} nodes, "
        f"{staged.size_bytes / 2**20:,.1f} MiB{external}",
        ["each file read once into a private copy; later steps use only the copy"],
    )
