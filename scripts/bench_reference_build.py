"""The reference build of a commit (issues 44, 48), cold and cached, for this repository and the
native example: ``python scripts/bench_reference_build.py [--repeat 3] [--write]``.

For each project it builds the reference of its HEAD from an empty cache (the checkout from
git objects, the sdist, the wheel from the sdist and the wheel from the tree), then reads it
back as publish and promote do (the cache, checked against the reference's digest), ``--repeat``
times, and prints the medians. ``examples/native-adopter`` (a C extension, built with gcc) is
committed into a scratch repository first: the reference builds commits. ``--write`` puts the
figures, and the table of allowed-difference classes, into docs/release/reference-build.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges import git
from mlrelease.wheels import differences, reference

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs/release/reference-build.md"
FIGURES = "<!-- figures: written by `python scripts/bench_reference_build.py --write` -->"
CLASSES = "<!-- classes: written by `python scripts/bench_reference_build.py --write` -->"
END = "<!-- end -->"


@dataclass(frozen=True)
class Measured:
    """One project's reference: its files, and the seconds of each cold and cached run."""

    files: list[str]
    cold: list[float]
    cached: list[float]


def measure(root: Path, repeat: int) -> Measured:
    """Cold and cached times of the reference of ``root``'s HEAD, ``repeat`` times each."""
    commit = git.run(root, "rev-parse", "HEAD")
    cache = git.git_dir(root) / reference.CACHE / commit
    cold, cached = [], []
    built = None
    for _ in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        started = time.monotonic()
        built = reference.build(root, commit)
        cold.append(time.monotonic() - started)
        started = time.monotonic()
        again = reference.build(root, commit, trusted=built.digest)
        cached.append(time.monotonic() - started)
        if built.broken or not again.cached:
            raise SystemExit(f"{root}: no reference: {built.broken or 'not read from the cache'}")
    assert built is not None
    files = [p.name for p in (built.sdist, *built.wheels) if p is not None]
    return Measured(files, cold, cached)


def scratch_repository(folder: Path, into: Path) -> Path:
    """``folder``'s files committed into a new repository at ``into``."""
    shutil.copytree(folder, into, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info"))
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "example"]):
        subprocess.run(["git", *args], cwd=into, env=env, check=True, capture_output=True)
    return into


def row(name: str, found: Measured) -> str:
    listed = ", ".join(f"{c:.1f}" for c in found.cold)
    cold, cached = statistics.median(found.cold), statistics.median(found.cached)
    return (
        f"| {name} | {', '.join(f'`{f}`' for f in found.files)} | {cold:.1f} s ({listed}) | "
        f"{cached * 1000:.0f} ms | {cold / max(cached, 1e-6):.0f}x |"
    )


def figures(rows: list[str], repeat: int) -> list[str]:
    return [
        FIGURES,
        "",
        f"Medians of {repeat} runs on {platform.machine()} with {os.cpu_count()} CPUs, shared "
        f"(load average {os.getloadavg()[0]:.1f} when the runs ended); cold: an empty cache, "
        "the checkout and three builds (as the first bind of an RC always does); cached: read "
        "back and checked against the reference's digest, as every later reader does.",
        "",
        "| project | reference files | cold | cached | cold / cached |",
        "|---|---|---|---|---|",
        *rows,
        "",
        END,
    ]


def splice(text: str, begin: str, lines: list[str]) -> str:
    """``text`` with the block from ``begin`` to the next end marker replaced by ``lines``."""
    start = text.index(begin)
    stop = text.index(END, start) + len(END)
    return text[:start] + "\n".join(lines) + text[stop:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help=f"write the figures into {PAGE}")
    parser.add_argument("--classes", action="store_true", help="only write the classes' table")
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    text = splice(text, CLASSES, [CLASSES, "", *differences.table(), "", END])
    if not args.classes:
        with tempfile.TemporaryDirectory(prefix="bench-reference-") as tmp:
            native = scratch_repository(ROOT / "examples/native-adopter", Path(tmp) / "native")
            rows = [
                row("mlrelease (this repository)", measure(ROOT, args.repeat)),
                row("examples/native-adopter (C, gcc)", measure(native, args.repeat)),
            ]
        print("\n".join(rows))
        text = splice(text, FIGURES, figures(rows, args.repeat))
    if args.write or args.classes:
        PAGE.write_text(text, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
