"""Edges: one module per outside system (git, processes, onnxruntime); the core never touches
them directly."""
