"""Where an RC's files were published: ``release publish`` records, per channel, the index it
uploads to, beside this clone's content store (``.git/mlrelease/published/<rc tag>.json``),
before its first upload; ``release promote`` and ``release status`` read that index when none
is given.

The record is this clone's: a clone that did not publish (a fresh CI clone) reads the index
configured for the release channel, or is told one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mlrelease.release.promotion import store


def path(home: Path, rc: str) -> Path:
    return home / "published" / f"{rc}.json"


def read(home: Path, rc: str) -> dict[str, str]:
    """channel -> the index URL ``release publish`` sent ``rc``'s files to from this clone
    (``home``: its mlrelease folder, :func:`.store.home`)."""
    try:
        data = json.loads(path(home, rc).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def write(root: Path, rc: str, channel: str, url: str) -> None:
    """Record that ``rc``'s files are published to ``url`` on ``channel`` (atomically)."""
    home = store.folder(root).parent
    target = path(home, rc)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = {**read(home, rc), channel: url}
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, target)
