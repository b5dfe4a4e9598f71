"""Replay real releases of ONNX and PyTorch projects with mlrelease's commands and write
docs/case-studies/adoption-corpus.md (``nox -s adoption_corpus``).

    python scripts/adoption_corpus.py [--mirrors DIR ...] [--clone] [--only NAME ...]
        [--jobs N] [--as-before COMMIT] [--execute | --check]

Each project is a data file in ``ci/adoption-corpus/`` (:mod:`adoption_corpus_key`): its
repository, the release, the commit where it started, how it names its refs, and the reviews of
the steps where mlrelease differs. Its history comes from a mirror (a bare clone) found under
each ``--mirrors`` folder (default ``$MLRELEASE_CORPUS_MIRRORS``, else
``build/adoption-corpus/mirrors``) as ``owner+name.git`` or ``owner+name/repo``; ``--clone``
clones a missing one from GitHub there first. From each mirror the answer key is derived
(``ci/adoption-corpus/<name>.key.json``) and the release replayed with the commands
(:mod:`adoption_corpus_replay`), ``--jobs`` projects at a time; the results are recorded in
docs/case-studies/adoption-corpus.json and the page rendered from them
(:mod:`adoption_corpus_page`).

Without a project's mirror its recorded results stand, and the run says so: the page is then
checked against what was recorded (the reviews may have changed), not replayed.
``--as-before COMMIT`` records this run as the page's *before* column (made with mlrelease at
COMMIT); otherwise the recorded before column is kept.

Like every generating command: a dry run shows the diff, ``--execute`` writes, ``--check``
fails on drift (the wall time, the one volatile figure, left out).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from adoption_corpus_key import Project, load
from adoption_corpus_page import page
from adoption_corpus_replay import replay

from mlrelease.edges import files

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "ci" / "adoption-corpus"
PAGE = ROOT / "docs" / "case-studies" / "adoption-corpus.md"
RESULTS = ROOT / "docs" / "case-studies" / "adoption-corpus.json"
MIRRORS = "MLRELEASE_CORPUS_MIRRORS"
DEFAULT_MIRRORS = ROOT / "build" / "adoption-corpus" / "mirrors"
WALL = "Wall time of the last replay:"
COMMAND = "python scripts/adoption_corpus.py"


def _has(mirror: Path, commit: str) -> bool:
    proc = subprocess.run(
        ["git", "--git-dir", str(mirror), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def mirror_of(project: Project, roots: list[Path]) -> Path | None:
    """The project's mirror under one of ``roots``: a git folder holding the release's start."""
    for root in roots:
        for place in (root / f"{project.slug}.git", root / project.slug / "repo"):
            if (place / "objects").is_dir() and _has(place, project.shape.start):
                return place
    return None


def clone(project: Project, root: Path) -> Path:
    """A bare clone of the project's history from GitHub (network), under ``root``."""
    place = root / f"{project.slug}.git"
    root.mkdir(parents=True, exist_ok=True)
    url = f"https://github.com/{project.snapshot}.git"
    print(f"cloning {url} into {place} ...", file=sys.stderr)
    subprocess.run(["git", "clone", "-q", "--bare", url, str(place)], check=True)
    if not _has(place, project.shape.start):
        raise SystemExit(
            f"{place}: the clone of {url} lacks {project.shape.start} "
            f"(ci/adoption-corpus/{project.name}.toml shape.start): was its history rewritten?"
        )
    return place


def recorded() -> dict[str, Any]:
    if RESULTS.is_file():
        data: dict[str, Any] = json.loads(RESULTS.read_text(encoding="utf-8"))
        return data
    return {"before": {"commit": "-", "steps": {}}, "projects": {}, "seconds": {}}


def _replayed(project: Project, mirror: Path) -> dict[str, Any]:
    began = time.monotonic()
    print(f"{project.name}: replaying {project.version} ...", file=sys.stderr)
    found = replay(project, mirror)
    took = time.monotonic() - began
    print(f"{project.name}: {found['commands']} commands, {took:.0f} s", file=sys.stderr)
    return found


def run_all(projects: list[Project], mirrors: dict[str, Path], jobs: int) -> dict[str, Any]:
    """Each project with a mirror replayed, ``jobs`` at a time."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {p.name: pool.submit(_replayed, p, mirrors[p.name]) for p in projects}
        return {name: future.result() for name, future in futures.items()}


def _keep_volatile(fresh: str, current: str | None) -> str:
    """``fresh`` with the wall-time line of ``current`` (what ``--check`` leaves out)."""
    old = [line for line in (current or "").splitlines() if line.startswith(WALL)]
    return re.sub(f"^{re.escape(WALL)}.*$", lambda _: old[0], fresh, flags=re.M) if old else fresh


def _args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--mirrors",
        action="append",
        type=Path,
        metavar="DIR",
        help=f"where the histories are (default ${MIRRORS}, else {DEFAULT_MIRRORS})",
    )
    parser.add_argument("--clone", action="store_true", help="clone missing histories first")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="replay only these projects")
    parser.add_argument("--jobs", type=int, default=2, help="projects replayed at once")
    parser.add_argument("--as-before", metavar="COMMIT", help="record this run as 'before'")
    files.add_arguments(parser, what="the page, its results and the answer keys")
    return parser.parse_args(argv)


def _roots(args: argparse.Namespace) -> list[Path]:
    if args.mirrors:
        return [p.resolve() for p in args.mirrors]
    named = [Path(p) for p in os.environ.get(MIRRORS, "").split(os.pathsep) if p]
    return named or [DEFAULT_MIRRORS]


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    projects = [load(path) for path in sorted(DATA.glob("*.toml"))]
    unknown = sorted(set(args.only or []) - {p.name for p in projects})
    if unknown:
        raise SystemExit(f"--only {' '.join(unknown)}: no such project in {DATA}")
    roots = _roots(args)
    wanted = [p for p in projects if not args.only or p.name in args.only]
    mirrors = {p.name: m for p in wanted if (m := mirror_of(p, roots))}
    if args.clone:
        mirrors |= {p.name: clone(p, roots[0]) for p in wanted if p.name not in mirrors}
    absent = [p.name for p in wanted if p.name not in mirrors]
    if absent:
        print(
            f"not replayed (no mirror under {', '.join(map(str, roots))}; `--clone` fetches "
            f"them): {', '.join(absent)}; their recorded results stand.",
            file=sys.stderr,
        )
    began = time.monotonic()
    found = run_all([p for p in wanted if p.name in mirrors], mirrors, args.jobs)
    old = recorded()
    fresh = {n: {"steps": r["steps"], "commands": r["commands"]} for n, r in found.items()}
    results = {**old["projects"], **fresh}
    keys = {**{p.name: stored_key(p) for p in projects}, **{n: r["key"] for n, r in found.items()}}
    missing = [p.name for p in projects if p.name not in results or keys[p.name] is None]
    if missing:
        raise SystemExit(f"no results for {', '.join(missing)}: give their mirrors (--mirrors)")
    before = old["before"]
    if args.as_before:
        before = {"commit": args.as_before, "steps": {n: r["steps"] for n, r in results.items()}}
    data = {"before": before, "projects": {n: results[n] for n in sorted(results)}}
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(u.ru_utime + u.ru_stime for u in used)
    wall = f"{WALL} {time.monotonic() - began:.0f} s for {len(found)} projects, --jobs "
    wall += f"{args.jobs}, on {os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f} at the "
    wall += f"end); {cpu:.0f} s of CPU (user and system, every process), {cpu / 2:.0f} s a core on "
    wall += "two (the target: ten minutes on two cores)."
    text = page(projects, data, keys, wall)
    out = [
        files.Generated(PAGE, text, "docs/case-studies/adoption-corpus.md"),
        files.Generated(
            RESULTS, json.dumps(data, indent=1) + "\n", "docs/case-studies/adoption-corpus.json"
        ),
    ]
    out += [
        files.Generated(
            DATA / f"{name}.key.json",
            json.dumps(r["key"], indent=1) + "\n",
            f"ci/adoption-corpus/{name}.key.json",
        )
        for name, r in found.items()
    ]
    if files.mode(args) is files.Mode.CHECK or len(found) < len(projects):
        out[0] = files.Generated(out[0].path, _keep_volatile(text, out[0].current()), out[0].label)
    return files.run(args, out, command=COMMAND)


def stored_key(project: Project) -> dict[str, Any] | None:
    """The committed answer key of ``project`` (None before the first replay)."""
    path = DATA / f"{project.name}.key.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


if __name__ == "__main__":
    sys.exit(main())
