"""The conda-forge replay: ``mlrelease conda``'s planner on conda-forge/onnx-feedstock's real
history, compared with what the maintainers merged (docs/case-studies/onnx-conda.md).

For each onnx release of the last two years, the change is generated from onnx's tag (the
source archive's SHA-256) and its PyPI sdist alone (``Requires-Dist``, ``Requires-Python``,
``[build-system] requires``, what its CMake files find; the previous release's sdist for the
diff), applied to the feedstock's recipe as it was before the update, and scored against the
recipe merged for that version: the version, the hash, and every run and host requirement
(name and constraint). Every difference is explained below (``EXPLAINED``): who was right, or
what the metadata cannot know; ``--check`` fails when one is not, or when the page is stale.

The data is recorded (``docs/case-studies/onnx-conda.json``, written by
``scripts/case_study_conda_extract.py`` from the fetched repositories and the sdists), so the
page regenerates anywhere: ``python scripts/case_study_conda.py [--execute | --check]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from packaging.version import Version

from mlrelease.conda import edit, propose, recipe
from mlrelease.conda.names import MAPPING
from mlrelease.conda.release import ReleaseFacts
from mlrelease.edges import files

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "case-studies" / "onnx-conda.json"
PAGE = ROOT / "docs" / "case-studies" / "onnx-conda.md"
GOAL = 0.95

EXPLAINED = {
    ("1.20.0", "host", "nanobind"): (
        "could not be known",
        "onnx 1.20 moved its Python bindings from pybind11 to nanobind in CMake, not in "
        "`[build-system] requires`. The planner read the switch from the sources' "
        "`find_package` calls: it removed pybind11 (no longer found) and said, as undecided, "
        "that nanobind is found now; which conda package provides a CMake package is not in "
        "the sources, so it did not add one. The maintainers added `nanobind`.",
    ),
    ("1.21.0", "run", "numpy"): (
        "the planner",
        "onnx 1.21 requires `numpy>=1.23.2`; the recipe had dropped numpy from host (where its "
        "run_exports had carried it to run), so the planner added it to run. The merged recipe "
        "has no numpy at all: onnx gets it only because ml_dtypes depends on numpy. A direct "
        "requirement the wheel declares belongs in run.",
    ),
    ("1.22.0", "run", "numpy"): (
        "the planner",
        "As for 1.21.0: the metadata requires numpy, the merged recipe reaches it only through "
        "ml_dtypes.",
    ),
}
"""(version, section, conda name) -> (who was right, why): every difference the replay finds."""


def release_of(data: dict[str, Any], source: dict[str, str] | None) -> ReleaseFacts:
    """A release from its recorded facts (no files: the patch verdicts are recorded)."""
    return ReleaseFacts(
        name="onnx",
        version=Version(data["version"]),
        source_sha256=source["sha256"] if source else "",
        source_name=source["name"] if source else "",
        requires=tuple(data["requires"]),
        requires_python=data["requires_python"],
        build_requires=tuple(data["build_requires"]),
        cmake_packages=tuple(data["cmake_packages"]),
    )


def replay(entry: dict[str, Any]) -> dict[str, Any]:
    """One release: the proposal, the merged recipe, and the fields compared."""
    kind = recipe.V1 if entry["recipe"].endswith(recipe.V1) else recipe.META
    before = recipe.parse(entry["before"], kind)
    merged = recipe.parse(
        entry["merged"], recipe.V1 if "schema_version" in entry["merged"] else recipe.META
    )
    now = release_of(entry["release"], entry["source"])
    previous = release_of(entry["previous"], None) if entry["previous"] else None
    proposal = propose.propose(
        before, now, previous, propose.PlanOptions(), entry["patch_problems"]
    )
    after = recipe.parse(edit.apply(entry["before"], proposal.changes), kind)
    fields = []
    for section in ("host", "run"):
        mine, theirs = proposal.sections[section], propose.requirements_after(merged, (), section)
        for name in sorted(set(mine) | set(theirs)):
            fields.append((section, name, mine.get(name), theirs.get(name)))
    return {
        "entry": entry,
        "proposal": proposal,
        "version": (
            after.version.text if after.version else None,
            merged.version.text if merged.version else None,
        ),
        "sha256": ([v.text for v in after.sha256], [v.text for v in merged.sha256]),
        "fields": fields,
    }


def spelled(constraint: str | None) -> str:
    if constraint is None:
        return "absent"
    return f"`{constraint}`" if constraint else "unpinned"


def render(data: dict[str, Any]) -> tuple[str, list[str]]:
    """The page, and what fails the check (an unexplained difference, a stale explanation, a
    score under the goal)."""
    results = [replay(e) for e in data["releases"]]
    problems: list[str] = []
    seen = set()
    rows, lines = [], []
    equal = total = 0
    for r in results:
        version = r["entry"]["version"]
        diffs = [f for f in r["fields"] if f[2] != f[3]]
        equal += len(r["fields"]) - len(diffs)
        total += len(r["fields"])
        ok_v = r["version"][0] == r["version"][1]
        ok_h = r["sha256"][0] == r["sha256"][1]
        same = f"{len(r['fields']) - len(diffs)}/{len(r['fields'])}"
        rows.append(
            f"| {version} | {r['entry']['merged_on']} | {'equal' if ok_v else 'differs'} | "
            f"{'equal' if ok_h else 'differs'} | {same} | {len(r['proposal'].undecided)} |"
        )
        for section, name, mine, theirs in diffs:
            key = (version, section, name)
            seen.add(key)
            if key not in EXPLAINED:
                problems.append(f"{version} {section} {name}: unexplained difference")
                continue
            who, why = EXPLAINED[key]
            cells = [version, section, name, spelled(mine), spelled(theirs), who, why]
            lines.append("| " + " | ".join(cells) + " |")
        if not (ok_v and ok_h):
            problems.append(f"{version}: version or hash differs")
    problems += [f"{k}: explained but no longer a difference" for k in EXPLAINED if k not in seen]
    score = equal / total if total else 0.0
    if score < GOAL:
        problems.append(f"requirements score {score:.1%} under the goal {GOAL:.0%}")
    return _page(data, results, rows, lines, (equal, total)), problems


def _page(
    data: dict[str, Any],
    results: list[dict[str, Any]],
    rows: list[str],
    lines: list[str],
    score: tuple[int, int],
) -> str:
    equal, total = score
    stock = data["feedstock"]
    out = [
        "# Case study: conda-forge/onnx-feedstock, replayed",
        "",
        "<!-- Generated by `python scripts/case_study_conda.py --execute` from "
        "docs/case-studies/onnx-conda.json; do not edit by hand. -->",
        "",
        "`mlrelease conda` generates the feedstock change of a release from the release alone. "
        f"This page replays it on every onnx release of {data['window'][0]} to "
        f"{data['window'][1]} that conda-forge/onnx-feedstock merged (its history up to "
        f"{stock['head'][:12]}, {stock['date']}): the change is made from onnx's tag (the "
        "SHA-256 of the tag's source archive, which is what the recipe downloads) and its PyPI "
        "sdist (with the previous release's sdist for the diff), applied to the recipe as it "
        "was before the version update, and compared with the recipe the maintainers merged.",
        "",
        f"PyPI names are mapped by {MAPPING}.",
        "",
        "## Score",
        "",
        f"Run and host requirements (each name, with its constraint): **{equal} of {total} "
        f"fields equal ({equal / total:.1%})**; the goal is {GOAL:.0%}. Version and hash: "
        f"{sum(r['version'][0] == r['version'][1] for r in results)} and "
        f"{sum(r['sha256'][0] == r['sha256'][1] for r in results)} of {len(results)} equal "
        "(the archive's SHA-256 is computed from the tag: `git archive` under `onnx-X/`, "
        "`gzip -n`, byte for byte what GitHub serves).",
        "",
        "| onnx | merged | version | sha256 | requirements equal | undecided |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "## Every difference",
        "",
        "| onnx | section | package | proposed | merged | who was right | why |",
        "|---|---|---|---|---|---|---|",
        *lines,
        "",
        *_undecided(results),
        *_unmerged(data),
    ]
    return "\n".join(out) + "\n"


def _undecided(results: list[dict[str, Any]]) -> list[str]:
    out = [
        "## What the planner said it could not decide",
        "",
        "Said, never guessed: the maintainers decided each of these, and the page shows what "
        "they did. A patch that no longer applies is checked with `git apply --check` in the "
        "recipe's order against the tag's archive; as a check of the checker, every patch of "
        "every merged recipe applies to its own release.",
        "",
    ]
    for r in results:
        entry = r["entry"]
        checker = (
            "all apply" if not entry["merged_patch_problems"] else entry["merged_patch_problems"]
        )
        out.append(f"- **{entry['version']}** (merged patches: {checker}):")
        out += [f"  - {text}" for text in r["proposal"].undecided]
    return [*out, ""]


def _unmerged(data: dict[str, Any]) -> list[str]:
    out = ["## Releases with no merged recipe", ""]
    out += [f"- onnx {v}: {why}" for v, why in sorted(data["unmerged"].items())]
    return [*out, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    files.add_arguments(parser, what="the case-study page")
    args = parser.parse_args(argv)
    page, problems = render(json.loads(DATA.read_text(encoding="utf-8")))
    for problem in problems:
        print(f"case study: {problem}", file=sys.stderr)
    generated = files.Generated(PAGE, page, "docs/case-studies/onnx-conda.md")
    code = files.run(args, [generated], command="python scripts/case_study_conda.py")
    return code or (1 if problems else 0)


if __name__ == "__main__":
    raise SystemExit(main())
