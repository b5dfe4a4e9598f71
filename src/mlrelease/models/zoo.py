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

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from mlrelease.errors import ConfigError
from mlrelease.models import manifest as manifest_mod
from mlrelease.models import safefile
from mlrelease.models.escaping import md_code, md_text
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
MAX_SCRIPT_BYTES = safefile.MAX_SCRIPT_BYTES
MAX_HEADING_CHARS = 200
"""A longer line is text, not a heading (and is never scanned as one)."""
INSPECT_MARK = "@@mlrelease-inspect@@ "


@dataclass
class Submission:
    """What was found in a submission folder before any model is verified."""

    folder: Path
    jobs: list[ModelJob] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    """Artifact problems, each a reason to decline: Markdown, submitted text escaped."""
    checked: list[str] = field(default_factory=list)
    """Artifacts found in order (for the comment): Markdown, submitted text escaped."""
    weaker: list[str] = field(default_factory=list)
    """Checks weaker than the standard one, each allowed by the project's configuration
    (Markdown, submitted text escaped)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "jobs": [j.to_dict() for j in self.jobs],
            "reasons": list(self.reasons),
            "checked": list(self.checked),
            "weaker": list(self.weaker),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Submission:
        return cls(
            folder=Path(data["folder"]),
            jobs=[ModelJob.from_dict(j) for j in data["jobs"]],
            reasons=[str(r) for r in data["reasons"]],
            checked=[str(c) for c in data["checked"]],
            weaker=[str(w) for w in data.get("weaker", [])],
        )


def _heading(line: str) -> str | None:
    """The text of an ATX heading line (``## Title ##``), else None. Linear time, no regex."""
    if len(line) > MAX_HEADING_CHARS:
        return None
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and not rest[0].isspace()):
        return None
    return rest.strip().rstrip("#").strip()


def readme_sections(text: str) -> dict[str, str]:
    """Markdown headings (lower-cased) -> the text under them, up to the next heading.

    A heading that appears twice keeps the first non-empty text.
    """
    sections: dict[str, str] = {}
    current = None
    body: list[str] = []

    def close() -> None:
        if current is not None and (current not in sections or not sections[current]):
            sections[current] = "\n".join(body).strip()

    for line in text.splitlines():
        heading = _heading(line)
        if heading is not None:
            close()
            current, body = heading.lower(), []
        elif current is not None:
            body.append(line)
    close()
    return sections


def _readme(folder: Path) -> Path | None:
    names = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    return next((folder / n for n in README_NAMES if n in names), None)


def check_readme(folder: Path) -> tuple[list[str], list[str]]:
    """(reasons, found) for the README and the license, as Markdown."""
    readme = _readme(folder)
    missing = "no README.md with the model's description, license, dataset and accuracy notes"
    if readme is None:
        return [missing], []
    try:
        text = safefile.read_text(readme, folder, "README", safefile.MAX_README_BYTES)
    except safefile.UnsafeFile as exc:
        return [f"{missing}: {md_text(exc)}"], []
    sections = readme_sections(text)
    reasons, found = [], [md_code(readme.name)]
    license_file = next(
        (n for n in LICENSE_FILES if (folder / n).exists() or (folder / n).is_symlink()), None
    )
    license_problem = (
        safefile.check(folder / license_file, folder, "license file", safefile.MAX_README_BYTES)
        if license_file
        else None
    )
    if license_problem:
        reasons.append(md_text(license_problem))
        license_file = None
    for need, words in SECTIONS.items():
        matching = [h for h in sections if any(w in h for w in words)]
        # A title such as "# TinyAdd model" matches "model" but holds no text: an ordinary
        # README, so the first matching heading *with* text counts.
        heading = next((h for h in matching if sections[h]), matching[0] if matching else None)
        if heading is None:
            if need == "license" and license_file:
                found.append(md_code(license_file))
                continue
            reasons.append(
                f"README.md has no {need} section (a heading naming {' / '.join(words[:3])})"
            )
        elif not sections[heading]:
            reasons.append(f"README.md section '{md_text(heading)}' is empty")
        else:
            found.append(f"README {need} ('{md_text(heading)}')")
    return reasons, found


def check_script(folder: Path, name: str, what: str) -> str | None:
    """A declared pre/post-processing script exists inside the folder and is valid Python.

    The problem is Markdown (submitted text escaped). The script is compiled to check its syntax,
    never executed; a pathological one (deep nesting, huge expressions) is a reason, not a crash.
    """
    path = folder / name
    try:
        source = safefile.read_bytes(path, folder, f"{what} script", MAX_SCRIPT_BYTES)
    except safefile.UnsafeFile as exc:
        return md_text(exc)
    if path.suffix == ".py":
        try:
            compile(source, name, "exec", dont_inherit=True)  # never executed
        except SyntaxError as exc:
            return md_text(f"{what} script {name} is not valid Python: {exc}")
        except (RecursionError, MemoryError) as exc:
            return md_text(
                f"{what} script {name} nests too deeply to compile ({type(exc).__name__}); "
                "simplify the expressions"
            )
        except Exception as exc:  # ValueError (NUL bytes), OverflowError, ...
            return md_text(f"{what} script {name} cannot be compiled: {type(exc).__name__}: {exc}")
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


def load_manifest(folder: Path) -> tuple[manifest_mod.Manifest | None, str | None]:
    """The submission's model.toml (None when absent), or the reason it is refused."""
    path = folder / SUBMISSION_MANIFEST
    if not (path.exists() or path.is_symlink()):
        return None, None
    try:
        text = safefile.read_text(path, folder, SUBMISSION_MANIFEST, safefile.MAX_MANIFEST_BYTES)
        data = tomllib.loads(text)
        return manifest_mod.parse(data, source=str(path)), None
    except safefile.UnsafeFile as exc:
        return None, md_text(exc)
    except tomllib.TOMLDecodeError as exc:
        return None, md_text(f"{SUBMISSION_MANIFEST} is not valid TOML: {exc}")
    except ConfigError as exc:
        return None, md_text(f"{SUBMISSION_MANIFEST} is invalid: {exc}")
    except RecursionError:
        return None, f"{SUBMISSION_MANIFEST} nests too deeply to read"
    except Exception as exc:  # anything else in it is a reason too, never a traceback
        return None, md_text(f"{SUBMISSION_MANIFEST} cannot be read: {type(exc).__name__}: {exc}")


def inspect(folder: Path, *, allow_missing_outputs: bool = False) -> Submission:
    """Check the artifacts of a submission and build one job per model (confined to it).

    A test data set with inputs but no expected outputs declines the submission unless
    ``allow_missing_outputs`` (``[tool.mlrelease.models] allow-missing-expected-outputs``),
    which records the weaker check instead. Reads submitted files (through :mod:`.safefile`);
    run it in a subprocess (:func:`inspect_isolated`) where the folder is untrusted.
    """
    folder = folder.absolute()
    sub = Submission(folder)
    if not folder.is_dir():
        sub.reasons.append(f"{md_text(folder)} is not a folder")
        return sub
    reasons, found = check_readme(folder)
    sub.reasons.extend(reasons)
    sub.checked.extend(found)
    manifest, problem = load_manifest(folder)
    if problem:
        sub.reasons.append(problem)
    if manifest is None:
        models = sorted(folder.glob("*.onnx"))
        manifest = manifest_mod.Manifest(models=[ModelEntry(path=p.name) for p in models])
    else:
        sub.checked.append(md_code(SUBMISSION_MANIFEST))
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
                    sub.checked.append(f"{what} {md_code(name)}")
    try:
        sub.jobs = manifest_mod.jobs(
            manifest, folder, submission=folder, source=str(folder / SUBMISSION_MANIFEST)
        )
    except ConfigError as exc:
        sub.reasons.append(md_text(exc))
        return sub
    for job in sub.jobs:
        if not job.test_data and not job.expected_outputs:
            sub.reasons.append(
                f"{md_code(job.name)} has no test data set (test_data_set_N/input_I.pb and "
                "output_I.pb next to the model)"
            )
        else:
            sub.checked.append(f"{md_code(job.name)} test data: {len(job.test_data) or 1} set(s)")
        bare = [md_text(b) for b in missing_outputs(job)]
        if bare and allow_missing_outputs:
            sub.weaker.append(
                f"{md_code(job.name)} ({', '.join(bare)}: no expected outputs): "
                f"{WEAKER_OUTPUT_CHECK} "
                "(allowed by tool.mlrelease.models.allow-missing-expected-outputs)"
            )
        elif bare:
            sub.reasons.append(
                f"{md_code(job.name)} test data {', '.join(bare)} has inputs but no expected "
                "outputs (output_I.pb): store the outputs the model must produce; without them "
                f"the verification is weaker ({WEAKER_OUTPUT_CHECK})"
            )
    return sub


def inspect_isolated(
    folder: Path,
    *,
    time_limit_s: float,
    memory_limit_mb: int,
    allow_missing_outputs: bool = False,
) -> Submission:
    """:func:`inspect` in a subprocess with time and memory limits: this process never reads a
    submitted file, and whatever the files do to the parsers, the answer is a Submission."""
    from mlrelease.edges import proc
    from mlrelease.models.sandbox import worker_environment

    folder = folder.absolute()
    finished = proc.run(
        proc.python_module(
            "mlrelease.models.zoo",
            str(folder),
            *(["--allow-missing-outputs"] if allow_missing_outputs else []),
        ),
        limits=proc.Limits(
            wall_s=time_limit_s, memory_mb=memory_limit_mb, cpu_s=int(time_limit_s) + 5
        ),
        env=worker_environment(),
        scratch=True,
    )
    for line in finished.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith(INSPECT_MARK):
            try:
                return Submission.from_dict(json.loads(line[len(INSPECT_MARK) :]))
            except (ValueError, KeyError, TypeError):
                break
    sub = Submission(folder)
    why = finished.reason or "it gave no answer"
    sub.reasons.append(
        md_text(
            f"the submission's README, scripts and {SUBMISSION_MANIFEST} could not be inspected: "
            f"{why} (limits: {time_limit_s:g} s, {memory_limit_mb} MB)"
        )
    )
    return sub


def decide(sub: Submission, verdicts: Sequence[ModelVerdict]) -> tuple[bool, list[str]]:
    """ACCEPT (True) or DECLINE, with every reason (Markdown, submitted text escaped)."""
    reasons = list(sub.reasons)
    for v in verdicts:
        for s in v.steps:
            if s.outcome is Outcome.FAIL:
                reasons.append(
                    f"{md_code(v.name)} step {STEPS.get(s.step, s.step)}: {md_text(s.summary)}"
                )
    return not reasons, reasons


def comment(sub: Submission, verdicts: Sequence[ModelVerdict], environment: str) -> str:
    """The pull-request comment, in Markdown. Its first line is the verdict, and no submitted
    text can add another heading: every submitted string is escaped onto one line."""
    accepted, reasons = decide(sub, verdicts)
    lines = [
        f"## Model Zoo submission: {'ACCEPT' if accepted else 'DECLINE'}",
        "",
        f"{md_code(sub.folder.name + '/')} checked with {md_text(environment)}.",
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


def main(argv: list[str] | None = None) -> int:
    """``python -m mlrelease.models.zoo FOLDER``: inspect a submission, print it as JSON."""
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # nothing else printed can be taken for the answer
    args = sys.argv[1:] if argv is None else argv
    sub = inspect(Path(args[0]), allow_missing_outputs="--allow-missing-outputs" in args[1:])
    events.write(INSPECT_MARK + json.dumps(sub.to_dict()) + "\n")
    events.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
