"""Small models for the perf integration tests (spec module: no torch import here)."""

from mlrelease.perf.catalog import InputShape, ModelSpec

VECTOR = InputShape("v16", (16,))
HUGE = InputShape("v65536", (65536,))

# A two-layer MLP: exports, runs everywhere; one shape it "cannot take".
TINY = ModelSpec(
    "tiny",
    "Tiny MLP",
    "tiny_builders:build_tiny",
    (VECTOR, HUGE),
    not_applicable={HUGE.key: "the tiny MLP takes 16 features"},
)

# Calls a custom operator the ONNX exporter has no translation for: its export fails.
UNEXPORTABLE = ModelSpec(
    "unexportable", "MLP with a custom op", "tiny_builders:build_unexportable", (VECTOR,)
)

# About a millisecond a run: for timing tests whose injected slowdown must dominate its overhead.
WIDE = ModelSpec("wide", "Wide MLP", "tiny_builders:build_wide", (VECTOR,))

# Sums over the batch axis: batch 1 matches its reference, a bigger batch cannot (its output is
# not the batch-1 output repeated) in every framework: a deterministic parity failure that runs.
BATCH_MIXING = ModelSpec(
    "batchmix", "MLP that mixes the batch", "tiny_builders:build_batch_mixing", (VECTOR,)
)
