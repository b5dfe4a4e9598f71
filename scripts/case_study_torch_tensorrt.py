"""Point mlrelease at Torch-TensorRT itself and write docs/case-studies/torch-tensorrt.md.

    python scripts/case_study_torch_tensorrt.py PATH_TO_TENSORRT_GIT [--check]

PATH_TO_TENSORRT_GIT is a clone (bare or not) of github.com/pytorch/TensorRT with its
``release/X.Y`` branches and ``vX.Y.Z``/``vX.Y.Z-rcN`` tags; it is never edited and nothing is
fetched (the script works offline). In a temporary place the script makes a bare ``origin``
from it and a clone of its ``main``, and

1. adopts: ``mlrelease init --execute`` (nothing but pyproject.toml may change), commits and
   pushes the adoption, runs ``mlrelease verify --skip tests``, then the release commands on
   the clone: ``release status``, the dry runs of ``release cut``, ``bump``, ``release rc``
   and ``release promote`` (the cut and one RC executed and pushed to the temporary origin in
   between, so that ``rc`` and ``promote`` have a release branch and a candidate);
2. replays the minor releases in :data:`REPLAYS` from history (the branch cut, main moving on,
   every pick, every RC tag, the final tag) against the dry-run plans of the adopted config
   (:mod:`mlrelease.init.replay_tag`).

``--check`` regenerates the page in a temporary place and fails when the committed one differs
(the wall time, the one volatile figure, is left out of the comparison).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from case_study_lib import git, init_in, init_lines, mlrelease, table
from packaging.version import Version

from mlrelease.init import replay_tag
from mlrelease.registry import load_config
from mlrelease.release.config import version_model

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "case-studies" / "torch-tensorrt.md"
REPLAYS = ["2.12.0", "2.13.0"]
"""The minor releases replayed, oldest first."""
COMMIT_HINT = "d7f2062810df37e4bbcfc9065b5f44f09aca7156"
"""The Torch-TensorRT commit this page was made from (main, 2026-08-22)."""
IDENTITY = {
    "GIT_AUTHOR_NAME": "case study",
    "GIT_AUTHOR_EMAIL": "case-study@example.com",
    "GIT_COMMITTER_NAME": "case study",
    "GIT_COMMITTER_EMAIL": "case-study@example.com",
    "GIT_AUTHOR_DATE": "2026-08-23T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-08-23T12:00:00+00:00",
}
"""A fixed identity and date: the commits and tags the study makes have the same ids on every
run, so the page is reproducible."""
WALL = "Wall time of the generation:"
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
    ("release/2.14", ("release", "bind", "--rc", "v2.14.0-rc1", "--execute", "--push"),
     "executed, on stand-in wheels"),
    ("release/2.14", ("verify",), "the RC's files audited"),
    ("release/2.14", ("release", "promote", "--rc", "v2.14.0-rc1"), "dry run, bound"),
]  # fmt: skip
"""(branch, command, kind) run in order on the adopted clone."""


def said(proc: Any) -> str:
    """What a command printed, on one line: its first lines, timestamps masked."""
    lines = [" ".join(BOX.sub(" ", x).split()) for x in (proc.stdout + proc.stderr).splitlines()]
    text = " / ".join(x for x in lines if x)
    return SECONDS.sub("(t) s", STAMP.sub("(time)", text))[:600]


STAND_IN_TAGS = (
    "cp311-cp311-manylinux_2_28_x86_64",
    "cp311-cp311-manylinux_2_28_aarch64",
    "cp311-cp311-win_amd64",
)
"""One stand-in wheel per platform init found Torch-TensorRT's workflows building."""


def stand_in_build(dist: Path, version: str) -> None:
    """What Torch-TensorRT's build workflows would leave in ``dist/`` for the RC, made here
    because its real build (CUDA, TensorRT, Bazel) cannot run on this machine: a wheel per
    platform and an sdist, named and stamped with the tag's version (``2.14.0`` while the
    files carry ``2.14.0a0``), holding one module. Only the release flow's bookkeeping (bind,
    the wheels audit, promote) reads them; nothing is installed from them."""
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.dist import make_dist  # type: ignore[import-not-found]  # tests/ is on sys.path

    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp) / "src" / "torch_tensorrt"
        module.mkdir(parents=True)
        (module / "__init__.py").write_text('"""A stand-in."""\n', encoding="utf-8")
        built = {
            path.name: path.read_bytes()
            for tag in STAND_IN_TAGS
            for path in make_dist(Path(tmp), Path(tmp) / "out", version, "torch_tensorrt",
                                  readme="A stand-in for the built wheel.", tag=tag)
        }  # fmt: skip
    dist.mkdir(exist_ok=True)
    for name, data in built.items():
        (dist / name).write_bytes(data)
    sums = "".join(f"{hashlib.sha256(built[n]).hexdigest()}  {n}\n" for n in sorted(built))
    (dist / "SHA256SUMS").write_text(sums, encoding="utf-8")


ADAPTED = "chore: leave the tests gate out (case study: no CUDA or TensorRT here)"


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
        commands.append(("mlrelease " + " ".join(args), branch, kind, proc.returncode,
                         trace, said(proc)))  # fmt: skip
    git(work, "switch", "-q", "main")
    return {"init": init, "verify": verify, "commands": commands}


def replays(work: Path, config: Any, releases: list[str] = REPLAYS) -> list[dict[str, Any]]:
    """Each release of ``releases`` replayed (:mod:`mlrelease.init.replay_tag`), as the page and
    the raw JSON hold it."""
    model = version_model(config)
    found = []
    for release in releases:
        history = replay_tag.read_history(
            work, Version(release), config.names, main="origin/main", version_file="version.txt"
        )
        steps = replay_tag.replay(history, config.names, model)
        matched, counted = replay_tag.match_rate(steps)
        found.append(
            {
                "release": release,
                "branch": history.branch,
                "steps": [s.__dict__ for s in steps],
                "matched": matched,
                "counted": counted,
                "direct": sum(1 for s in steps if s.match is None),
            }
        )
    return found


def study(mirror: Path) -> dict[str, Any]:
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="case-study-trt-") as tmp:
        origin, work = Path(tmp) / "origin.git", Path(tmp) / "TensorRT"
        git(Path(tmp), "clone", "-q", "--bare", str(mirror), str(origin))
        git(Path(tmp), "clone", "-q", "-b", "main", str(origin), str(work))
        commit = git(work, "rev-parse", "HEAD")
        date = git(work, "log", "-1", "--format=%cd", "--date=short")
        replayed = None
        data: dict[str, Any] = {"commit": commit, "date": date}
        data.update(adopt(work))
        # The replay reads the adopted config; history is untouched by the commands above
        # (main's first version move after each fork point is older than the adoption).
        replayed = replays(work, load_config(work))
    data["replays"] = replayed
    data["wall_seconds"] = round(time.monotonic() - began, 1)
    return data


def _rate(matched: int, counted: int) -> str:
    return f"{matched}/{counted} = {matched / counted:.0%}" if counted else "0/0"


def page(data: dict[str, Any]) -> str:
    init, verify = data["init"], data["verify"]
    out = [
        "# Case study: Torch-TensorRT",
        "",
        "<!-- Generated by `python scripts/case_study_torch_tensorrt.py PATH_TO_TENSORRT_GIT`; "
        "do not edit. -->",
        "",
        "mlrelease pointed at [pytorch/TensorRT](https://github.com/pytorch/TensorRT) itself, "
        f"pinned at `{data['commit']}` (main, {data['date']}). Torch-TensorRT releases the "
        "PyTorch way: `version.txt` keeps a development marker (`2.14.0a0` on main, "
        "`2.13.0a0` on `release/2.13`) and the build takes the release and RC versions from "
        "the tag (`v2.13.0-rc1` ... `v2.13.0`), one `release/X.Y` branch per minor release cut "
        "from main, fixes picked from main as pull requests, a native build (CUDA, TensorRT, "
        "Bazel) by its own workflows, release notes on GitHub.",
        "",
        "How this page is made: a bare `origin` is copied from the repository and `main` is "
        "cloned from it, in a temporary folder; everything below runs there, offline, with "
        "this repository's mlrelease. Nothing is pushed anywhere else.",
        "",
        "## 1. Adoption: `mlrelease init --execute`, then verify and the release commands",
        "",
        *init_lines(init, "the clone of the pinned commit"),
        "init's notes:",
        "",
        *[f"- {n}" for n in init["notes"] if not n.startswith("required-platforms")],
        "",
        f"### `mlrelease verify --skip tests`: {verify['verdict']} (exit {verify['exit']})",
        "",
        *table(["gate", "status", "summary"], verify["gates"]),
    ]
    out += [
        "### The release commands",
        "",
        "Run in order on the adopted clone. The cut and the first RC are executed (and pushed to "
        "the temporary origin) so that `rc` and `promote` have a release branch and a "
        f"candidate to plan for. One adaptation comes first, committed: `{ADAPTED}`. "
        "`tests` leaves `[tool.mlrelease] gates`, as `--skip tests` did above: importing "
        "`torch_tensorrt` needs CUDA and TensorRT, and promotion (rightly) refuses a report "
        "without the verdict of every configured gate. On a GPU machine the gate stays. The "
        "bind step runs on stand-in wheels (see below).",
        "",
        *table(
            ["command", "on", "kind", "exit", "traceback", "what it said"],
            [(f"`{c}`", b, k, e, "yes" if t else "no", s) for c, b, k, e, t, s in data["commands"]],
        ),
    ]
    out += findings()
    out += replay_section(data["replays"])
    out += [
        "## Reproduce",
        "",
        "```",
        "git clone --mirror https://github.com/pytorch/TensorRT TensorRT.git",
        "git -C TensorRT.git update-ref refs/heads/main " + COMMIT_HINT,
        "python scripts/case_study_torch_tensorrt.py TensorRT.git",
        "python scripts/case_study_torch_tensorrt.py TensorRT.git --check   # is the page current?",
        "```",
        "",
        f"{WALL} {data['wall_seconds']:.0f} s (init, verify, the commands and both replays; "
        "not compared by `--check`).",
    ]
    return "\n".join(out).rstrip("\n") + "\n"


def findings() -> list[str]:
    """What the adoption showed, read from the tables above (kept in step with them by
    ``--check``: a changed outcome changes the tables, and this text is reviewed with them)."""
    return [
        "### What the adoption shows",
        "",
        "- **verify passes without a code change.** `git_state` and `versions` judge what the "
        "tag model promises (main carries `2.14.0a0`, a development marker), not a `.dev` "
        "version.",
        "- **The changelog gate is not proposed, on purpose.** `CHANGELOG.md` stops at 1.1.0 "
        "(2022); Torch-TensorRT writes its release notes on GitHub releases. Before this case "
        'study init proposed the gate, which then failed on main ("no section for '
        'Unreleased"); init now leaves a changelog that names none of the newest releases '
        "out, with the note above.",
        "- **wheels skips here, and says why.** Torch-TensorRT's wheels are not built by "
        "cibuildwheel but by its own workflows (PyTorch test-infra's reusable build workflows, "
        'with CUDA, TensorRT and Bazel); init finds them and proposes `builder = "external"`, '
        "so the gate audits the built files in `dist/` instead of planning builds. This machine "
        "cannot build them, so `dist/` is empty and the gate skips, naming the reason. On the "
        "build machine, with the wheels in `dist/`, it checks each file's platform tags against "
        "`required-platforms` and its metadata's version against the release tag.",
        "- **tests is skipped here, and the docs gate is not proposed.** Importing "
        "`torch_tensorrt` needs CUDA and TensorRT, which this machine lacks: its test suite and "
        "the autodoc pages of `docsrc/` cannot run here. On a GPU machine with the project's "
        "`test` dependencies (`pip install -e .[test]` against PyTorch's test index), the "
        "`tests` gate runs `python -m pytest -q` as proposed; `docs` is added by hand once "
        "Sphinx and the import work in the release environment (init's note says so).",
        "- **promote plans the final tag on the RC's commit once the RC's files are bound.** "
        "Its first dry run refuses, with the way on: a final tag needs the candidate's built "
        "files bound to it (`release bind`). Torch-TensorRT's real build (CUDA, TensorRT, "
        "Bazel) cannot run here, so **stand-in wheels** take its place: one per platform init "
        "found (`manylinux_2_28_x86_64`, `manylinux_2_28_aarch64`, `win_amd64`) and an sdist, "
        "named and stamped `2.14.0` as a build from the tag would be, holding one module. They "
        "are bound, the `wheels` gate audits them (names, metadata version against the tag, "
        "platforms), and promote's dry run then plans `v2.14.0` on the commit of "
        "`v2.14.0-rc1`.",
        "- **The release commands were slow on a real repository.** With Torch-TensorRT's "
        "~1000 refs on origin, `release status` and the `release cut` dry run took about 25 s "
        "each: origin's objects were checked with one `git cat-file --batch` over all of them "
        "*per ref*. They are read in one batch now (about 1 s).",
        "- **`release cherry-picks` missed most of Torch-TensorRT's picks.** Its picks name "
        "the pull requests of main in their subjects (`cherry pick 4247 4256 from main to "
        "release 2.12`, `[cherry-pick][release/2.13] TRT 11 MD Ops (#4321) (#4373)`), not by "
        "`-x` lines; mlrelease listed those fixes as missing and `--execute` would have picked "
        "them a second time. A pull request a pick's subject names now counts (the replay "
        "below uses the same rule).",
        "- **`release rc` named a gate the project does not have**: its dry run said "
        "`CHANGELOG.md has no 2.14.0 section yet (the changelog gate)`. The note now appears "
        "only when `changelog` is one of the project's gates.",
        "- **`bump --part minor` changed the marker's style** (`2.14.0a0` -> `2.15.0.dev0`): "
        "bump-my-version resets the pre-release part to its first value, `.dev`. Under the tag "
        "model a part bump now keeps the files' marker (`2.15.0a0`, as `release cut` does; see "
        "the table above).",
        "",
    ]


def replay_section(replayed: list[dict[str, Any]]) -> list[str]:
    out = [
        "## 2. Replay of 2.12 and 2.13",
        "",
        "At each point of each release (the branch cut, main moving on to the next marker, "
        "every commit reaching the branch, every RC tag, the final tag) mlrelease's planners "
        "under the adopted config are asked what they would do, from the state just before "
        "it; a step matches when the plan gives what Torch-TensorRT did. A pick is a branch "
        "commit whose patch is on main (`git cherry`) or that names a pull request of main "
        "(`#4321`, `cherry pick 4247 4256`); it matches when `release cherry-picks` recognises "
        "it as picked (by patch, `-x` line or the pull requests its subject names). A commit "
        "made on the branch directly is listed as a *direct commit* and not counted: no "
        "release command makes or refuses one, the next `release rc` tags it.",
        "",
    ]
    summary, total, direct = [], [0, 0], 0
    for r in replayed:
        steps = r["steps"]
        out += [f"### {r['release']} (`{r['branch']}`)", ""]
        out += table(
            ["step", "history", "mlrelease", "match", "why"],
            [
                (s["step"], s["actual"], s["planned"],
                 "-" if s["match"] is None else "yes" if s["match"] else "**no**", s["why"])
                for s in steps
            ],
        )  # fmt: skip
        total[0] += r["matched"]
        total[1] += r["counted"]
        direct += r["direct"]
        summary.append(
            (r["release"], _rate(r["matched"], r["counted"]), r["direct"],
             _rate(r["matched"], r["counted"] + r["direct"]))
        )  # fmt: skip
    out += [
        "### Match rate",
        "",
        *table(
            ["release", "steps matching", "direct commits (not counted)", "counted as misses"],
            summary,
        ),
        f"Overall: **{_rate(*total)}** of the release steps ({direct} direct commits listed).",
        "",
        "Every difference:",
        "",
        *[
            f"- {r['release']}, {s['step']}: {s['actual']}. {s['why']}"
            for r in replayed
            for s in r["steps"]
            if s["match"] is False or (s["match"] and s["why"])
        ],
        "- The release-cut commits (`2.12 torch-tensorrt release cut (#4206)`, `2.13 "
        "torch-tensorrt release cut (#4339)`) are release-only edits: PyTorch's nightly index "
        "and `.dev` pins switched to the test channel on the branch. mlrelease's `release cut` "
        "makes them in its own commit when they are declared (`[[tool.mlrelease.release."
        "edits]]`, #25 item 3); init does not propose them, so here they are direct commits.",
        "",
    ]
    return out


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
