"""Operator-versioning rules (ONNX PR 186): declared schemas checked against the previous
release's snapshot (the ``opset_rules`` gate, ``mlrelease opset snapshot``)."""
