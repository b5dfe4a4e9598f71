"""Edges: one module per outside system (processes, ...); the core never touches them directly."""
