"""What the onnx case study (``case_study_onnx.py``) runs outside its own process: one virtual
environment per package version under ``--env-dir`` (made on first use) with this repository's
mlrelease importable, the snippets run there, cibuildwheel's plan of a release, ``mlrelease ops
run`` on a release's node suite, and the file names onnx published on PyPI."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
import venv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from case_study_lib import SRC, git

CIBUILDWHEEL = "3.4.1"
"""The cibuildwheel onnx's release workflows pin at v1.22.0 (pypa/cibuildwheel@v3.4.1)."""

WHEEL_ARCHS = {"CIBW_ARCHS_LINUX": "x86_64 aarch64", "CIBW_ARCHS_WINDOWS": "AMD64 x86 ARM64"}
"""The architectures onnx's workflows build on (GitHub's native runners), which a plain
``--print-build-identifiers`` on one x86_64 machine would not list."""

OPS_PROJECT = """[project]
name = "ops-probe"
version = "0"

[tool.mlrelease]
gates = ["ops_index"]

[[tool.mlrelease.ops.backends]]
name = "onnxruntime-cpu"
kind = "onnxruntime"
provider = "CPUExecutionProvider"
"""
"""The smallest project whose ``mlrelease ops run`` measures onnxruntime on the node suite."""

HELPERS = ["numpy", "packaging", "rich"]
"""What mlrelease needs in every environment besides the package under study."""


def env_python(env_dir: Path, name: str, requirements: Sequence[str]) -> Path:
    """The interpreter of ``env_dir/name``, made with ``requirements`` on first use."""
    folder = env_dir / name
    python = folder / "bin" / "python"
    if not python.exists():
        venv.create(folder, with_pip=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *requirements, *HELPERS], check=True
        )
    return python


def in_env(python: Path, code: str) -> Any:
    """Run ``code`` (which prints JSON) with this repository's mlrelease importable."""
    proc = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=python.parent,  # never the onnx checkout: its source tree would shadow the package
        timeout=600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{python}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


FACTS = """
import json
from mlrelease.models.compat import onnx_facts, version_table_problems
f = onnx_facts()
print(json.dumps({"version": f.version, "ir": f.made.ir_version, "opsets": f.made.opsets,
                  "source": f.made.source, "table": version_table_problems(f)}))
"""

PROBE = """
import json
from mlrelease.models.runtimes import OnnxRuntime, probe
print(json.dumps(probe(OnnxRuntime("CPUExecutionProvider")).to_dict()))
"""

SCHEMAS = "import json; from mlrelease.opsets.collect import collect; print(json.dumps(collect()))"


def wheel_keys(checkout: Path, work: Path, release: str, env_dir: Path) -> set[str]:
    """What cibuildwheel (onnx's pinned version) plans for the release's [tool.cibuildwheel]."""
    git(checkout, "worktree", "add", "--detach", str(work), f"v{release}")
    python = env_python(env_dir, f"cibw-{CIBUILDWHEEL}", [f"cibuildwheel=={CIBUILDWHEEL}"])
    saved = dict(os.environ)
    # matrix.query runs the cibuildwheel of its own environment, never PATH's: run it in the
    # pinned one.
    os.environ.update(WHEEL_ARCHS)
    code = (
        "import json; from pathlib import Path; from mlrelease.wheels import matrix; "
        f"print(json.dumps([str(i) for i in matrix.query(Path({str(work)!r}))]))"
    )
    try:
        return set(in_env(python, code))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def published(env_dir: Path, releases: Iterable[str]) -> dict[str, list[str]]:
    """File names onnx published on PyPI per release (cached: reruns read the cache).

    From the project's JSON (``/pypi/onnx/json``): the per-release URL answers 404 here."""
    cache = env_dir / "pypi-onnx-files.json"
    wanted = sorted(set(releases))
    data: dict[str, list[str]] = (
        json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {}
    )
    if any(r not in data for r in wanted):
        url = "https://pypi.org/pypi/onnx/json"
        with urllib.request.urlopen(url, timeout=60) as response:
            files = json.loads(response.read())["releases"]
        data = {r: sorted(f["filename"] for f in files[r]) for r in wanted}
        cache.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return data


def ops_run(env_dir: Path, release: str, ort: str) -> dict[str, Any] | str:
    """``mlrelease ops run`` on onnx ``release``'s node suite against onnxruntime ``ort``: the
    results, or the error that stopped it."""
    python = env_python(env_dir, f"ops-{release}", [f"onnx=={release}", f"onnxruntime=={ort}"])
    project = env_dir / f"ops-{release}-project"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text(OPS_PROJECT, encoding="utf-8")
    results = project / "results.json"
    command = ["-m", "mlrelease", "--root", str(project), "ops", "run", "--jobs", "2"]
    proc = subprocess.run(
        [str(python), *command, "-o", str(results)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=project,
        timeout=1800,
    )
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return lines[-1] if lines else f"exit {proc.returncode}"
    data: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    return data
