"""The rehearsal's checks of the wiring between jobs, read from the workflow files: what act's
run alone would miss or report far from the cause.

- every artifact a job downloads is uploaded by a job it needs (directly or not): a renamed
  artifact, or a missing ``needs:``, is named here rather than found as an empty folder later;
- every artifact a matrix job uploads (a shard's) is downloaded by some job: a shard report
  nobody merges is a shard that gates nothing;
- no artifact is named after ``strategy.job-index``: act leaves it empty, so every shard of
  the rehearsal would upload one name (name it after a matrix value, the same everywhere);
- every runs-on label is one GitHub hosts, or the job asks for a self-hosted runner;
- no job holding write permissions or publishing credentials can run on a pull request or an
  RC tag (``reach.problems``).
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import reach
import yaml

HOSTED = (
    "ubuntu-latest",
    "ubuntu-24.04",
    "ubuntu-22.04",
    "ubuntu-24.04-arm",
    "ubuntu-22.04-arm",
    "windows-latest",
    "windows-2025",
    "windows-2022",
    "windows-11-arm",
    "macos-latest",
    "macos-26",
    "macos-15",
    "macos-15-intel",
    "macos-14",
    "macos-13",
)
"""GitHub-hosted runner labels (docs.github.com, "GitHub-hosted runners", standard and arm64)."""
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        raise ValueError(f"{path}: not a workflow (no `jobs:` mapping)")
    return data


def _names(template: str, matrix: Mapping[str, Any]) -> list[str]:
    """The artifact names a name template gives: each ``matrix.X`` with a list of values
    expanded, any other expression a wildcard."""
    keys = [k for k in re.findall(r"matrix\.(\w+)", template) if isinstance(matrix.get(k), list)]
    out = []
    for values in itertools.product(*(matrix[k] for k in keys)):
        chosen = dict(zip(keys, values, strict=True))

        def fill(m: re.Match[str], chosen: dict[str, Any] = chosen) -> str:
            key = re.fullmatch(r"matrix\.(\w+)", m.group(1))
            return str(chosen[key.group(1)]) if key and key.group(1) in chosen else "*"

        out.append(_EXPR.sub(fill, template))
    return out


def _steps(job: Mapping[str, Any], action: str) -> Iterable[Mapping[str, Any]]:
    for step in job.get("steps") or []:
        if str(step.get("uses", "")).partition("@")[0] == action:
            yield step.get("with") or {}


def uploads(workflows: Path, data: Mapping[str, Any]) -> dict[str, list[str]]:
    """job id -> the artifact names (or wildcards) it uploads; a job calling a reusable
    workflow of this repository uploads what that workflow's jobs upload."""
    out: dict[str, list[str]] = {}
    for job_id, job in data["jobs"].items():
        called = str(job.get("uses", ""))
        if called.startswith("./"):
            inner = uploads(workflows, load(workflows / Path(called).name))
            out[job_id] = [n for names in inner.values() for n in names]
            continue
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        matrix = matrix if isinstance(matrix, dict) else {}
        out[job_id] = [n for w in _steps(job, "actions/upload-artifact") for n in
                       _names(str(w.get("name", "artifact")), matrix)]  # fmt: skip
    return out


def needed(data: Mapping[str, Any], job_id: str) -> set[str]:
    """The jobs ``job_id`` needs, directly or through others."""
    seen: set[str] = set()
    todo = [job_id]
    while todo:
        needs = data["jobs"].get(todo.pop(), {}).get("needs") or []
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in seen:
                seen.add(need)
                todo.append(need)
    return seen


def downloads(workflows: Path, job: Mapping[str, Any]) -> list[str]:
    """The artifact names (or patterns) a job downloads, those of a reusable workflow it calls
    included."""
    called = str(job.get("uses", ""))
    if called.startswith("./"):
        inner = load(workflows / Path(called).name)["jobs"].values()
        return [n for j in inner for n in downloads(workflows, j)]
    return [
        str(w.get("name") or w.get("pattern") or "*")
        for w in _steps(job, "actions/download-artifact")
    ]


def problems(workflow: Path) -> list[str]:
    """Every wiring fault of one workflow file, each a sentence naming the job and the fix."""
    data = load(workflow)
    made = uploads(workflow.parent, data)
    reusable = "workflow_call" in (data.get(True) or data.get("on") or {})  # YAML: on -> True
    wanted: set[str] = set()
    out = []
    for job_id, job in data["jobs"].items():
        if str(job.get("uses", "")).startswith("./"):
            out += _called(workflow, data, made, job_id)
            continue
        for want in downloads(workflow.parent, job):
            makers = {j for j, ns in made.items() for n in ns if n != "*" and _match(n, want)}
            # a name that is only an expression (`${{ matrix.artifact }}`) may be anything
            makers = makers or {j for j, ns in made.items() if "*" in ns}
            wanted |= {n for names in made.values() for n in names if _match(n, want)}
            if (not makers and reusable) or job_id in makers:
                continue  # from the caller's jobs, or within a called workflow (checked there)
            if not makers:
                known = sorted({n for names in made.values() for n in names}) or ["none"]
                out.append(
                    f"{workflow.name}: job {job_id} downloads artifact {want!r}, which no job "
                    f"of the workflow uploads (uploaded: {', '.join(known)})"
                )
            elif not makers & needed(data, job_id):
                out.append(
                    f"{workflow.name}: job {job_id} downloads artifact {want!r} uploaded by job "
                    f"{', '.join(sorted(makers))}, but does not need it: add it to `needs:`"
                )
    out += [
        f"{workflow.name}: job {job_id} names artifact {str(w['name'])!r} after "
        "strategy.job-index, which act leaves empty (every shard uploads one name): name it "
        "after a matrix value"
        for job_id, job in data["jobs"].items()
        for w in _steps(job, "actions/upload-artifact")
        if "strategy.job-index" in str(w.get("name", ""))
    ]
    out += runners(workflow) + reach.problems(workflow)
    for job_id, names in made.items():
        if (data["jobs"][job_id].get("strategy") or {}).get("matrix") and not reusable:
            out += [
                f"{workflow.name}: artifact {n!r} of matrix job {job_id} is downloaded by no "
                "job: nothing merges that shard"
                for n in names
                if n not in wanted
            ]
    return out


def _called(
    workflow: Path, data: Mapping[str, Any], made: Mapping[str, list[str]], job_id: str
) -> list[str]:
    """The artifacts the jobs of a called workflow download that neither a job of it uploads
    nor a job the calling job needs: blamed on the called workflow's job, where the name is."""
    name = Path(str(data["jobs"][job_id]["uses"])).name
    inner = load(workflow.parent / name)
    inside = uploads(workflow.parent, inner)
    # across the call only names written out count: a caller cannot know the names a called
    # workflow's jobs make at run time (``${{ matrix.artifact }}``), nor the reverse
    before = {n for j in needed(data, job_id) for n in made.get(j, []) if n != "*"}
    out = []
    for inner_id, job in inner["jobs"].items():
        for want in downloads(workflow.parent, job):
            if any(_match(n, want) for names in inside.values() for n in names):
                continue  # made inside (its `needs:` checked with that workflow)
            if not any(_match(n, want) for n in before):
                known = sorted({n for names in inside.values() for n in names} | before)
                out.append(
                    f"{name}: job {inner_id} (called by {workflow.name} job {job_id}) downloads "
                    f"artifact {want!r}, which no job of {name} uploads, nor a job {job_id} "
                    f"needs (uploaded: {', '.join(known) or 'none'})"
                )
    return out


def _match(name: str, want: str) -> bool:
    return fnmatch.fnmatchcase(name, want) or fnmatch.fnmatchcase(want, name)


def labels(job: Mapping[str, Any], matrix: Mapping[str, Any]) -> list[str]:
    """The runs-on labels of one job (one matrix entry); ``*`` where an expression is not a
    value of the entry."""

    def fill(m: re.Match[str]) -> str:
        key = re.fullmatch(r"matrix\.(\w+)", m.group(1))
        return str(matrix[key.group(1)]) if key and key.group(1) in matrix else "*"

    runs_on = job.get("runs-on") or []
    if isinstance(runs_on, dict):
        runs_on = runs_on.get("labels") or []
    return [
        _EXPR.sub(fill, str(label))
        for label in ([runs_on] if isinstance(runs_on, str) else runs_on)
    ]


def entries(job: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The matrix entries of a job written in the file (none known: one empty entry)."""
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    if not isinstance(matrix, dict):
        return [{}]
    axes = {
        k: v for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)
    }
    out = [dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())]
    include = matrix.get("include")
    return out + (include if isinstance(include, list) else [])


def runners(workflow: Path) -> list[str]:
    """The jobs (matrix entries) whose runs-on label no runner offers: not GitHub-hosted, and
    no ``self-hosted`` asked for (a typo's leg never runs, on GitHub or here)."""
    out = []
    for job_id, job in load(workflow)["jobs"].items():
        for entry in entries(job):
            found = labels(job, entry)
            if "self-hosted" in found or "uses" in job:
                continue
            out += [
                f"{workflow.name}: job {job_id} runs on {label!r}"
                + (f" (matrix {entry})" if entry else "")
                + f", a label no runner offers: GitHub hosts {', '.join(HOSTED)}; a self-hosted "
                "runner's job lists `self-hosted` in runs-on"
                for label in found
                if "*" not in label and label not in HOSTED
            ]
    return out
