"""The C extension of native-adopter (everything else is in pyproject.toml).

It is built against the stable ABI of CPython 3.10 (abi3): one wheel per platform serves every
later CPython, and cibuildwheel tests that one wheel on each CPython version it lists.
"""

import sys

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "native_adopter._speedups",
            sources=["src/native_adopter/_speedups.c"],
            define_macros=[("Py_LIMITED_API", "0x030A0000")],
            # fma() is in libm on POSIX systems; the Windows C runtime has it built in.
            libraries=[] if sys.platform == "win32" else ["m"],
            py_limited_api=True,
        ),
    ],
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)
