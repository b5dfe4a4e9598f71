"""Model Zoo submission mode: required artifacts, then verification, then ACCEPT or DECLINE.

A submission is a folder (the ONNX Model Zoo CI proposal's list of artifacts)::

    submission/
      README.md              sections: description, license, dataset, accuracy
      model.onnx             (+ external data files next to it)
      test_data_set_0/       input_0.pb ..., output_0.pb ...
      preprocess.py          where model.toml declares it (checked, never executed)
      model.toml             optional: a manifest for this folder (paths stay inside it),
                             e.g. tolerances, checksums, a performance baseline

The verdict is Markdown for a pull-request comment: ACCEPT only when every artifact is there
and every model passes every step; otherwise DECLINE with every reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease.errors import ConfigError
from mlrelease.models import integrity
from mlrelease.models import manifest as manifest_mod
from mlrelease.models.manifest import ModelEntry, ModelJob
from mlrelease.models.verdicts import STEPS, ModelVerdict, Outcome, findings, markdown_table

SUBMISSION_MANIFEST = "model.toml"
README_NAMES = ("README.md", "readme.md", "README.MD", "Readme.md")
SECTIONS: dict[str, tuple[str, ...]] = {
    "description": ("description", "overview", "model", "summary", "use case"),
    "license": ("license", "licence"),
    "dataset": ("dataset", "data set", "training data"),
    "accuracy": ("accuracy", "validation", "evaluation", "results", "metrics"),
}
"""Required README sections, each found by any heading containing one of its words."""
LICENSE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")
MAX_SCRIPT_BYTES = 1 << 20


@dataclass
class Submission:
    """What was found in a submission folder before any model is verified."""

    folder: Path
    jobs: list[ModelJob] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    """Artifact problems: each is a reason to decline."""
    checked: list[str] = field(default_factory=list)
    """Artifacts found in order (for the comment)."""
    weaker: list[str] = field(default_factory=list)
    """Checks weaker than the standard one, each allowed by the project's configuration."""


def readme_sections(text: str) -> dict[str, str]:
    """Markdown headings (lower-cased) -> the text under them, up to the next heading."""
    sections: dict[str, str] = {}
    current = None
    body: list[str] = []
    for line in text.splitlines():
        match = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            if current is not None:
                sections[current] = "\n".join(body).strip()
            current, body = match.group(1).strip().lower(), []
        elif current is not None:
            body.append(line)
    if current is not None:
        sections[current] = "\n".join(body).strip()
    return sections


def check_readme(folder: Path) -> tuple[list[str], list[str]]:
    """(reasons, found) for the README and the license."""
    readme = next((folder / n for n in README_NAMES if (folder / n).is_file()), None)
    if readme is None or integrity.check_file(readme, folder, "README"):
        return [
            "no README.md with the model's description, license, dataset and accuracy notes"
        ], []
    text = readme.read_text(encoding="utf-8", errors="replace")
    sections = readme_sections(text)
    reasons, found = [], [f"`{readme.name}`"]
    license_file = next((n for n in LICENSE_FILES if (folder / n).is_file()), None)
    for need, words in SECTIONS.items():
        heading = next((h for h in sections if any(w in h for w in words)), None)
        if heading is None:
            if need == "license" and license_file:
                found.append(f"`{license_file}`")
                continue
            reasons.append(
                f"README.md has no {need} section (a heading naming {' / '.join(words[:3])})"
            )
        elif not sections[heading]:
            reasons.append(f"README.md section '{heading}' is empty")
        else:
            found.append(f"README {need} ('{heading}')")
    return reasons, found


def check_script(folder: Path, name: str, what: str) -> str | None:
    """A declared pre/post-processing script exists inside the folder and is valid Python."""
    path = folder / name
    problem = integrity.check_file(path, folder, f"{what} script")
    if problem:
        return problem
    if path.stat().st_size > MAX_SCRIPT_BYTES:
        return f"{what} script {name} is over 1 MiB"
    if path.suffix == ".py":
        try:
            compile(path.read_bytes(), name, "exec")  # compiled to check syntax; never executed
        except (SyntaxError, ValueError) as exc:
            return f"{what} script {name} is not valid Python: {exc}"
    return None


WEAKER_OUTPUT_CHECK = (
    "outputs compared only between onnxruntime and the onnx reference evaluator, "
    "not against the submitter's expected outputs"
)


def missing_outputs(job: ModelJob) -> list[str]:
    """The test data sets of ``job`` with inputs but no expected outputs (by folder name).

    Without expected outputs step 5 can only compare onnxruntime with the onnx reference
    evaluator: a model whose exported graph is wrong passes when both run it alike.
    """
    found = [
        Path(folder).name
        for folder in job.test_data
        if any(Path(folder).glob("input_*.pb")) and not any(Path(folder).glob("output_*.pb"))
    ]
    if job.inputs and not job.expected_outputs:
        found.append("the declared inputs")
    return found


def inspect(folder: Path, *, allow_missing_outputs: bool = False) -> Submission:
    """Check the artifacts of a submission and build one job per model (confined to it).

    A test data set with inputs but no expected outputs declines the submission unless
    ``allow_missing_outputs`` (``[tool.mlrelease.models] allow-missing-expected-outputs``),
    which records the weaker check instead.
    """
    folder = folder.absolute()
    sub = Submission(folder)
    if not folder.is_dir():
        sub.reasons.append(f"{folder} is not a folder")
        return sub
    reasons, found = check_readme(folder)
    sub.reasons.extend(reasons)
    sub.checked.extend(found)
    manifest_path = folder / SUBMISSION_MANIFEST
    manifest = None
    if manifest_path.exists():
        problem = integrity.check_file(manifest_path, folder, SUBMISSION_MANIFEST)
        if problem:
            sub.reasons.append(problem)
        else:
            try:
                manifest = manifest_mod.load(manifest_path)
            except ConfigError as exc:
                sub.reasons.append(f"{SUBMISSION_MANIFEST} is invalid: {exc}")
    if manifest is None:
        models = sorted(folder.glob("*.onnx"))
        manifest = manifest_mod.Manifest(models=[ModelEntry(path=p.name) for p in models])
    else:
        sub.checked.append(f"`{SUBMISSION_MANIFEST}`")
    if not manifest.models:
        sub.reasons.append("no model: put the .onnx file in the folder (or list it in model.toml)")
    for entry in manifest.models:
        for what, name in (
            ("pre-processing", entry.preprocess),
            ("post-processing", entry.postprocess),
        ):
            if name:
                problem = check_script(folder, name, what)
                if problem:
                    sub.reasons.append(problem)
                else:
                    sub.checked.append(f"{what} `{name}`")
    try:
        sub.jobs = manifest_mod.jobs(manifest, folder, submission=folder, source=str(manifest_path))
    except ConfigError as exc:
        sub.reasons.append(str(exc))
        return sub
    for job in sub.jobs:
        if not job.test_data and not job.expected_outputs:
            sub.reasons.append(
                f"`{job.name}` has no test data set (test_data_set_N/input_I.pb and "
                "output_I.pb next to the model)"
            )
        else:
            sub.checked.append(f"`{job.name}` test data: {len(job.test_data) or 1} set(s)")
        bare = missing_outputs(job)
        if bare and allow_missing_outputs:
            sub.weaker.append(
                f"`{job.name}` ({', '.join(bare)}: no expected outputs): {WEAKER_OUTPUT_CHECK} "
                "(allowed by tool.mlrelease.models.allow-missing-expected-outputs)"
            )
        elif bare:
            sub.reasons.append(
                f"`{job.name}` test data {', '.join(bare)} has inputs but no expected outputs "
                "(output_I.pb): store the outputs the model must produce; without them the "
                f"verification is weaker ({WEAKER_OUTPUT_CHECK})"
            )
    return sub


def decide(sub: Submission, verdicts: Sequence[ModelVerdict]) -> tuple[bool, list[str]]:
    """ACCEPT (True) or DECLINE, with every reason."""
    reasons = list(sub.reasons)
    for v in verdicts:
        for s in v.steps:
            if s.outcome is Outcome.FAIL:
                reasons.append(f"`{v.name}` step {STEPS.get(s.step, s.step)}: {s.summary}")
    return not reasons, reasons


def comment(sub: Submission, verdicts: Sequence[ModelVerdict], environment: str) -> str:
    """The pull-request comment, in Markdown."""
    accepted, reasons = decide(sub, verdicts)
    lines = [
        f"## Model Zoo submission: {'ACCEPT' if accepted else 'DECLINE'}",
        "",
        f"`{sub.folder.name}/` checked with {environment}.",
        "",
    ]
    if reasons:
        lines += ["### Reasons to decline", "", *(f"- {r}" for r in reasons), ""]
    if sub.checked:
        lines += ["### Artifacts found", "", *(f"- {c}" for c in sub.checked), ""]
    if sub.weaker:
        lines += ["### Weaker checks", "", *(f"- {w}" for w in sub.weaker), ""]
    if verdicts:
        lines += ["### Verification", "", markdown_table(verdicts), ""]
        details = findings(verdicts, (Outcome.FAIL, Outcome.WARN))
        if details:
            lines += [
                "<details><summary>Step details</summary>",
                "",
                *details,
                "",
                "</details>",
                "",
            ]
    return "\n".join(lines)
