"""Time ``uv pip install "mlrelease[all]"`` as a new user meets it: a fresh virtual environment
and a fresh uv cache (every distribution downloaded), and again with the cache warm.

Usage:
    python scripts/time_install_all.py [--runs 3] [--extras all] [--wheel PATH]

The wheel is built from this tree unless ``--wheel`` names one (mlrelease is installed from the
wheel, its dependencies from the index uv is configured with). Prints each wall time, the
medians, the number of distributions installed and the machine's load average before each run
(a shared machine's load is part of the figure).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def uv() -> str:
    scripts = str(Path(sys.executable).parent)
    found = shutil.which("uv", path=os.pathsep.join([scripts, os.environ.get("PATH", "")]))
    if not found:
        raise SystemExit("uv is not installed (pip install uv, or mlrelease[downstream])")
    return found


def run(command: list[str], env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout + proc.stderr


def build_wheel(work: Path) -> Path:
    source = work / "source"
    shutil.copytree(HERE / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(HERE / name, source / name)
    run([uv(), "build", "--wheel", "--out-dir", str(work / "dist"), str(source)])
    return next((work / "dist").glob("mlrelease-*.whl"))


def install(wheel: Path, extras: str, cache: Path, work: Path) -> tuple[float, int]:
    """One install into a fresh venv: wall seconds and the number of distributions."""
    venv = Path(tempfile.mkdtemp(dir=work, prefix="venv-"))
    env = {**os.environ, "UV_CACHE_DIR": str(cache)}
    env.pop("VIRTUAL_ENV", None)
    run([uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], env)
    start = time.perf_counter()
    out = run(
        [
            uv(),
            "pip",
            "install",
            "--python",
            str(venv / "bin" / "python"),
            f"mlrelease[{extras}] @ {wheel.as_uri()}",
        ],
        env,
    )
    wall = time.perf_counter() - start
    count = sum(line.startswith(" + ") for line in out.splitlines())
    shutil.rmtree(venv)
    return wall, count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold and warm installs each")
    parser.add_argument("--extras", default="all")
    parser.add_argument("--wheel", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mlrelease-install-") as tmp:
        work = Path(tmp)
        wheel = args.wheel or build_wheel(work)
        cold: list[float] = []
        warm: list[float] = []
        for i in range(args.runs):
            cache = work / f"cache-{i}"  # empty: every distribution is downloaded
            load = os.getloadavg()[0]
            wall, count = install(wheel, args.extras, cache, work)
            cold.append(wall)
            print(f"cold {i + 1}: {wall:.1f} s, {count} distributions (load {load:.2f})")
            load = os.getloadavg()[0]
            wall, _ = install(wheel, args.extras, cache, work)
            warm.append(wall)
            print(f"warm {i + 1}: {wall:.1f} s (load {load:.2f})")
            shutil.rmtree(cache)
        print(f"median cold {statistics.median(cold):.1f} s, warm {statistics.median(warm):.1f} s")
        version = run([uv(), "--version"]).strip()
        print(f"{version}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
