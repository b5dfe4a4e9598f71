"""Pure or native: extension modules count only with compiled sources to build (pure)."""

from __future__ import annotations

from mlrelease.init import detect
from mlrelease.init.snapshot import Snapshot

TORCHDATA_SETUP = (
    "from setuptools import setup\n"
    "from tools.setup_helpers.extension import get_ext_modules\n"
    "setup(name='torchdata', ext_modules=get_ext_modules())\n"
)
"""torchdata: setup.py passes ext_modules, and get_ext_modules() returns []."""


def build(texts: dict[str, str]) -> detect.WheelBuild:
    return detect.build_kind(Snapshot(files=sorted(texts), texts=texts))


def test_extension_modules_without_compiled_sources_are_a_pure_wheel() -> None:
    found = build({"setup.py": TORCHDATA_SETUP, "tools/setup_helpers/extension.py": ""})
    assert found.kind == "pure"
    assert "setup.py names extension modules, but the repository holds no compiled source" in (
        found.why
    )
    assert found.why.endswith("one py3-none-any wheel")


def test_extension_modules_with_compiled_sources_are_native() -> None:
    found = build({"setup.py": TORCHDATA_SETUP, "csrc/ops.cpp": "", "tests/helper.c": ""})
    assert found.kind == "native"
    assert found.why.startswith("setup.py builds extension modules; 1 compiled source file(s)")


def test_sources_only_in_tests_build_nothing() -> None:
    found = build({"setup.py": TORCHDATA_SETUP, "test/fixture.cpp": ""})
    assert found.kind == "pure"
