"""The adopter's own test: the C kernel computes a dot product and rejects bad input."""

import pytest
from native_adopter import dot


def test_dot() -> None:
    assert dot([1.0, 2.0], [3.0, 4.0]) == 11.0


def test_lengths_differ() -> None:
    with pytest.raises(ValueError, match="lengths differ"):
        dot([1.0], [1.0, 2.0])
