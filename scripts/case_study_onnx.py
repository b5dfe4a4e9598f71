"""Point mlrelease at onnx itself and write docs/case-studies/onnx.md.

    python scripts/case_study_onnx.py PATH_TO_ONNX_CHECKOUT [--env-dir DIR] [--check]

PATH_TO_ONNX_CHECKOUT is a clone of github.com/onnx/onnx with its ``origin/rel-*`` branches and
``v*`` tags. The checkout is never edited: ``mlrelease init --execute`` runs in a temporary
``git worktree`` of it, which is removed afterwards. The script

1. runs ``mlrelease init`` and records what it wrote (and that nothing but pyproject.toml
   changed);
2. replays onnx's recent releases (branch cut, each version bump, each cherry-pick, the final
   tag) against the dry-run planner of the adopted config;
3. runs the gates' rules on real onnx releases, each release installed from PyPI in its own
   virtual environment under ``--env-dir`` (made on first use): ``opset_rules`` on the operator
   schemas, ``compat`` (what each release's ``make_model`` stamps against onnxruntime releases of
   the same period, each probed in its own environment), and the wheels plan of a release's
   ``[tool.cibuildwheel]`` against the files onnx published on PyPI (names only, from PyPI's
   JSON API, cached in ``--env-dir``).

``--check`` regenerates the page and fails when the committed one differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import venv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from case_study_lib import git, init_in, init_lines, table
from packaging.version import Version

from mlrelease.init import replay
from mlrelease.models import compat
from mlrelease.models.runtimes import Limits
from mlrelease.naming import Names
from mlrelease.opsets.rules import check as opset_check
from mlrelease.registry import load_config
from mlrelease.wheels import artifacts

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "case-studies" / "onnx.md"
SRC = ROOT / "src"

ONNX = {
    "1.20.1": "onnx==1.20.1",
    "1.21.0": "onnx==1.21.0",
    "1.22.0": "onnx==1.22.0",
    "1.23.2": "onnx==1.23.2",
    # onnx's weekly build of main closest after the pinned main commit (2026-08-22).
    "main": "onnx-weekly==1.23.0.dev20260824",
}
"""onnx schema environments: release (or main) -> requirement."""

OPSET_PAIRS = [("1.20.1", "1.21.0"), ("1.21.0", "1.22.0"), ("1.22.0", "main"), ("1.22.0", "1.23.2")]
"""(previous, current) releases whose operator schemas ``opset_rules`` compares."""

ORT_PERIOD = {
    "1.21.0": ["1.24.4", "1.25.1"],
    "1.22.0": ["1.27.0"],
    "1.23.2": ["1.30.0"],
}
"""onnx release -> onnxruntime releases of the same period (the last before it, the first
after it, by PyPI upload dates: onnx 1.21.0 2026-03-27, 1.22.0 2026-06-15, 1.23.2 2026-10-06;
onnxruntime 1.24.4 2026-03-17, 1.25.1 2026-04-27, 1.27.0 2026-06-15, 1.30.0 2026-09-10)."""

REPLAYS = [("1.22.0", None), ("1.21.0", None), ("1.20.1", "v1.20.0"), ("1.20.0", None)]
"""Releases replayed, newest first, with the tag a patch release's branch starts from."""

WHEELS_RELEASE = "1.22.0"

COMMIT_HINT = "f7546912001bc31e92a238b17068a21b373d882e"
"""The onnx commit this page was made from (main, 2026-08-22)."""

CIBUILDWHEEL = "3.4.1"
"""The cibuildwheel onnx's release workflows pin at v1.22.0 (pypa/cibuildwheel@v3.4.1)."""

WHEEL_ARCHS = {"CIBW_ARCHS_LINUX": "x86_64 aarch64", "CIBW_ARCHS_WINDOWS": "AMD64 x86 ARM64"}
"""The architectures onnx's workflows build on (GitHub's native runners), which a plain
``--print-build-identifiers`` on one x86_64 machine would not list."""

WHEEL_DROPS = [("1.20.1", "1.21.0"), ("1.21.0", "1.22.0"), ("1.22.0", "1.23.0")]
"""(previous, current) releases whose published wheel sets the wheels gate compares."""

OPS_RUNS = {"1.22.0": "1.27.0", "1.23.2": "1.30.0"}
"""onnx release -> the onnxruntime of its period whose supported-operators index is measured."""

OPS_PROJECT = """[project]
name = "ops-probe"
version = "0"

[tool.mlrelease]
gates = ["ops_index"]

[[tool.mlrelease.ops.backends]]
name = "onnxruntime-cpu"
kind = "onnxruntime"
provider = "CPUExecutionProvider"
"""
"""The smallest project whose ``mlrelease ops run`` measures onnxruntime on the node suite."""

HELPERS = ["numpy", "packaging", "rich"]
"""What mlrelease needs in every environment besides the package under study."""

# --- environments ------------------------------------------------------------------------------


def env_python(env_dir: Path, name: str, requirements: Sequence[str]) -> Path:
    """The interpreter of ``env_dir/name``, made with ``requirements`` on first use."""
    folder = env_dir / name
    python = folder / "bin" / "python"
    if not python.exists():
        venv.create(folder, with_pip=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *requirements, *HELPERS], check=True
        )
    return python


def in_env(python: Path, code: str) -> Any:
    """Run ``code`` (which prints JSON) with this repository's mlrelease importable."""
    proc = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=python.parent,  # never the onnx checkout: its source tree would shadow the package
        timeout=600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{python}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


FACTS = """
import json
from mlrelease.models.compat import onnx_facts, version_table_problems
f = onnx_facts()
print(json.dumps({"version": f.version, "ir": f.made.ir_version, "opsets": f.made.opsets,
                  "source": f.made.source, "table": version_table_problems(f)}))
"""

PROBE = """
import json
from mlrelease.models.runtimes import OnnxRuntime, probe
print(json.dumps(probe(OnnxRuntime("CPUExecutionProvider")).to_dict()))
"""

SCHEMAS = "import json; from mlrelease.opsets.collect import collect; print(json.dumps(collect()))"

# --- git ---------------------------------------------------------------------------------------


def run_init(checkout: Path, work: Path) -> dict[str, Any]:
    """``mlrelease init --execute`` in a worktree of the checkout: its output and its effect."""
    git(checkout, "worktree", "add", "--detach", str(work), "HEAD")
    return init_in(work)


def wheel_keys(checkout: Path, work: Path, release: str, env_dir: Path) -> set[str]:
    """What cibuildwheel (onnx's pinned version) plans for the release's [tool.cibuildwheel]."""
    git(checkout, "worktree", "add", "--detach", str(work), f"v{release}")
    python = env_python(env_dir, f"cibw-{CIBUILDWHEEL}", [f"cibuildwheel=={CIBUILDWHEEL}"])
    saved = dict(os.environ)
    # matrix.query runs the cibuildwheel of its own environment, never PATH's: run it in the
    # pinned one.
    os.environ.update(WHEEL_ARCHS)
    code = (
        "import json; from pathlib import Path; from mlrelease.wheels import matrix; "
        f"print(json.dumps([str(i) for i in matrix.query(Path({str(work)!r}))]))"
    )
    try:
        return set(in_env(python, code))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def published(env_dir: Path, releases: Iterable[str]) -> dict[str, list[str]]:
    """File names onnx published on PyPI per release (cached: reruns read the cache).

    From the project's JSON (``/pypi/onnx/json``): the per-release URL answers 404 here."""
    cache = env_dir / "pypi-onnx-files.json"
    wanted = sorted(set(releases))
    data: dict[str, list[str]] = (
        json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {}
    )
    if any(r not in data for r in wanted):
        url = "https://pypi.org/pypi/onnx/json"
        with urllib.request.urlopen(url, timeout=60) as response:
            files = json.loads(response.read())["releases"]
        data = {r: sorted(f["filename"] for f in files[r]) for r in wanted}
        cache.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return data


def covered(identifier: str, have: set[str], abi3: set[str]) -> bool:
    """A build is covered by its own wheel, or (CPython >= 3.12, not free-threaded) by a
    cp312-abi3 wheel for its platform, as onnx ships them since 1.21."""
    python, _, platform = identifier.partition("-")
    regular = python.startswith("cp3") and not python.endswith("t") and int(python[3:]) >= 12
    return identifier in have or (regular and platform in abi3)


# --- rendering ---------------------------------------------------------------------------------


def page(checkout: Path, env_dir: Path) -> str:
    env_dir.mkdir(parents=True, exist_ok=True)
    commit = git(checkout, "rev-parse", "HEAD")
    date = git(checkout, "log", "-1", "--format=%cd", "--date=short")
    out = [
        "# Case study: onnx",
        "",
        "<!-- Generated by `python scripts/case_study_onnx.py PATH_TO_ONNX_CHECKOUT`; "
        "do not edit. -->",
        "",
        "mlrelease pointed at [onnx/onnx](https://github.com/onnx/onnx) itself, pinned at "
        f"`{commit}` (main, {date}). onnx's practice differs from mlrelease's own on almost "
        "every axis: one branch per release (`rel-1.22.0`, patch releases included), final tags "
        "`v1.22.0` but no RC tags (release candidates are version bumps committed on the branch "
        "and published to TestPyPI), the version in `VERSION_NUMBER` read by scikit-build-core, "
        "a native CMake/protobuf build with `[tool.cibuildwheel]`, cherry-picks as pull "
        "requests, release notes on GitHub rather than a changelog file.",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="case-study-onnx-") as tmp:
        work = Path(tmp) / "onnx"
        try:
            init = run_init(checkout, work)
            config = load_config(work)
            names = config.names
            keys = wheel_keys(checkout, Path(tmp) / "wheels", WHEELS_RELEASE, env_dir)
        finally:
            for folder in (work, Path(tmp) / "wheels"):
                if folder.exists():
                    git(checkout, "worktree", "remove", "--force", str(folder))
    out += [
        "## 1. What `mlrelease init` wrote",
        "",
        *init_lines(init, "a temporary worktree of the pinned commit"),
        "Why these platforms (init's note): " + (init["platforms"] or "(no note)"),
        "",
    ]
    out += replay_section(checkout, names)
    out += gates_section(env_dir, keys)
    return "\n".join(out).rstrip("\n") + "\n"


def replay_section(checkout: Path, names: Names) -> list[str]:
    main = "origin/main" if git(checkout, "branch", "-r", "--list", "origin/main") else "main"
    out = [
        "## 2. Replay of onnx's releases",
        "",
        "At each point of each release (branch cut, every version bump, every commit reaching "
        "the branch, the final tag) the dry-run planner of the config above was asked what to "
        "do, from the state just before it; a step matches when the plan equals what onnx did. "
        "Cherry-picks are found on main by patch identity (`git cherry`) or by the pull "
        "requests their titles and messages name. The planner does not decide *when* to "
        "cut, nor whether the next bump is another release candidate or the final release: "
        "the release manager does, so the replay gives it that decision (the kind of bump "
        "onnx made) and compares the versions, names and commits it plans.",
        "",
    ]
    total = [0, 0]
    differences: list[str] = []
    summary = []
    for release, previous in REPLAYS:
        history = replay.read_history(
            checkout,
            Version(release),
            names,
            main=main,
            version_file="VERSION_NUMBER",
            previous_tag=previous,
        )
        steps = replay.replay(history, names)
        matched, count = replay.match_rate(steps)
        total[0] += matched
        total[1] += count
        summary.append((release, history.branch, f"{matched}/{count}"))
        out += [f"### {release}", ""]
        out += table(
            ["step", "mlrelease's plan", "what onnx did", "match"],
            [(s.step, s.planned, s.actual, "yes" if s.match else "**no**") for s in steps],
        )
        differences += [f"{release}, {s.step}: {s.actual}. {s.why}" for s in steps if s.why]
    rate = total[0] / total[1]
    out += [
        "### Match rate",
        "",
        *table(["release", "branch", "steps matching"], summary),
        f"Overall: **{total[0]}/{total[1]} steps = {rate:.0%}** "
        f"(the newest release, {REPLAYS[0][0]}: {summary[0][2]}).",
        "",
        "### Every difference, explained",
        "",
        *[f"- {d}" for d in differences],
        "- Commit subjects: mlrelease writes `Set version number to X` for every bump; onnx's "
        "subjects vary (`Bump version number to`, `update release to rc2`, `Remove rc ...`). "
        "Only the versions are compared.",
        "",
    ]
    return out


RELEASES = [n for n in ONNX if n != "main"]
"""The published releases studied, oldest first."""


def _fate(present: Sequence[str]) -> tuple[str, str]:
    """(the releases that shipped a problem, where it was fixed), from where it shows."""
    shipped = [n for n in present if n != "main"]
    if not shipped:
        return "none (main only)", "not released"
    later = [n for n in RELEASES if Version(n) > Version(shipped[-1])]
    if later:
        return ", ".join(shipped), f"fixed by {later[0]}"
    return ", ".join(shipped), "not fixed" + (" (on main too)" if "main" in present else "")


def gates_section(env_dir: Path, keys: set[str]) -> list[str]:
    envs = {name: env_python(env_dir, f"onnx-{name}", [req]) for name, req in ONNX.items()}
    schemas = {name: in_env(python, SCHEMAS) for name, python in envs.items()}
    findings: list[tuple[str, ...]] = []
    out = ["## 3. Gates on real onnx", "", "### opset_rules: operator schemas, release to release"]
    out += [
        "",
        "Each release's schemas are collected from the installed package in its own "
        f"environment; main is `{ONNX['main']}`, onnx's weekly build of main.",
        "",
    ]
    # Where each problem shows: rules on one release alone, and against the release before.
    single = {n: opset_check({}, schemas[n])[0] for n in ONNX}
    paired: dict[str, list[str]] = {n: [] for n in ONNX}
    for before, after in OPSET_PAIRS:
        paired[after] += opset_check(schemas[before], schemas[after])[0]
    rows: list[tuple[object, ...]] = []
    for before, after in OPSET_PAIRS:
        problems, facts = opset_check(schemas[before], schemas[after])
        rows.append((f"{before} -> {after}", len(problems), "; ".join(facts[:1])))
        for problem in problems:
            present = [n for n in ONNX if problem in single[n] or problem in paired[n]]
            findings.append(("opset_rules", f"{before} -> {after}", problem, *_fate(present)))
    out += table(["releases", "problems", "ai.onnx"], rows)
    out += ["### compat: what make_model stamps against onnxruntime of the same period", ""]
    facts_of = {name: in_env(envs[name], FACTS) for name in ONNX}
    for release, made in facts_of.items():
        later = [n for n in RELEASES if Version(n) > Version(made["version"])]
        fixed = next((n for n in later if not facts_of[n]["table"]), None)
        for problem in made["table"]:
            findings.append(
                (
                    "compat",
                    f"onnx {made['version']}",
                    problem,
                    made["version"] if release != "main" else "none (main only)",
                    f"fixed by {fixed}" if fixed else "not fixed",
                )
            )
    rows = []
    for release, runtimes in ORT_PERIOD.items():
        made = facts_of[release]
        produced = compat.Produced(made["source"], made["ir"], made["opsets"])
        for ort in runtimes:
            python = env_python(env_dir, f"ort-{ort}", [f"onnxruntime=={ort}", "onnx==1.23.2"])
            limits = Limits.from_dict(in_env(python, PROBE))
            bad = [f.message for f in compat.judge(produced, limits) if not f.ok]
            rows.append(
                (
                    release,
                    f"IR {made['ir']}, ai.onnx {made['opsets'].get('')}",
                    f"onnxruntime {ort}",
                    f"IR <= {limits.ir[1] if limits.ir else '-'}, ai.onnx <= "
                    f"{(limits.opsets.get('') or (0, '-'))[1]}",
                    "loads" if not bad else "**fails**",
                )
            )
            findings += [
                ("compat", f"onnx {release} / ort {ort}", b, release, "onnx's own default")
                for b in bad
            ]
    out += table(["onnx", "make_model stamps", "runtime", "it loads", "verdict"], rows)
    out += ops_section(env_dir)
    files = published(env_dir, [WHEELS_RELEASE, *(r for pair in WHEEL_DROPS for r in pair)])
    names = files[WHEELS_RELEASE]
    have = artifacts.release_set(names, "onnx")
    abi3 = {
        p
        for n in names
        if n.endswith(".whl") and (a := artifacts.identify(Path(n))).abi3
        for p in a.platforms
    }
    missing = sorted(k for k in keys if not covered(k, have, abi3))
    extra = sorted(have - keys)
    out += [
        f"### wheels: the plan of {WHEELS_RELEASE}'s `[tool.cibuildwheel]` against PyPI",
        "",
        f"cibuildwheel {CIBUILDWHEEL} (the version onnx's release workflows pin) plans "
        f"{len(keys)} builds from the tag v{WHEELS_RELEASE}'s pyproject.toml, on the "
        f"architectures of onnx's runners ({'; '.join(f'{k}={v}' for k, v in WHEEL_ARCHS.items())}"
        f"); onnx published {len(names)} files ({len(have)} python-platform keys; the "
        "cp312-abi3 wheels cover CPython 3.12 and newer).",
        "",
        *table(
            ["", "python-platform"],
            [
                ("planned, not published", ", ".join(missing) or "none"),
                ("published, not planned", ", ".join(extra) or "none"),
            ],
        ),
        "The difference is onnx's practice, not a defect: its release workflows pick their "
        "builds with an explicit `only:` matrix (no musllinux, no 3.13t since 1.22.0, pyodide by "
        "its own workflow), so `[tool.cibuildwheel]` alone does not say what onnx ships. "
        "Adopting mlrelease means moving that matrix to `[tool.cibuildwheel] build`/`skip`, "
        "where `mlrelease wheels plan` reads it.",
        "",
        "The wheels gate also compares each release's published set with the previous "
        "release's; a drop fails unless the config allows it:",
        "",
    ]
    rows = []
    for before, after in WHEEL_DROPS:
        gone = artifacts.dropped(
            artifacts.release_set(files[before], "onnx"),
            artifacts.release_set(files[after], "onnx"),
        )
        rows.append(
            (
                f"{before} -> {after}",
                "; ".join(f"{k}: {', '.join(v)}" for k, v in gone.items()) or "nothing dropped",
            )
        )
        for what, keys_gone in gone.items():
            findings.append(
                (
                    "wheels",
                    f"{before} -> {after}",
                    f"onnx {after} publishes no wheel for {what} ({', '.join(keys_gone)}), "
                    f"which {before} had",
                    after,
                    "a decision to record: [[tool.mlrelease.wheels.dropped]]",
                )
            )
    out += table(["releases", "dropped"], rows)
    out += [
        "## 4. Findings",
        "",
        "One row per message (the first comparison that shows it). *Shipped in*: the studied "
        "releases that carry it; *status*: the first studied release without it (releases "
        f"studied: {', '.join(RELEASES)}, and main).",
        "",
        *table(
            ["gate", "where", "the gate's message", "shipped in", "status"],
            list({(f[0], f[2]): f for f in reversed(findings)}.values())[::-1],
        ),
        "Reading them (the pull requests are from the pinned checkout's history):",
        "",
        "- **Defects onnx shipped.** Conv-11 allowed `tensor(float16)` twice in 1.20.1 and "
        "1.21.0 (onnx fixed it in #7940 for 1.22.0). onnx 1.22.0's `helper.VERSION_TABLE` has "
        "no 1.22.0 row, so tools mapping opsets to IR versions cannot place opset 27 (main "
        "added the row in #8107, nine days after the release). A new version of `Attention` "
        "was registered with since_version 25 (#8108, 'Add local_window_size attribute to "
        "Attention opset 25') after opsets 25, 26 and 27 had been published: a model importing "
        "opset 25 now binds a different `Attention` depending on the onnx version. It shipped "
        "in 1.23 and is still on main; `opset_rules` fails it on main before a release can.",
        "- **Compatibility onnx leaves to its users.** `make_model`'s defaults stamp an opset "
        "(and, in 1.23, an IR version) that no onnxruntime of the same period loads; the "
        "`compat` gate makes that a release-time fact instead of a user's error message.",
        "- **Decisions to record.** Dropping the free-threaded 3.13 wheels in 1.22.0 may well be "
        "intended; the wheels gate fails until the config records it.",
        "",
        "## 5. What the case study changed in mlrelease",
        "",
        '- `rc-model = "bump"`: release candidates as version bumps without tags '
        "(`mlrelease release rc` commits `Set version number to X.Y.ZrcN`); branch names may "
        "carry `{patch}`; under this model main carries the plain next version (`1.23.0`).",
        "- `mlrelease init` detects `rel-X.Y.Z` branches, untagged release candidates (from the "
        "subjects of version-bump commits), a Sphinx site below `docs/` and onnx itself.",
        "- `mlrelease init` proposed only `manylinux_x86_64` and `win_amd64`: it asked "
        "cibuildwheel what it builds *on this machine* (an x86_64 Linux host, `archs = auto`), "
        "missing onnx's aarch64, Windows ARM64 and macOS wheels. It now reads the declared "
        "build matrix (`[tool.cibuildwheel]` archs, the cibuildwheel workflows' `CIBW_ARCHS*`, "
        "runners and `only:` identifiers) and asks cibuildwheel with explicit `--archs`, so "
        "the proposal is the same on any machine.",
        "- `opset_rules` compares type constraints as sets, and flags a type listed twice "
        "(onnx 1.21.0's Conv-11 listed `tensor(float16)` twice; onnx removed the duplicate for "
        "1.22.0, which the old rule misread as a signature change).",
        "- The wheel keys spell free-threaded builds `cp313t-...` as cibuildwheel does, and "
        "fold the Pyodide ABI year (`pyemscripten_2025_0` -> `2026_0`) like manylinux's glibc "
        "version, so a new Pyodide ABI is not a dropped platform.",
        "- `mlrelease ops run` generates the node suite of onnx 1.21 and 1.22 too (their "
        "`collect_testcases` requires an operator filter; 1.23 made it optional): it stopped "
        "there with a traceback, and any failure of onnx's own generators is now a clear "
        "error naming the onnx version.",
        '- Under `rc-model = "bump"` the derived release checklist has no bind step, its `rc` '
        "step commits an untagged candidate, and `promote` sets and tags the final version.",
        "- Open: `release cut` cuts `X.Y.0` from main; a patch release's own branch "
        "(`rel-1.20.1` from `v1.20.0`) is cut by hand.",
        "",
        "## Reproduce",
        "",
        "```",
        "git clone https://github.com/onnx/onnx onnx && git -C onnx checkout " + COMMIT_HINT,
        "python scripts/case_study_onnx.py onnx   # --env-dir DIR: where the environments go",
        "```",
        "",
        "Environments (made on first use, one per package version): "
        + ", ".join(f"`{r}`" for r in ONNX.values())
        + "; onnxruntime "
        + ", ".join(sorted({o for v in ORT_PERIOD.values() for o in v}))
        + f" (each with onnx 1.23.2 to write the probe models); cibuildwheel {CIBUILDWHEEL}.",
    ]
    return out


def ops_run(env_dir: Path, release: str, ort: str) -> dict[str, Any] | str:
    """``mlrelease ops run`` on onnx ``release``'s node suite against onnxruntime ``ort``: the
    results, or the error that stopped it."""
    python = env_python(env_dir, f"ops-{release}", [f"onnx=={release}", f"onnxruntime=={ort}"])
    project = env_dir / f"ops-{release}-project"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text(OPS_PROJECT, encoding="utf-8")
    results = project / "results.json"
    command = ["-m", "mlrelease", "--root", str(project), "ops", "run", "--jobs", "2"]
    proc = subprocess.run(
        [str(python), *command, "-o", str(results)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=project,
        timeout=1800,
    )
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return lines[-1] if lines else f"exit {proc.returncode}"
    data: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    return data


def ops_section(env_dir: Path) -> list[str]:
    out = [
        "### ops index: each release's node suite on onnxruntime of its period",
        "",
        "`mlrelease ops run` generates the release's own node test suite and runs every case "
        "on onnxruntime (CPU); the verdicts are those of the supported-operators index.",
        "",
    ]
    rows = []
    for release, ort in OPS_RUNS.items():
        found = ops_run(env_dir, release, ort)
        if isinstance(found, str):
            rows.append((release, ort, "did not run", f"mlrelease stopped: {found}"))
            continue
        cases = {c["name"]: c for c in found["cases"]}
        counts: dict[str, int] = {}
        ops: dict[str, set[str]] = {}
        for r in found["results"]:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
            if r["verdict"] != "pass":
                c = cases[r["case"]]
                ops.setdefault(r["verdict"], set()).add(f"{c['op_type']}:{c['since_version']}")
        verdicts = ", ".join(f"{v} {n}" for v, n in sorted(counts.items(), key=lambda i: -i[1]))
        unsupported = sorted(ops.get("opset_unsupported", set()))
        rows.append(
            (
                release,
                ort,
                f"{len(found['results'])} cases: {verdicts}",
                f"{len(unsupported)} operator versions need an opset onnxruntime {ort} does not "
                f"load: {', '.join(unsupported)}"
                if unsupported
                else "every opset loads",
            )
        )
    return out + table(["onnx", "onnxruntime", "verdicts", "newest operators"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a clone of onnx/onnx (never edited)")
    parser.add_argument("--env-dir", type=Path, default=ROOT / "build" / "case-study-onnx")
    parser.add_argument("--out", type=Path, default=PAGE)
    parser.add_argument("--check", action="store_true", help="fail when the page is stale")
    args = parser.parse_args(argv)
    if not (args.checkout / "VERSION_NUMBER").is_file():
        parser.error(f"{args.checkout}: not an onnx checkout (no VERSION_NUMBER)")
    text = page(args.checkout.resolve(), args.env_dir.resolve())
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run scripts/case_study_onnx.py", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
