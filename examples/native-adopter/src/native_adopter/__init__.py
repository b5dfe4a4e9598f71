"""native_adopter: an example adopter of mlrelease with a C extension."""

from native_adopter._speedups import dot

__version__ = "0.3.0"
__all__ = ["__version__", "dot"]
