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
from collections.abc import Callable, Sequence
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
from mlrelease.models.readme import check_readme
from mlrelease.models.safefile import Root
from mlrelease.models.verdicts import (
    STEPS,
    ModelVerdict,
    StepStatus,
    findings,
    limits_line,
    markdown_table,
)

SUBMISSION_MANIFEST = "model.toml"
MAX_SCRIPT_BYTES = safefile.MAX_SCRIPT_BYTES
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


def check_script(root: Root, name: str, what: str) -> str | None:
    """A declared pre/post-processing script exists inside the folder and is valid Python.

    The problem is Markdown (submitted text escaped). The script is compiled to check its syntax,
    never executed; a pathological one (deep nesting, huge expressions) is a reason, not a crash.
    """
    try:
        source = root.read_bytes(name, f"{what} script", MAX_SCRIPT_BYTES)
    except safefile.UnsafeFile as exc:
        return md_text(exc)
    if name.endswith(".py"):
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


def _names(folder: Path, root: Root | None) -> list[str]:
    """The names in a folder: through the submission's open folder, never following a link (a
    folder that cannot be listed so has none; step 5 says why)."""
    if root is None:
        return [p.name for p in folder.iterdir()] if folder.is_dir() else []
    try:
        return [e.name for e in root.entries(folder, "test data folder")]
    except safefile.UnsafeFile:
        return []


def missing_outputs(job: ModelJob, root: Root | None = None) -> list[str]:
    """The test data sets of ``job`` with inputs but no expected outputs (by folder name).

    Without expected outputs step 5 can only compare onnxruntime with the onnx reference
    evaluator: a model whose exported graph is wrong passes when both run it alike.
    """
    found = []
    for folder in map(Path, job.test_data):
        names = _names(folder, root)
        has = {kind for kind in ("input_", "output_") if any(n.startswith(kind) for n in names)}
        if has == {"input_"}:
            found.append(folder.name)
    if job.inputs and not job.expected_outputs:
        found.append("the declared inputs")
    return found


def load_manifest(root: Root) -> tuple[manifest_mod.ModelManifest | None, str | None]:
    """The submission's model.toml (None when absent), or the reason it is refused."""
    path = root.path / SUBMISSION_MANIFEST
    if not root.exists(SUBMISSION_MANIFEST):
        return None, None
    try:
        text = root.read_text(SUBMISSION_MANIFEST, SUBMISSION_MANIFEST, safefile.MAX_MANIFEST_BYTES)
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


def inspect(folder: Root | Path, *, allow_missing_outputs: bool = False) -> Submission:
    """Check the artifacts of a submission and build one job per model (confined to it).

    ``folder``: the submission, opened once (a path is opened here). A test data set with
    inputs but no expected outputs declines the submission unless ``allow_missing_outputs``
    (``[tool.mlrelease.models] allow-missing-expected-outputs``), which records the weaker
    check instead. Reads submitted files through the open folder (:mod:`.safefile`); run it in
    a subprocess (:func:`inspect_isolated`) where the folder is untrusted.
    """
    if isinstance(folder, Root):
        return _inspect(folder, allow_missing_outputs)
    try:
        root = Root.open(folder)
    except safefile.UnsafeFile as exc:
        sub = Submission(folder.absolute())
        sub.reasons.append(md_text(exc))
        return sub
    with root:
        return _inspect(root, allow_missing_outputs)


def discover_in(root: Root) -> Callable[[Path], list[Path]]:
    """Model Zoo style ``test_data_set_*`` folders next to a model, listed through the open
    folder. A link of that name is listed too, so step 5 refuses it by name."""

    def found(model: Path) -> list[Path]:
        try:
            entries = root.entries(model.parent)
        except safefile.UnsafeFile:
            return []
        kinds = ("folder", "link")
        return [
            model.parent / e.name
            for e in entries
            if e.name.startswith("test_data_set_") and e.kind in kinds
        ]

    return found


def _inspect(root: Root, allow_missing_outputs: bool) -> Submission:
    folder = root.path
    sub = Submission(folder)
    reasons, found = check_readme(root)
    sub.reasons.extend(reasons)
    sub.checked.extend(found)
    manifest, problem = load_manifest(root)
    if problem:
        sub.reasons.append(problem)
    if manifest is None:
        models = sorted(e.name for e in root.entries() if e.name.endswith(".onnx"))
        manifest = manifest_mod.ModelManifest(models=[ModelEntry(path=name) for name in models])
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
                problem = check_script(root, name, what)
                if problem:
                    sub.reasons.append(problem)
                else:
                    sub.checked.append(f"{what} {md_code(name)}")
    try:
        sub.jobs = manifest_mod.jobs(
            manifest,
            folder,
            submission=folder,
            source=str(folder / SUBMISSION_MANIFEST),
            discover=discover_in(root),
        )
    except ConfigError as exc:
        sub.reasons.append(md_text(exc))
        return sub
    for job in sub.jobs:
        _check_test_data(sub, job, root, allow_missing_outputs)
    return sub


def _check_test_data(sub: Submission, job: ModelJob, root: Root, allow_missing: bool) -> None:
    if not job.test_data and not job.expected_outputs:
        sub.reasons.append(
            f"{md_code(job.name)} has no test data set (test_data_set_N/input_I.pb and "
            "output_I.pb next to the model)"
        )
    else:
        sub.checked.append(f"{md_code(job.name)} test data: {len(job.test_data) or 1} set(s)")
    bare = [md_text(b) for b in missing_outputs(job, root)]
    if bare and allow_missing:
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


def inspect_isolated(
    root: Root,
    *,
    time_limit_s: float,
    memory_limit_mb: int,
    allow_missing_outputs: bool = False,
) -> Submission:
    """:func:`inspect` in a subprocess with time and memory limits: this process never reads a
    submitted file, and whatever the files do to the parsers, the answer is a Submission. The
    subprocess reads through ``root``'s descriptor (inherited), in a private working folder."""
    from mlrelease.edges import proc
    from mlrelease.models.sandbox import worker_environment

    folder = root.path
    fds = () if root.fd is None else (root.fd,)
    finished = proc.run(
        proc.python_module(
            "mlrelease.models.zoo",
            str(folder),
            *(["--root-fd", str(root.fd)] if root.fd is not None else []),
            *(["--allow-missing-outputs"] if allow_missing_outputs else []),
        ),
        limits=proc.Limits(
            wall_s=time_limit_s, memory_mb=memory_limit_mb, cpu_s=int(time_limit_s) + 5
        ),
        env=worker_environment(),
        scratch=True,
        pass_fds=fds,
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
            if s.outcome is StepStatus.FAIL:
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
        if limits_line(verdicts):
            lines += [limits_line(verdicts), ""]
        details = findings(verdicts, (StepStatus.FAIL, StepStatus.WARN))
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
    """``python -m mlrelease.models.zoo FOLDER [--root-fd N] [--allow-missing-outputs]``:
    inspect a submission (through the inherited descriptor N of FOLDER), print it as JSON."""
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # nothing else printed can be taken for the answer
    args = sys.argv[1:] if argv is None else argv
    folder, allow = Path(args[0]), "--allow-missing-outputs" in args[1:]
    if "--root-fd" in args:
        fd = int(args[args.index("--root-fd") + 1])
        sub = inspect(Root.inherit(fd, folder), allow_missing_outputs=allow)
    else:
        sub = inspect(folder, allow_missing_outputs=allow)
    events.write(INSPECT_MARK + json.dumps(sub.to_dict()) + "\n")
    events.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
