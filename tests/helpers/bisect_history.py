"""Generated histories for ``mlrelease perf bisect``: a small real project in a real git
repository, with a perf regression planted at a hidden commit (the bisect tests and
``scripts/bench_perf_bisect.py``). Standard library only: the benchmark runs it on a GPU
machine that has no pytest.

The project, ``bisectee``, is a pure-Python package with one perf model of its own
(``bisectee.models:WORK``): a 256-wide layer whose forward also runs ``REPS x FACTOR`` extra
matrix products (``bisectee/cost.py``), so a commit that changes ``FACTOR`` changes the cost of
every timed iteration, for real, and nothing else (the output stays the first layer's, so parity
holds). With ``BISECTEE_NOISE`` naming a JSON file of factors (``{"factors": [...]}``), each
worker process draws one and scales its work by it: the round-to-round noise of real rows,
measured elsewhere, on a cheap workload; ``{"by_round": {"<build>": {"<round>": factor}}}``
scales given rounds of given builds instead (a test's one noisy reading, placed exactly).
``GPU`` is the built-in BERT instead, slowed at the planted commit through the perf worker's
injection hook (``MLRELEASE_PERF_INJECT_SLOWDOWN=pytorch=F:KIND``, ``device`` on a GPU).

Every commit edits ``bisectee/log.py``, so no two are alike; planted commits also set
``FACTOR`` (the culprit, the two commits of a cancelling pair), break the build (a ``setup.py``
that exits: unbuildable until the next commit) or bump the dependency pin in ``perf.lock``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

WORK = '''\
"""The bisect benchmark's workload: real matrix products, as many as this commit's cost says."""

import json
import os
import random
import re
import sys

import numpy as np
import torch

from bisectee import cost
from mlrelease.perf.builders import Built
{dependency_import}

class Work(torch.nn.Module):
    def __init__(self, reps: int) -> None:
        super().__init__()
        self.reps = reps
        generator = torch.Generator().manual_seed(0)
        self.weight = torch.nn.Parameter(
            torch.randn(256, 256, generator=generator) * 0.05, requires_grad=False
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x
        for _ in range(self.reps):
            y = torch.tanh(y @ self.weight)
        {dependency_call}
        return x @ self.weight + 0 * y.sum()


def _noise(draw: random.Random) -> float:
    path = os.environ.get("BISECTEE_NOISE")
    if not path:
        return 1.0
    with open(path, encoding="utf-8") as handle:
        noise = json.load(handle)
    # A worker's task file is WORK/<build>/logs/run-...-r<round>-<attempt>.task.json.
    task = sys.argv[1] if len(sys.argv) > 1 else ""
    found = re.search(r"-r(\\d+)-\\d+\\.task\\.json$", task)
    if found and "by_round" in noise:
        build = os.path.basename(os.path.dirname(os.path.dirname(task)))
        return float(noise["by_round"].get(build, {{}}).get(found.group(1), 1.0))
    return float(draw.choice(noise["factors"])) if noise.get("factors") else 1.0


def build(shape, layers):
    draw = random.Random(os.urandom(8))
    wanted = cost.REPS * cost.FACTOR * _noise(draw)
    reps = int(wanted) + (draw.random() < wanted - int(wanted))
    sample = {{"x": np.random.default_rng(0).standard_normal((1, 256), dtype=np.float32)}}
    return Built(Work(reps).eval(), sample)
'''

GPU = '''\
"""BERT, slowed from the planted commit on through the perf worker's injection hook."""

import os

from bisectee import cost
from mlrelease.perf import catalog
from mlrelease.perf.inject import INJECT_ENV


def build(shape, layers):
    from mlrelease.perf import builders  # torch: in the worker only

    if cost.SLOWDOWN:
        os.environ[INJECT_ENV] = "pytorch=" + cost.SLOWDOWN
    return builders.build_bert(shape, layers)


BERT = catalog.ModelSpec(
    "bert", "BERT-base", "bisectee.gpu:build", (catalog.SEQ_128,), depth_name="encoder layers"
)
'''

MODELS = """\
from mlrelease.perf.catalog import InputShape, ModelSpec

WORK = ModelSpec("work", "Tiny workload", "bisectee.work:build", (InputShape("v256", (256,)),))
"""

SLOWLIB = '''\
"""A dependency with a slowdown planted in some of its versions."""

import torch

REPS = {reps}


def work(y: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    for _ in range(REPS):
        y = torch.tanh(y @ weight)
    return y
'''

BROKEN = 'raise SystemExit("this commit does not build (planted by the bisect benchmark)")\n'


@dataclass(frozen=True)
class Planted:
    """What a generated history hides."""

    commits: int
    """Commits after the good one (the last is the bad side)."""
    culprit: int | None = None
    """The 1-based commit that multiplies the cost by ``1 + slowdown`` (or plants the
    injected slowdown)."""
    slowdown: float = 0.0
    unbuildable: frozenset[int] = frozenset()
    """Commits that do not build (a ``setup.py`` that exits; the next commit removes it)."""
    cancel: tuple[int, int, float] | None = None
    """(first, second, change): the first commit multiplies the cost by ``1 + change``, the
    second divides it back."""
    lock_bump: tuple[int, str] | None = None
    """(commit, version): from this commit on, ``perf.lock`` pins ``slowlib`` at ``version``."""
    lock_start: str = ""
    """The good side's ``slowlib`` pin (empty: no lock, no dependency)."""


@dataclass
class Generated:
    root: Path
    good: str
    bad: str
    commits: list[str] = field(default_factory=list)

    def commit(self, position: int) -> str:
        """The sha of the 1-based commit ``position`` (0: the good side)."""
        return self.good if position == 0 else self.commits[position - 1]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.strip()


def pyproject(profiles: str, bisect: str = "") -> str:
    return (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "bisectee"\nversion = "0.1.0"\n\n'
        '[tool.setuptools]\npackages = ["bisectee"]\n\n'
        f"{profiles}\n{bisect}"
    )


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make(
    root: Path,
    planted: Planted,
    *,
    profiles: str,
    bisect: str = "",
    reps: int = 150,
    injected: str = "",
) -> Generated:
    """Write and commit the history under ``root``: the good commit, then ``planted.commits``
    commits. ``injected`` (``0.2:device``): plant that slowdown of the BERT row instead of a
    change of cost."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    dependency = bool(planted.lock_start)
    files = {
        "pyproject.toml": pyproject(profiles, bisect),
        "bisectee/__init__.py": "",
        "bisectee/models.py": MODELS,
        "bisectee/gpu.py": GPU,
        "bisectee/work.py": WORK.format(
            dependency_import="import slowlib\n" if dependency else "",
            dependency_call="y = slowlib.work(y, self.weight)" if dependency else "",
        ),
        "bisectee/log.py": "STEP = 0\n",
        "bisectee/cost.py": _cost(reps, 1.0, ""),
    }
    if dependency:
        files["perf.lock"] = f"slowlib=={planted.lock_start}\n"
    _write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the good side")
    generated = Generated(root, git(root, "rev-parse", "HEAD"), "")
    factor, slowdown = 1.0, ""
    for position in range(1, planted.commits + 1):
        factor, slowdown, title = _plant(planted, position, factor, slowdown, injected)
        files = {
            "bisectee/log.py": f"STEP = {position}\n",
            "bisectee/cost.py": _cost(reps, factor, slowdown),
        }
        if planted.lock_bump and planted.lock_bump[0] == position:
            files["perf.lock"] = f"slowlib=={planted.lock_bump[1]}\n"
            title += f"; slowlib {planted.lock_bump[1]}"
        _write(root, files)
        setup = root / "setup.py"
        if position in planted.unbuildable:
            setup.write_text(BROKEN, encoding="utf-8")
            title += "; breaks the build"
        elif setup.exists():
            setup.unlink()
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", title)
        generated.commits.append(git(root, "rev-parse", "HEAD"))
    generated.bad = generated.commits[-1]
    return generated


def _plant(
    planted: Planted, position: int, factor: float, slowdown: str, injected: str
) -> tuple[float, str, str]:
    title = f"change {position}"
    if planted.culprit == position:
        if injected:
            slowdown = injected
        else:
            factor *= 1 + planted.slowdown
    if planted.cancel and planted.cancel[0] == position:
        factor *= 1 + planted.cancel[2]
    if planted.cancel and planted.cancel[1] == position:
        factor /= 1 + planted.cancel[2]
    return factor, slowdown, title


def _cost(reps: int, factor: float, slowdown: str) -> str:
    return f"REPS = {reps}\nFACTOR = {factor!r}\nSLOWDOWN = {slowdown!r}\n"


def slowlib_project(folder: Path, version: str, reps: int) -> Path:
    """The source of ``slowlib`` at ``version`` (``reps`` matrix products a call)."""
    folder.mkdir(parents=True)
    _write(
        folder,
        {
            "pyproject.toml": (
                '[build-system]\nrequires = ["setuptools>=61"]\n'
                'build-backend = "setuptools.build_meta"\n\n'
                f'[project]\nname = "slowlib"\nversion = "{version}"\n'
            ),
            "slowlib/__init__.py": SLOWLIB.format(reps=reps),
        },
    )
    return folder
