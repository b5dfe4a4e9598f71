"""Point mlrelease at Torch-TensorRT itself and write docs/case-studies/torch-tensorrt.md.

    python scripts/case_study_torch_tensorrt.py PATH_TO_TENSORRT_GIT [--check]

PATH_TO_TENSORRT_GIT is a clone (bare or not) of github.com/pytorch/TensorRT with its
``release/X.Y`` branches and ``vX.Y.Z``/``vX.Y.Z-rcN`` tags; it is never edited and nothing is
fetched (the script works offline). In a temporary place the script makes a bare ``origin``
from it and a clone of its ``main``, and

1. adopts: ``mlrelease init --execute`` (nothing but pyproject.toml may change), commits and
   pushes the adoption, runs ``mlrelease verify --skip tests``, then the release commands on
   the clone: ``release status``, the dry runs of ``release cut``, ``bump``, ``release rc``
   and ``release promote`` (the cut and one RC run with ``--execute --push`` to the temporary
   origin in between, so that ``rc`` and ``promote`` would have a branch and a candidate);
2. replays the minor releases in :data:`REPLAYS` from each fork point with the commands
   themselves, as subprocesses (:mod:`case_study_torch_tensorrt_replay`), and judges each
   step from their ``--json`` output against what the project did
   (:mod:`case_study_history`).

``--check`` regenerates the page in a temporary place and fails when the committed one differs
(the wall time, the one volatile figure, is left out of the comparison).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from case_study_lib import git, init_in, mlrelease
from case_study_replay import IDENTITY, stand_in_build
from case_study_torch_tensorrt_page import ADAPTED, WALL, page
from case_study_torch_tensorrt_replay import replay

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "case-studies" / "torch-tensorrt.md"
REPLAYS = ["2.12.0", "2.13.0"]
"""The minor releases replayed, oldest first."""
BOX = re.compile("[\u2500-\u257f]")
"""Box-drawing characters (rich's tables), dropped from what a command said."""
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")
SECONDS = re.compile(r"\b\d+\.\d s\b")
"""A gate's duration as verify prints it (``0.4 s``): masked, like the timestamps."""

COMMANDS: list[tuple[str, tuple[str, ...], str]] = [
    ("main", ("release", "status"), "where the next release stands"),
    ("main", ("release", "cut", "--version", "2.14"), "dry run"),
    ("main", ("bump", "--part", "pre"), "dry run"),
    ("main", ("bump", "--part", "minor"), "dry run"),
    ("main", ("release", "cut", "--version", "2.14", "--execute", "--push"), "executed"),
    ("release/2.14", ("release", "rc"), "dry run"),
    ("release/2.14", ("release", "rc", "--execute", "--push"), "executed"),
    ("release/2.14", ("release", "status"), "after the first RC"),
    ("release/2.14", ("release", "promote", "--rc", "v2.14.0-rc1"), "dry run"),
    (
        "release/2.14",
        ("release", "bind", "--rc", "v2.14.0-rc1", "--execute", "--push"),
        "executed, on stand-in wheels",
    ),
    ("release/2.14", ("verify",), "the RC's files audited"),
    ("release/2.14", ("release", "promote", "--rc", "v2.14.0-rc1"), "dry run, bound"),
]
"""(branch, command, kind) run in order on the adopted clone."""


def said(proc: Any) -> str:
    """What a command printed, on one line: its first lines, timestamps masked."""
    lines = [" ".join(BOX.sub(" ", x).split()) for x in (proc.stdout + proc.stderr).splitlines()]
    text = " / ".join(x for x in lines if x)
    return SECONDS.sub("(t) s", STAMP.sub("(time)", text))[:600]


def leave_out_tests(work: Path) -> None:
    """The one adaptation, committed before the release commands: ``tests`` leaves
    ``[tool.mlrelease] gates``, as ``--skip tests`` did for verify. Importing
    ``torch_tensorrt`` needs CUDA and TensorRT, so its suite cannot give a verdict here, and
    promotion (rightly) refuses a report without one; on a GPU machine the gate stays."""
    path = work / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    wanted = 'gates = ["git_state", "versions", "wheels", "tests"]'
    if wanted not in text:
        raise SystemExit(f"init's gates changed: expected {wanted!r} in pyproject.toml")
    path.write_text(text.replace(wanted, wanted.replace(', "tests"', "")), encoding="utf-8")
    git(work, "commit", "-q", "-am", ADAPTED, env=IDENTITY)
    git(work, "push", "-q", "origin", "main")


def adopt(work: Path) -> dict[str, Any]:
    """init, verify and the release commands on the clone ``work`` (origin: its bare copy)."""
    init = init_in(work)
    git(work, "commit", "-q", "-am", "chore: adopt mlrelease", env=IDENTITY)
    git(work, "push", "-q", "origin", "main")
    proc = mlrelease(work, "verify", "--skip", "tests", env=IDENTITY)
    report = json.loads((work / "build/release-verify/report.json").read_text("utf-8"))
    verify = {
        "exit": proc.returncode,
        "verdict": report["verdict"],
        "gates": [(r["name"], r["status"], r["summary"]) for r in report["results"]],
        "seconds": {r["name"]: r["duration_s"] for r in report["results"]},
    }
    leave_out_tests(work)
    commands = []
    for branch, args, kind in COMMANDS:
        git(work, "switch", "-q", branch)
        if args[:2] == ("release", "bind"):
            stand_in_build(work / "dist", "2.14.0")
        proc = mlrelease(work, *args, env=IDENTITY)
        trace = "Traceback (most recent call last)" in proc.stdout + proc.stderr
        commands.append(
            ("mlrelease " + " ".join(args), branch, kind, proc.returncode, trace, said(proc))
        )
    git(work, "switch", "-q", "main")
    return {"init": init, "verify": verify, "commands": commands}


def study(mirror: Path) -> dict[str, Any]:
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="case-study-trt-") as tmp:
        origin, work = Path(tmp) / "origin.git", Path(tmp) / "TensorRT"
        git(Path(tmp), "clone", "-q", "--bare", str(mirror), str(origin))
        git(Path(tmp), "clone", "-q", "-b", "main", str(origin), str(work))
        commit = git(work, "rev-parse", "HEAD")
        date = git(work, "log", "-1", "--format=%cd", "--date=short")
        data: dict[str, Any] = {"commit": commit, "date": date}
        data.update(adopt(work))
    data["replays"] = [replay(mirror, release) for release in REPLAYS]
    data["wall_seconds"] = round(time.monotonic() - began, 1)
    return data


def _masked(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(WALL))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("mirror", type=Path, help="a clone of pytorch/TensorRT (never edited)")
    parser.add_argument("--out", type=Path, default=PAGE)
    parser.add_argument("--check", action="store_true", help="fail when the page is stale")
    args = parser.parse_args(argv)
    mirror = args.mirror.resolve()
    if not git(mirror, "rev-parse", "-q", "--verify", "main^{commit}"):
        parser.error(f"{mirror}: no main branch (expected a clone of pytorch/TensorRT)")
    data = study(mirror)
    text = page(data)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if _masked(current) != _masked(text):
            print(f"{args.out} is stale: run scripts/case_study_torch_tensorrt.py", file=sys.stderr)
            return 1
        print(f"{args.out} is current ({data['wall_seconds']:.0f} s)")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    found = [f.__dict__ for f in data["init"]["findings"]]
    raw = {**data, "init": {**data["init"], "findings": found}}
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} and {args.out.with_suffix('.json').name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
