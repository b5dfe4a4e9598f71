"""The suite's parallel run keeps each shared build on one worker (tests/conftest.py
SHARED_BUILDS): with the installed pytest and pytest-xdist, `--dist loadgroup` sends every test
of one `xdist_group` to one worker. When it does not (pytest 9.2 with pytest-xdist 3.8,
pytest-dev/pytest-xdist#1386), every worker builds every shared fixture: slower, and two
builds of the same folder race."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

GROUPED = """\
import pytest


@pytest.fixture(scope="session")
def shared():
    return object()


@pytest.mark.parametrize("case", ["a/b", "c", "d", "e"])
def test_marked_by_the_hook(shared, case):
    pass
"""

CONFTEST = """\
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if "shared" in item.fixturenames:
            item.add_marker(pytest.mark.xdist_group("shared"))
"""


def test_one_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # not the repo's
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "test_grouped.py").write_text(GROUPED, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-n", "2"]
    proc = subprocess.run(
        [*command, "--dist", "loadgroup", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    workers = set(re.findall(r"^\[(gw\d+)\] .*PASSED", proc.stdout, re.MULTILINE))
    assert len(workers) == 1, f"one group ran on {sorted(workers)}:\n{proc.stdout}"
