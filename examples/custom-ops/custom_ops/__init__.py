"""A small custom ONNX operator domain, ``com.example.custom``, and a backend that runs it.

Opset 1: ``Swish(X; alpha=1.0) = X * sigmoid(alpha * X)`` and ``FastGelu(X)`` (the tanh
approximation of GELU). Opset 2 adds ``LayerScale(X, gamma) = X * gamma``.
"""

__version__ = "0.1.0"

DOMAIN = "com.example.custom"
OPSET = 2
"""The newest opset of the domain this package implements."""
