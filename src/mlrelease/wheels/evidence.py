"""The provenance of a wheel's build: what vouches for members this machine cannot rebuild
(pure but for reading the statements).

A statement is an in-toto Statement (``*.intoto.json`` beside the wheels, as the wheel
workflow writes it with ``mlrelease wheels provenance``, :func:`statement`) with an SLSA
provenance predicate; mlrelease reads:

- ``subject[].name`` and ``subject[].digest.sha256``: the wheel, by name and SHA-256;
- ``predicate.buildDefinition.resolvedDependencies[]``: the commit it built from
  (``digest.gitCommit``) and the source digest of the tree it built
  (``{"name": "source", "digest": {"sha256": ...}}``, as ``mlrelease wheels source-digest``
  prints it);
- ``predicate.runDetails.metadata.invocationId``: the workflow run.

A member is accepted on this evidence only when the statement names the wheel's exact bytes,
the RC's commit and the digest of the tree the reference checked out; the signature over the
statement is GitHub's to verify (``gh attestation verify``), which cannot be reached from here.
After bind, the manifest records each member so accepted, and publish reads that record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIX = ".intoto.json"
BUILD_TYPE = "https://actions.github.io/buildtypes/workflow/v1"
"""GitHub's build type for a workflow run (what ``actions/attest-build-provenance`` names)."""


@dataclass(frozen=True)
class Provenance:
    """What one statement says of one wheel."""

    wheel: str
    sha256: str
    commit: str
    source: str
    run: str
    statement: str
    """The statement's file name."""


def read(folder: Path) -> tuple[dict[str, Provenance], list[str]]:
    """The statements of ``folder`` by wheel name, and why any cannot be read."""
    found: dict[str, Provenance] = {}
    problems = []
    for path in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for item in parse(data, path.name):
                found[item.wheel] = item
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(
                f"{path.name}: not an in-toto statement mlrelease reads ({exc}); see "
                "docs/release/invariants.md, (c)"
            )
    return found, problems


def parse(data: Any, name: str) -> list[Provenance]:
    """Each subject of an in-toto statement, with what the predicate says of its build."""
    predicate = data["predicate"]
    deps = predicate["buildDefinition"].get("resolvedDependencies", [])
    commits = [d["digest"]["gitCommit"] for d in deps if "gitCommit" in d.get("digest", {})]
    sources = [d["digest"]["sha256"] for d in deps if d.get("name") == "source"]
    run = str(predicate.get("runDetails", {}).get("metadata", {}).get("invocationId", ""))
    return [
        Provenance(
            wheel=str(subject["name"]),
            sha256=str(subject["digest"]["sha256"]),
            commit=str(commits[0]) if len(commits) == 1 else "",
            source=str(sources[0]) if len(sources) == 1 else "",
            run=run,
            statement=name,
        )
        for subject in data["subject"]
    ]


def statement(wheel: str, sha256: str, commit: str, source: str, run: str) -> dict[str, Any]:
    """The in-toto statement that the workflow run ``run`` built ``wheel`` (its bytes'
    SHA-256) from ``commit``, whose tree has the source digest ``source``: what :func:`parse`
    reads back, and GitHub's provenance of a workflow run names (the repository's URI from the
    run's URL)."""
    repository, found, _ = run.partition("/actions/runs/")
    commit_dependency: dict[str, Any] = {"digest": {"gitCommit": commit}}
    if found:
        commit_dependency = {"uri": f"git+{repository}", **commit_dependency}
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": wheel, "digest": {"sha256": sha256}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": BUILD_TYPE,
                "resolvedDependencies": [
                    commit_dependency,
                    {"name": "source", "digest": {"sha256": source.removeprefix("sha256:")}},
                ],
            },
            "runDetails": {"metadata": {"invocationId": run}},
        },
    }


@dataclass(frozen=True)
class Evidence:
    """What vouches for the members a comparison cannot make: the statements offered with the
    files (bind), or what the bound manifest recorded of them (publish)."""

    commit: str = ""
    source: str = ""
    """The source digest of the commit's tree (``sha256:...``)."""
    statements: Mapping[str, Provenance] = field(default_factory=dict)
    recorded: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(file, member) -> the detail the bound manifest records of a member accepted on its
    provenance."""
    sha256: Mapping[str, str] = field(default_factory=dict)
    """file -> SHA-256 of the file offered."""

    def provenance(self, file: str, member: str) -> tuple[str, str]:
        """(the evidence, shown), or ("", why there is none) for ``member`` of ``file``."""
        if (file, member) in self.recorded:
            return self.recorded[(file, member)], ""
        found = self.statements.get(file)
        if found is None:
            return "", f"no provenance of the build that made it ({file}{SUFFIX})"
        want = self.source.removeprefix("sha256:")
        problem = ""
        if found.sha256 != self.sha256.get(file):
            problem = f"{found.statement} names the SHA-256 {found.sha256[:16]}..., not the file's"
        elif found.commit != self.commit:
            problem = (
                f"{found.statement} says the wheel was built from "
                f"{found.commit[:12] or 'no single commit'}, not the RC's commit {self.commit[:12]}"
            )
        elif found.source.removeprefix("sha256:") != want:
            problem = (
                f"{found.statement} names the source digest {found.source[:16] or '(none)'}..., "
                f"not that of {self.commit[:12]}'s tree ({want[:16]}...)"
            )
        elif not found.run:
            problem = f"{found.statement} names no workflow run (invocationId)"
        if problem:
            return "", problem
        return f"built by {found.run} from {self.commit[:12]}, source {want[:16]}...", ""
