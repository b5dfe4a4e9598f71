"""Sections 3 and 4 of the onnx case study (``case_study_onnx.py``): the gates' rules on real
onnx releases, each installed from PyPI in its own environment (:mod:`case_study_onnx_envs`),
and what they found."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from case_study_lib import table
from case_study_onnx_envs import (
    CIBUILDWHEEL,
    FACTS,
    PROBE,
    SCHEMAS,
    WHEEL_ARCHS,
    env_python,
    in_env,
    ops_run,
    published,
)
from packaging.version import Version

from mlrelease.models import compat
from mlrelease.models.runtimes import RuntimeLimits
from mlrelease.opsets.rules import check as opset_check
from mlrelease.wheels import artifacts

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

WHEELS_RELEASE = "1.22.0"

WHEEL_DROPS = [("1.20.1", "1.21.0"), ("1.21.0", "1.22.0"), ("1.22.0", "1.23.0")]
"""(previous, current) releases whose published wheel sets the wheels gate compares."""

OPS_RUNS = {"1.22.0": "1.27.0", "1.23.2": "1.30.0"}
"""onnx release -> the onnxruntime of its period whose supported-operators index is measured."""

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


def covered(identifier: str, have: set[str], abi3: set[str]) -> bool:
    """A build is covered by its own wheel, or (CPython >= 3.12, not free-threaded) by a
    cp312-abi3 wheel for its platform, as onnx ships them since 1.21."""
    python, _, platform = identifier.partition("-")
    regular = python.startswith("cp3") and not python.endswith("t") and int(python[3:]) >= 12
    return identifier in have or (regular and platform in abi3)


def gates_section(env_dir: Path, keys: set[str]) -> list[str]:
    """Section 3 of the page, the gates' rules on real onnx releases, and section 4, what they
    found (``keys``: what cibuildwheel plans for :data:`WHEELS_RELEASE`)."""
    envs = {name: env_python(env_dir, f"onnx-{name}", [req]) for name, req in ONNX.items()}
    findings: list[tuple[str, ...]] = []
    out = opset_section(envs, findings)
    out += compat_section(env_dir, envs, findings)
    out += ops_section(env_dir)
    out += wheels_section(env_dir, keys, findings)
    return out + findings_section(findings)


def opset_section(envs: dict[str, Path], findings: list[tuple[str, ...]]) -> list[str]:
    """``opset_rules`` on each release's operator schemas; its problems go to ``findings``."""
    schemas = {name: in_env(python, SCHEMAS) for name, python in envs.items()}
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
    return out


def compat_section(
    env_dir: Path, envs: dict[str, Path], findings: list[tuple[str, ...]]
) -> list[str]:
    """What each release's ``make_model`` stamps against the onnxruntime releases of its period;
    the problems go to ``findings``."""
    out = ["### compat: what make_model stamps against onnxruntime of the same period", ""]
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
    rows: list[tuple[object, ...]] = []
    for release, runtimes in ORT_PERIOD.items():
        made = facts_of[release]
        produced = compat.Produced(made["source"], made["ir"], made["opsets"])
        for ort in runtimes:
            python = env_python(env_dir, f"ort-{ort}", [f"onnxruntime=={ort}", "onnx==1.23.2"])
            limits = RuntimeLimits.from_dict(in_env(python, PROBE))
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
            findings.extend(
                ("compat", f"onnx {release} / ort {ort}", b, release, "onnx's own default")
                for b in bad
            )
    out += table(["onnx", "make_model stamps", "runtime", "it loads", "verdict"], rows)
    return out


def wheels_section(env_dir: Path, keys: set[str], findings: list[tuple[str, ...]]) -> list[str]:
    """The plan of :data:`WHEELS_RELEASE`'s ``[tool.cibuildwheel]`` (``keys``) against the files
    onnx published, and the wheels each release dropped; the drops go to ``findings``."""
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
    out = [
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
    rows: list[tuple[object, ...]] = []
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
    return out


def findings_section(findings: list[tuple[str, ...]]) -> list[str]:
    """Section 4 of the page: every finding of the gates, once, and how to read them."""
    return [
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
    ]


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
