"""Extract the recorded data of the conda-forge replay (``docs/case-studies/onnx-conda.json``)
from conda-forge/onnx-feedstock's history, onnx's tags and onnx's PyPI sdists.

The data is what ``scripts/case_study_conda.py`` replays, so the page regenerates (and is
drift-checked) where none of the three sources can be reached, CI included:

- for each onnx release of the window, the feedstock's recipe just before the version update
  was merged (the first parent of the merge) and the recipe the maintainers merged;
- the release's facts read from its PyPI sdist (``Requires-Dist``, ``Requires-Python``,
  ``[build-system] requires``, what its CMake files find) and the SHA-256 of the tag's source
  archive as GitHub serves it (``git archive`` under ``onnx-X/``, ``gzip -n``): the recipe's
  source is that archive;
- whether each of the recipe's patches applies to that archive (``git apply --check``, in the
  recipe's order), and, as a check of the checker, whether the merged recipe's patches do:
  the sources are not recorded, the verdicts are.

Run (the repositories come from ``fetch github:conda-forge/onnx-feedstock`` and
``fetch github:onnx/onnx``; the sdists from ``pip download --no-deps --no-binary onnx onnx==X``)::

    python scripts/case_study_conda_extract.py --feedstock FEEDSTOCK.git --onnx ONNX.git \\
        --sdists DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from mlrelease.conda import patches, recipe, release

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "case-studies" / "onnx-conda.json"

WINDOW = ("2024-11-28", "2026-11-28")
"""The last two years, as the issue counts them."""

MERGES = {
    "1.18.0": "884223e",
    "1.19.0": "11aa949",
    "1.19.1": "b5d67c9",
    "1.20.0": "723f78d",
    "1.21.0": "3f728bd",
    "1.22.0": "fdf4dae",
}
"""Each onnx release of the window -> the feedstock's merge that updated it (first-parent
history of main: the autotick bot's PRs #130, #134, #136, #144, the maintainers' #137 and #150)."""

UNMERGED = {
    "1.20.1": "on PyPI; the feedstock went from 1.20.0 to 1.21.0 without it (no merge to "
    "compare with)",
    "1.23.0": "on PyPI; the fetched feedstock (last commit 2026-06-23) has no recipe for it and "
    "the fetched onnx repository no tag v1.23.0: nothing to replay or compare",
    "1.23.1": "as 1.23.0",
    "1.23.2": "as 1.23.0",
}
"""onnx releases of the window on PyPI (``pip index versions onnx``) with no merged recipe."""


def git(repo: Path, *args: str, data: bool = False) -> Any:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)
    return proc.stdout if data else proc.stdout.decode()


def recipe_at(stock: Path, commit: str) -> tuple[str, str]:
    for path in ("recipe/recipe.yaml", "recipe/meta.yaml"):
        found = subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=stock, capture_output=True, text=True
        )
        if found.returncode == 0:
            return path, found.stdout
    raise SystemExit(f"{commit}: no recipe")


def archive(onnx: Path, version: str) -> bytes:
    tar = git(
        onnx, "archive", "--format=tar", f"--prefix=onnx-{version}/", f"v{version}", data=True
    )
    packed: bytes = subprocess.run(
        ["gzip", "-n"], input=tar, capture_output=True, check=True
    ).stdout
    return packed


def facts(sdists: Path, version: str) -> release.ReleaseFacts:
    path = sdists / f"onnx-{version}.tar.gz"
    return release.from_files("onnx", (path.name, path.read_bytes()))


def recorded(found: release.ReleaseFacts) -> dict[str, Any]:
    return {
        "version": str(found.version),
        "requires": list(found.requires),
        "requires_python": found.requires_python,
        "build_requires": list(found.build_requires),
        "cmake_packages": list(found.cmake_packages),
    }


def one(stock: Path, onnx: Path, sdists: Path, version: str, merge: str) -> dict[str, Any]:
    base = git(stock, "rev-parse", f"{merge}^1").strip()
    path, before = recipe_at(stock, base)
    _, merged = recipe_at(stock, merge)
    kind = recipe.V1 if path.endswith(recipe.V1) else recipe.META
    current = recipe.parse(before, kind)
    previous = current.version.text if current.version else ""
    data = archive(onnx, version)
    sources = release.tar_files(data)
    listed = git(stock, "ls-tree", "-r", "--name-only", base).splitlines()
    texts = {p: git(stock, "show", f"{base}:{p}") for p in listed if p.endswith(".patch")}
    problems = patches.check(texts, [p.text for p in current.patches], sources)
    final = recipe.parse(merged, kind)
    merged_texts = {
        p: git(stock, "show", f"{merge}:{p}")
        for p in git(stock, "ls-tree", "-r", "--name-only", merge).splitlines()
        if p.endswith(".patch")
    }
    checker = patches.check(merged_texts, [p.text for p in final.patches], sources)
    now = facts(sdists, version)
    return {
        "version": version,
        "merge": git(stock, "rev-parse", merge).strip(),
        "base": base,
        "merged_on": git(stock, "show", "-s", "--format=%cs", merge).strip(),
        "recipe": path,
        "before": before,
        "merged": merged,
        "source": {"name": f"v{version}.tar.gz", "sha256": hashlib.sha256(data).hexdigest()},
        "sdist_sha256": hashlib.sha256(
            (sdists / f"onnx-{version}.tar.gz").read_bytes()
        ).hexdigest(),
        "release": recorded(now),
        "previous": recorded(facts(sdists, previous)) if previous else None,
        "patch_problems": problems,
        "merged_patch_problems": checker,
        "patches": [p.text for p in current.patches],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feedstock", type=Path, required=True)
    parser.add_argument("--onnx", type=Path, required=True)
    parser.add_argument("--sdists", type=Path, required=True)
    args = parser.parse_args()
    head = git(args.feedstock, "log", "-1", "--format=%H %cs").split()
    data = {
        "window": list(WINDOW),
        "feedstock": {"repository": "conda-forge/onnx-feedstock", "head": head[0], "date": head[1]},
        "command": "python scripts/case_study_conda_extract.py --feedstock FEEDSTOCK.git "
        "--onnx ONNX.git --sdists DIR",
        "releases": [one(args.feedstock, args.onnx, args.sdists, v, m) for v, m in MERGES.items()],
        "unmerged": UNMERGED,
    }
    DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DATA} ({DATA.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
