"""The Python launcher on every supported Python: a module run from a folder that ships
``mlrelease/``, ``build/``, ``tomllib.py``, ``json.py`` and even ``runpy.py`` imports none of
them, and neither the current directory nor a relative ``PYTHONPATH`` entry is on ``sys.path``.

Each planted module writes a marker file when imported; the markers must never appear. The
benign twin: a folder named on ``PYTHONPATH`` with an absolute path stays importable (it was
asked for), and a script's own folder stays first, as Python puts it there.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import plant_modules

from mlrelease.edges import proc

SUPPORTED = ("3.10", "3.11", "3.12", "3.13")
PLANTED = ("mlrelease/__init__.py", "build/__init__.py", "tomllib.py", "json.py", "runpy.py")


def _interpreter(version: str) -> str | None:
    """A working ``python{version}``: on PATH, or installed by pyenv (whose shims answer for
    versions that are installed but not selected)."""
    if sys.version_info[:2] == tuple(int(p) for p in version.split(".")):
        return sys.executable
    roots = {os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))}
    pyenv = shutil.which("pyenv")  # its root, whatever HOME is (CI runs with a fresh one)
    if pyenv:
        found = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        roots.add(found.stdout.strip() or str(Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python{version}")]
    for root in sorted(roots):
        candidates += sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"))
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "pass"], capture_output=True, check=False)
        if done.returncode == 0:
            return candidate
    return None


def plant(folder: Path, markers: Path) -> Path:
    """A folder full of modules that shadow the standard library and mlrelease."""
    return plant_modules(folder, markers, PLANTED)


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return proc.call(command, cwd=cwd, env=env, input='{"a": [1, 2]}', timeout=120)


@pytest.mark.parametrize("version", SUPPORTED)
def test_nothing_in_the_working_directory_is_imported(version: str, tmp_path: Path) -> None:
    python = _interpreter(version)
    if python is None:
        pytest.skip(f"python{version} is not installed on this machine")
    markers = tmp_path / "markers"
    markers.mkdir()
    here = plant(tmp_path / "submission", markers)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(["", ".", "build"])}
    env.pop("PYTHONSAFEPATH", None)

    tool = _run(proc.python_module("json.tool", interpreter=python), here, env)
    assert tool.returncode == 0, tool.stderr
    assert json.loads(tool.stdout) == {"a": [1, 2]}

    probe = "import json, os, sys; print(json.dumps([sys.path, os.environ.get('PYTHONPATH')]))"
    shown = _run(proc.python("-c", probe, interpreter=python), here, env)
    assert shown.returncode == 0, shown.stderr
    path, pythonpath = json.loads(shown.stdout)
    real = os.path.realpath(here)
    assert [p for p in path if not p or os.path.realpath(p).startswith(real)] == [], path
    assert pythonpath is None, "relative PYTHONPATH entries must not reach grandchildren"
    assert sorted(os.listdir(markers)) == [], "a module of the working directory was imported"


def test_mlrelease_itself_never_comes_from_the_working_directory(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    here = plant(tmp_path / "submission", markers)
    done = _run(proc.python_module("mlrelease", "--version"), here, dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(markers)) == []
    # Before the launcher: `python -m mlrelease` in that folder runs the planted package.
    naive = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--version"], cwd=here, capture_output=True, check=False
    )
    assert naive.returncode != 0 and (markers / "mlrelease___init__.py").exists()


def test_folders_asked_for_stay_importable(tmp_path: Path) -> None:
    """The benign twin: an absolute PYTHONPATH entry and a script's own folder are kept."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper_module.py").write_text("VALUE = 42\n", encoding="utf-8")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "sibling.py").write_text("WORD = 'hi'\n", encoding="utf-8")
    (scripts / "main.py").write_text(
        "import sys, helper_module, sibling\nprint(helper_module.VALUE, sibling.WORD, sys.argv)\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(lib)}
    done = _run(proc.python(str(scripts / "main.py"), "x"), tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 2)[:2] == ["42", "hi"]
    assert f"'{scripts / 'main.py'}', 'x'" in done.stdout


def test_a_missing_module_is_reported_as_python_m_reports_it(tmp_path: Path) -> None:
    done = _run(proc.python_module("no_such_module_here"), tmp_path, dict(os.environ))
    assert done.returncode == 1
    assert "No module named no_such_module_here" in done.stderr
