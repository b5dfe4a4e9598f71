"""The adoption corpus's page (``adoption_corpus.py``): each replayed step judged against the
project's history and the data file's reviews (:func:`verdict`), the match rate per project,
before and now, the wrong steps grouped by cause, and every step of every project.

A step is **right** when mlrelease did what the maintainers did, **right to differ** when it
differs and a review in the data file says, with its reason, that mlrelease was right (a review
applies only while the step still says what was reviewed: its ``seen`` text), and **wrong**
otherwise: reviewed wrong (with the mlrelease behaviour at fault), or not reviewed yet. A step
with nothing to compare is listed, not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from adoption_corpus_key import Project, Review
from case_study_lib import cell, table

RIGHT, DIFFER, WRONG, UNREVIEWED, OUT = (
    "right",
    "right to differ",
    "wrong",
    "wrong (not reviewed)",
    "not compared",
)
COUNTED = (RIGHT, DIFFER, WRONG, UNREVIEWED)
FAMILY = {"pytorch": "PyTorch", "onnx": "ONNX"}
COMMAND = "python scripts/adoption_corpus.py"


def intro(projects: Sequence[Project]) -> list[str]:
    families = Counter(p.family for p in projects)
    return [
        f"{len(projects)} real projects, {families['pytorch']} of the PyTorch family and "
        f"{families['onnx']} of the ONNX family, none of which mlrelease was tuned on, each "
        "replayed through one whole release of its own history with the commands a user runs, "
        "and scored step by step against what its maintainers did. The data of each project is "
        "a small file in `ci/adoption-corpus/` (the repository, the release, the commit where it "
        "started, how the project names its refs, and the reviews below); its answer key, "
        "`<name>.key.json` beside it, is derived from the maintainers' real branches and tags "
        "with plain git (`scripts/adoption_corpus_key.py` over `scripts/case_study_history.py`: "
        "none of mlrelease's own rules). No code of the projects is in this repository.",
        "",
        "How a release is replayed (`scripts/adoption_corpus_replay.py`, on the scene of the "
        "Torch-TensorRT case study): in a temporary folder, a bare `origin` holds what the "
        "project had when the release started (its main at the start commit, its older release "
        "branches and tags) and a clone adopts mlrelease there with `mlrelease init --execute` "
        "(the `tests` gate left out: no project's suite runs here; a release model other than "
        "the project's is scored once and set to the project's). On a release branch: `release "
        "cut --version X.Y --execute --push` where the branch forks, then `release prepare "
        "--version X.Y.Z` (the checklist's next step); the project's own commits land one by "
        "one as changes, not as files: each commit's own diff is merged three ways into the "
        "branch, file by file (`git merge-file`), so that lines it does not touch keep what "
        "mlrelease's commands made of them, and a file whose change does not merge (the same "
        "lines changed otherwise, a binary file) lands whole, as the commit has it, which the "
        "step's record says; a release-only commit is right where `release cut` had made its "
        "change already (landing it changes nothing). Meanwhile origin's main follows the "
        "project's; before each of the project's RC tags, `release "
        "cherry-picks --json` and `release rc --execute --push --json` (`--rebuild` on the same "
        "commit again). On a release made on main: where the maintainers changed the version "
        "file, their change since the last landed commit lands (merged the same way) in two "
        "parts, as a user of mlrelease makes such a commit: first their own edits, all but the "
        "files where it writes the version (the version file, the files where it adds the "
        "version it sets, the changelog, `pyproject.toml`), then the command that sets the "
        "version, `release prepare --version X.Y.Z` (or `release rc` under version-bump RCs; "
        "and `release rc` next where a refusal's repair has just made RCs version bumps and "
        "the maintainers set a candidate's version), then the rest (tensorflow-onnx's "
        "2e4f0716f adds the job that publishes every `v*` tag and sets `1.17.0rc1` in one "
        "commit of its own, e188879f: the command runs on the tree with that workflow); and "
        "`release rc` where they tagged an RC. Where they made no "
        "RC, one `release rc` before the final tag (mlrelease promotes an RC). Last, `release "
        "promote --version X.Y.Z --published-elsewhere --json`, a dry run: it stops at the "
        "binding of the RC's files, which the corpus does not build (ten projects' wheels, three "
        "of them native, do not build in ten minutes on two cores), and the final tag is scored "
        "by promote's rule, the configured final tag on exactly the newest RC's commit. A "
        "refusal that names its repair is followed as a user would, from the `repair` object "
        "its `--json` output carries: a command (`mlrelease bump --sync --execute`, after a hand "
        'edit of the version) is run, keys of a table (`rc-model = "bump"` and `rc-tagged = '
        "true` in `[tool.mlrelease.release]`, when the files carry a candidate's own version "
        "under tag RCs) are set; the repair is committed and pushed, the command runs again, as "
        "long as each attempt names a new repair, and the step shows every attempt; the steps "
        "after it run under the configuration so repaired, and the step is right only if its "
        "final outcome is what the maintainers did. A "
        "refused command is recorded and the history's own act is made by hand (the branch, the "
        "tag), so the replay goes on as history did; a refusal is right only where the history "
        "shows the step was wrong.",
        "",
        "Where the histories come from: here, `fetch` snapshots of each repository (a snapshot "
        "keeps no file of 4 MiB or more: those paths are never checked out, and the clone "
        f"promises them from origin so that commits can name them). On a fresh machine, `{COMMAND} "
        "--clone` clones each repository from GitHub into `build/adoption-corpus/mirrors` (or "
        "`--mirrors DIR`, `$MLRELEASE_CORPUS_MIRRORS`); a history rewritten upstream fails on the "
        "start commit or on a changed answer key. Without mirrors (CI has no snapshot and clones "
        "none by default), `nox -s adoption_corpus -- --check` checks this page against the "
        "results recorded in docs/case-studies/adoption-corpus.json (the reviews may change, "
        "nothing is replayed) and names the projects it did not replay. `--as-before COMMIT` "
        "records a run as the *before* column.",
    ]


VERDICTS = [
    "A step is **right** when mlrelease did what the maintainers did; **right to differ** "
    "when it differs and a review in the project's data file says, with its reason, that "
    "mlrelease was right (a review applies only while the step still says what was "
    "reviewed); **wrong** otherwise: reviewed wrong, with the mlrelease behaviour at fault, "
    "or not reviewed yet. A step with nothing to compare is listed, not counted. *Before* is "
    "the same replay with mlrelease at the commit named, the reviews of today applied.",
]


def verdict(step: dict[str, Any], reviews: Iterable[Review]) -> tuple[str, Review | None]:
    """The step's verdict and the review that gave it (None for a match or no review)."""
    if step["match"] is None:
        return OUT, None
    if step["match"]:
        return RIGHT, None
    for review in reviews:
        if review.step == step["id"] and review.seen in step["did"]:
            return (DIFFER if review.verdict == "mlrelease right" else WRONG), review
    return UNREVIEWED, None


def score(steps: Sequence[dict[str, Any]], project: Project) -> Counter[str]:
    return Counter(verdict(s, project.review)[0] for s in steps)


def rate(counts: Counter[str]) -> str:
    counted = sum(counts[v] for v in COUNTED)
    good = counts[RIGHT] + counts[DIFFER]
    return f"{good}/{counted} = {good / counted:.0%}" if counted else "-"


def _release(project: Project, key: dict[str, Any]) -> str:
    rcs = [t for c in key["commits"] for t in c["rc_tags"]] + key["fork_rc_tags"]
    where = f"`{key['branch']}`" if key["branch"] else "main"
    return f"{project.version} ({where}, {len(rcs)} RC{'s' * (len(rcs) != 1)})"


def summary(
    projects: Sequence[Project],
    results: dict[str, Any],
    before: dict[str, Any],
    keys: dict[str, Any],
) -> list[str]:
    """The match-rate table, before and now."""
    rows = []
    total_before: Counter[str] = Counter()
    total_now: Counter[str] = Counter()
    for p in projects:
        now = score(results[p.name]["steps"], p)
        then = score(before["steps"].get(p.name, []), p)
        total_now += now
        total_before += then
        rows.append(
            (
                f"[{p.name}](#{p.name})",
                FAMILY[p.family],
                _release(p, keys[p.name]),
                rate(then),
                rate(now),
                now[DIFFER],
                now[WRONG] + now[UNREVIEWED],
            )
        )
    wrong = total_now[WRONG] + total_now[UNREVIEWED]
    rows.append(("all", "", "", rate(total_before), rate(total_now), total_now[DIFFER], wrong))
    header = [
        "project",
        "family",
        "release replayed",
        f"before ({before['commit']})",
        "now",
        "right to differ (now)",
        "wrong (now)",
    ]
    return table(header, rows)


def causes(projects: Sequence[Project], results: dict[str, Any]) -> list[str]:
    """Every wrong step now, grouped by the mlrelease behaviour at fault."""
    groups: dict[str, list[str]] = {}
    for p in projects:
        for step in results[p.name]["steps"]:
            found, review = verdict(step, p.review)
            if found not in (WRONG, UNREVIEWED):
                continue
            cause = review.cause if review and review.cause else "not reviewed yet"
            line = f"- **{p.name}** `{step['id']}`: {cell(step['did'])}"
            groups.setdefault(cause, []).append(line + (f" — {review.why}" if review else ""))
    out: list[str] = []
    for cause in sorted(groups, key=lambda c: (-len(groups[c]), c)):
        out += [f"### {cause} ({len(groups[cause])})", "", *groups[cause], ""]
    return out or ["No step is wrong.", ""]


def project_section(project: Project, result: dict[str, Any], key: dict[str, Any]) -> list[str]:
    stand_in = f" A fork stands in: {project.stand_in}" if project.stand_in else ""
    rows = []
    for step in result["steps"]:
        found, review = verdict(step, project.review)
        rows.append(
            (
                f"`{step['id']}`",
                step["history"],
                f"`{step['command']}`"
                if step["command"].startswith("mlrelease")
                else step["command"],
                step["did"],
                found,
                review.why if review else step["why"],
            )
        )
    return [
        f"### {project.name}",
        "",
        f"{project.about} History: [{project.snapshot}]({project.repository}) (snapshot "
        f"`{project.snapshot}`).{stand_in} Release {project.version} replayed from "
        f"`{key['fork'][:12]}` on {key['branch'] or 'main'}; {result['commands']} commands.",
        "",
        *table(["step", "the maintainers", "command", "mlrelease", "verdict", "why"], rows),
    ]


def page(projects: Sequence[Project], data: dict[str, Any], keys: dict[str, Any], wall: str) -> str:
    """The whole page, from the recorded results ``data``, the answer ``keys`` and the reviews
    in the data files."""
    results, before = data["projects"], data["before"]
    out = [
        "# Adoption corpus: real releases replayed with mlrelease",
        "",
        f"<!-- Generated by `{COMMAND} --execute` (`nox -s adoption_corpus`); do not edit. -->",
        "",
        *intro(projects),
        "",
        wall,
        "",
        "## Match rate per project",
        "",
        *summary(projects, results, before, keys),
        *VERDICTS,
        "",
        "## Wrong steps, by cause",
        "",
        *causes(projects, results),
        "## The projects",
        "",
    ]
    for p in projects:
        out += project_section(p, results[p.name], keys[p.name])
    return "\n".join(out).rstrip() + "\n"
