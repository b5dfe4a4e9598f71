"""The verdict cache of the ``models`` gate: a model verified once is not verified again until
its files or the tools change.

A verdict is stored under a key made of the SHA-256 of every file the job names (the model,
expected outputs, every file of its test data folders), the whole job (steps, tolerances,
limits, probed runtime limits, runtime specs) and the versions of mlrelease, onnx, onnxruntime,
numpy and Python. External data files are found by step 0, so the entry records their SHA-256
and is used only while they still match. Only passing verdicts are stored: a failure is always
measured again. Only trusted model sets (the project's manifest) use the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import mlrelease
from mlrelease.edges.digests import sha256
from mlrelease.models.manifest import ModelJob
from mlrelease.models.verdicts import ModelVerdict

CACHE_FORMAT = 1
"""Bumped whenever the key or the entry layout changes (old entries are then ignored)."""


def tool_versions() -> dict[str, str]:
    """The versions a verdict depends on."""
    versions = {"mlrelease": mlrelease.__version__, "python": platform.python_version()}
    for dist in ("onnx", "onnxruntime", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "-"
    return versions


def _job_files(job: ModelJob) -> list[Path]:
    files = [Path(job.model), *map(Path, job.expected_outputs)]
    for folder in map(Path, job.test_data):
        if folder.is_dir():
            files.extend(sorted(p for p in folder.rglob("*") if p.is_file()))
    return files


def key(job: ModelJob) -> str | None:
    """The cache key of ``job`` (None when a file it names cannot be read: never cached)."""
    try:
        files = {str(p): sha256(p) for p in _job_files(job)}
    except OSError:
        return None
    material = {
        "format": CACHE_FORMAT,
        "job": job.to_dict(),
        "files": files,
        "tools": tool_versions(),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def _entry_path(cache_dir: Path, digest: str) -> Path:
    return cache_dir / "models" / f"verdict-{digest}.json"


def load(cache_dir: Path, digest: str) -> ModelVerdict | None:
    """The cached verdict for ``digest`` if its external data files are unchanged."""
    path = _entry_path(cache_dir, digest)
    try:
        entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for name, sha in entry["external"].items():
            if sha256(Path(name)) != sha:
                return None
        verdict = ModelVerdict.from_dict(entry["verdict"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, unreadable or stale: measured again
    verdict.cached = True
    return verdict


def store(cache_dir: Path, digest: str, verdict: ModelVerdict) -> None:
    """Store a passing verdict (atomically); a cache that cannot be written is skipped."""
    if not verdict.ok:
        return
    with contextlib.suppress(OSError):
        external = {name: sha256(Path(name)) for name in verdict.external_files}
        path = _entry_path(cache_dir, digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
        ) as handle:
            json.dump({"external": external, "verdict": verdict.to_dict()}, handle, indent=1)
        os.replace(handle.name, path)
