"""Step 0: the file is safe to parse and run (:mod:`mlrelease.models.integrity`)."""

from __future__ import annotations

from pathlib import Path

from mlrelease.models import integrity
from mlrelease.models.steps.state import State, verdict
from mlrelease.models.verdicts import Outcome, StepVerdict


def step_integrity(state: State) -> StepVerdict:
    job = state.job
    found, header = integrity.check_model(
        state.path,
        Path(job.confine),
        job.checksums,
        job.max_tensor_elements,
        hard_links=job.trusted,
    )
    if found.problems:
        state.stop = "step 0 (integrity) failed; the file is not safe to parse or run"
        return verdict("integrity", Outcome.FAIL, found.problems[0], found.problems)
    state.header = header
    state.external_files = found.external_files
    assert header is not None
    size = state.path.stat().st_size + sum(p.stat().st_size for p in found.external_files)
    checks = f"{len(job.checksums)} checksum(s) match; " if job.checksums else ""
    external = (
        f", {len(found.external_files)} external data file(s)" if found.external_files else ""
    )
    return verdict(
        "integrity",
        Outcome.PASS,
        f"{checks}{found.tensors} tensors consistent with their shapes, {size / 2**20:,.1f} MiB"
        f"{external}",
    )
