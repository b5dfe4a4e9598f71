"""Audits of built artifacts: each finding names the file it is about.

Checks that need no tool are done here (name and version in the file name, pure/native kind,
expected files); the rest is delegated to the tools made for it: ``twine check --strict``
(metadata renders on PyPI), ``check-wheel-contents`` (configured by the project's own
``[tool.check-wheel-contents]``: a module missing from the package tree is W101) and
``abi3audit --strict`` for ``abi3`` wheels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from mlrelease.wheels import artifacts
from mlrelease.wheels.artifacts import Artifact, FileProblem
from mlrelease.wheels.project import Project, run_tool


def _summary(output: str, path: str, name: str, lines: int = 8) -> str:
    """The first lines of a tool's report, on one line, with the file's path shortened."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", output).replace(path, name)  # no colour codes
    kept = [line.strip() for line in text.splitlines() if line.strip()][:lines]
    return " | ".join(kept) or "(no output)"


def check_kind(project: Project, artifact: Artifact) -> list[FileProblem]:
    if artifact.kind != "wheel":
        return []
    if project.wheels.kind == "pure" and not artifact.pure:
        return [
            FileProblem(
                artifact.filename,
                "the project is pure ([tool.mlrelease.wheels] kind) "
                "but the wheel is platform-specific",
            )
        ]
    files = project.wheels.files
    if project.wheels.kind == "native" and artifact.pure and not (files and files.pure):
        return [
            FileProblem(
                artifact.filename,
                "the project is native ([tool.mlrelease.wheels] kind) "
                "but the wheel is py3-none-any: the extension was not built (a pure wheel "
                "beside the native ones is declared by [tool.mlrelease.wheels.files] pure)",
            )
        ]
    return []


def check_contents(project: Project, artifact: Artifact) -> list[FileProblem]:
    wheel = artifact.kind == "wheel"
    patterns = project.wheels.wheel_files if wheel else project.wheels.sdist_files
    key = "wheel-files" if wheel else "sdist-files"
    return [
        FileProblem(artifact.filename, f"no file matches `{p}` ([tool.mlrelease.wheels] {key})")
        for p in artifacts.missing(artifacts.members(artifact), patterns)
    ]


def check_with_tools(project: Project, artifact: Artifact) -> list[FileProblem]:
    path = str(artifact.path.resolve())
    runs = [("twine check --strict", ["twine", "check", "--strict", path])]
    if artifact.kind == "wheel":
        runs.append(("check-wheel-contents", ["check_wheel_contents", path]))
        if artifact.abi3:
            runs.append(("abi3audit --strict", ["abi3audit", "--strict", "--summary", path]))
    findings = []
    for label, args in runs:
        code, output = run_tool(args, cwd=project.root)
        if code != 0:
            summary = _summary(output, path, artifact.filename)
            findings.append(FileProblem(artifact.filename, f"{label} failed: {summary}"))
    return findings


def audit(
    project: Project,
    files: Sequence[Path],
    version: str,
    require: Sequence[str] = ("sdist", "wheel"),
) -> list[FileProblem]:
    """Every check on every file; an empty list means all artifacts are good. ``require``:
    the kinds of artifact that must be among ``files`` (a wheel-only CI job has no sdist)."""
    findings: list[FileProblem] = []
    kinds = set()
    for path in files:
        try:
            artifact = artifacts.identify(path)
        except ValueError as exc:
            findings.append(FileProblem(path.name, str(exc).split(": ", 1)[-1]))
            continue
        kinds.add(artifact.kind)
        findings += artifacts.check_identity(artifact, project.name, version)
        broken = artifacts.check_archive(artifact)
        if broken:  # nothing inside can be read: the other checks would only repeat it
            findings += broken
            continue
        findings += artifacts.check_metadata(artifact, version)
        findings += check_kind(project, artifact)
        findings += check_contents(project, artifact)
        findings += check_with_tools(project, artifact)
    return findings + [
        FileProblem(project.name, f"no {kind} among the artifacts")
        for kind in require
        if kind not in kinds
    ]
