"""Smoke test of an installed wheel: ``python -m native_adopter`` (exit 0 when it works)."""

import sys

import native_adopter
from native_adopter import _speedups

result = native_adopter.dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
if result != 32.0:
    sys.exit(f"native_adopter.dot gave {result}, expected 32.0")
print(f"native_adopter {native_adopter.__version__}: dot ok ({_speedups.__file__})")
