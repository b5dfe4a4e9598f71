"""Probed runtime limits, cached on disk: one file per runtime, its version and provider, its
acceptance settings, the onnx version that built the probe models and the probe format, so a
warm run does not probe again and a changed runtime never reads a stale entry."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from mlrelease.errors import UserError
from mlrelease.models.runtimes import PROBE_FORMAT, Runtime, RuntimeLimits, probe


def default_cache_dir(configured: str = "", root: Path | None = None) -> Path:
    """``configured`` (relative to ``root``), else ``$MLRELEASE_CACHE_DIR``, else the user cache."""
    if configured:
        path = Path(configured)
        return path if path.is_absolute() or root is None else root / path
    env = os.environ.get("MLRELEASE_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "mlrelease"


def cache_file(cache_dir: Path, runtime: Runtime) -> Path:
    """The probe cache entry of ``runtime`` under its current acceptance settings."""
    import onnx

    settings = json.dumps(runtime.acceptance(), sort_keys=True).encode()
    tag = hashlib.sha256(settings).hexdigest()[:12]
    name = f"{runtime.key}-onnx{onnx.__version__}-p{PROBE_FORMAT}-e{tag}.json"
    return cache_dir / "compat" / name


def cached_probe(
    runtime: Runtime, cache_dir: Path, domains: Iterable[str] = (), *, refresh: bool = False
) -> tuple[RuntimeLimits, bool]:
    """Limits of ``runtime`` from the cache, probing (and caching) when absent or incomplete.

    Returns the limits and whether they came from the cache.
    """
    path = cache_file(cache_dir, runtime)
    wanted = set(domains)
    if not refresh and path.is_file():
        try:
            limits = RuntimeLimits.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError):
            limits = None  # a corrupt cache entry is re-measured, not trusted
        if limits is not None and wanted <= set(limits.opsets):
            return limits, True
    limits = probe(runtime, wanted)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
        ) as handle:
            json.dump(limits.to_dict(), handle, indent=2, sort_keys=True)
        os.replace(handle.name, path)  # atomic: parallel probes never see half a file
    except OSError as exc:
        raise UserError(
            f"cannot write the compatibility cache {path}: {exc}. Set "
            "[tool.mlrelease.compat] cache-dir or $MLRELEASE_CACHE_DIR to a writable folder."
        ) from None
    return limits, False
