"""What the case-study scripts share (``case_study_onnx.py``, ``case_study_torch_tensorrt.py``):
git, Markdown tables, and ``mlrelease init --execute`` on a checkout with what it changed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mlrelease.init import detect, snapshot

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def git(root: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    ).stdout.strip()


def mlrelease(
    root: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m mlrelease --root ROOT ARGS`` with this repository's mlrelease, wide output
    (a note stays on one line)."""
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "4000", "PYTHONPATH": str(SRC), **(env or {})},
    )


def init_in(work: Path) -> dict[str, Any]:
    """``mlrelease init --execute`` in the checkout ``work``: its findings, the text it
    appended, whether it only appended, the files it changed and its notes."""
    before = (work / "pyproject.toml").read_text(encoding="utf-8")
    found = detect.detect(snapshot.take(work))
    proc = mlrelease(work, "init", "--execute")
    if proc.returncode != 0:
        raise SystemExit(f"mlrelease init failed: {proc.stderr or proc.stdout}")
    notes = (proc.stdout + proc.stderr).splitlines()
    after = (work / "pyproject.toml").read_text(encoding="utf-8")
    status = git(work, "status", "--porcelain")
    return {
        "findings": found.findings(),
        "written": after[len(before) :].strip("\n") if after.startswith(before) else after,
        "appended": after.startswith(before),
        "changed": [line.split(maxsplit=1)[1] for line in status.splitlines()],
        "notes": [n[2:] for n in notes if n.startswith("- ")],
        "platforms": next((n[2:] for n in notes if n.startswith("- required-platforms:")), ""),
    }


def cell(value: object) -> str:
    return " ".join(str(value).split()).replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return [*lines, ""]


def init_lines(init: Mapping[str, Any], where: str) -> list[str]:
    """What init found and wrote (:func:`init_in`'s result), ``where`` naming the checkout."""
    changed = init["changed"]
    return [
        f"`mlrelease init --execute` ran in {where}. Files it changed: "
        f"{', '.join(f'`{c}`' for c in changed)} "
        f"({'nothing else' if changed == ['pyproject.toml'] else 'MORE THAN pyproject'}"
        f"; {'appended, the existing text untouched' if init['appended'] else 'REWRITTEN'}).",
        "",
        *table(["topic", "found", "why"], [(f.topic, f.found, f.why) for f in init["findings"]]),
        "Appended to `pyproject.toml`:",
        "",
        "```toml",
        init["written"],
        "```",
        "",
    ]
