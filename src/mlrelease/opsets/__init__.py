"""Operator-versioning rules (ONNX PR 186): declared schemas checked against the previous
release's snapshot.

- :mod:`~mlrelease.opsets.config`: ``[tool.mlrelease.opset-rules]``.
- :mod:`~mlrelease.opsets.collect`: the declared schemas, collected in a fresh interpreter.
- :mod:`~mlrelease.opsets.rules`: the rules, a pure function of two snapshots.
- :mod:`~mlrelease.opsets.snapshot`: the snapshot file (stable JSON rendering, checked reading).
- :mod:`~mlrelease.opsets.gate`: the ``opset_rules`` gate; :mod:`~mlrelease.opsets.cli`:
  ``mlrelease opset snapshot``.
"""
