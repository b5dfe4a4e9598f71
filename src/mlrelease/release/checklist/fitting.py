"""The project's own release checklist: the configured steps as written, or the default steps
fitted to the project (its release model, RC model, gates, nox sessions and invoke tasks).
Read by the runner (:mod:`.walker`) and the generated page (:mod:`.doc`) alike."""

from __future__ import annotations

import dataclasses

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.release import publishers
from mlrelease.release.checklist.runners import Runners, ask
from mlrelease.release.checklist.steps import (
    ChecklistStep,
    current_id,
    for_bump_model,
    for_own_publisher,
    for_tag_model,
)
from mlrelease.release.config import ReleaseConfig, version_model

STEP_GATES = {
    "ops-index": "ops_index",
    "wheels": "wheels",
    "docs-freeze": "docs",
    "rc-channel": "downstream",
    "final-wheels": "wheels",
    "conda": "conda",
}
"""Default steps that exist only for a project holding itself to the gate."""

OWN_COMMANDS = {
    "verify": ["mlrelease", "verify"],
    "rc-verify": ["mlrelease", "verify"],
    "final-verify": ["mlrelease", "verify"],
    "final-wheels": ["mlrelease", "wheels", "build"],
    "ops-index": ["mlrelease", "ops", "index", "--check"],
    "wheels": ["mlrelease", "wheels", "build"],
    "docs-freeze": ["mlrelease", "docs", "freeze", "--version", "{version}", "--execute"],
}
"""The mlrelease command behind a default step, for a project without the nox session or
invoke task the default names (or whose nox or invoke cannot list them)."""


def _fitted(
    steps: list[ChecklistStep], runners: Runners, notes: list[str] | None
) -> list[ChecklistStep]:
    """Each step naming a nox session or invoke task the project does not have (as nox and
    invoke list them) runs the mlrelease command behind it; a note says so when a tool could
    not list them."""
    found, replaced = [], []
    for step in steps:
        if step.run and not runners.has(step.run):
            replaced.append(step.id)
            step = dataclasses.replace(step, run=list(OWN_COMMANDS.get(step.id, step.run)))
        found.append(step)
    if replaced and runners.problems and notes is not None:
        notes.append(
            f"checklist: {'; '.join(runners.problems)}. Steps {', '.join(replaced)} run the "
            "mlrelease command instead of the project's session or task."
        )
    return found


def _renamed(steps: list[ChecklistStep], notes: list[str] | None) -> list[ChecklistStep]:
    """Steps configured under a deprecated name get the current one (a note says so)."""
    found = []
    for step in steps:
        new, note = current_id(step.id)
        if note and notes is not None and note not in notes:
            notes.append(note)
        found.append(dataclasses.replace(step, id=new) if note else step)
    return found


def own_publisher(config: Config) -> publishers.Publisher | None:
    """The project's workflow that publishes a release to its index when a GitHub release is
    published, or when the final tag is pushed (sklearn-onnx's upload on a GitHub release); one
    that skips the files the index holds (``skip-existing``, this repository's release.yml)
    publishes nothing twice after the checklist's own publish step."""
    rel = config.table(ReleaseConfig)
    final = config.names.final_tag(Version("1.4.0"))
    for found in publishers.on_disk(config.root):
        to_release = publishers.same_index(found.index, rel.index)
        if (
            (to_release or found.index == publishers.PYPI)
            and not found.skip_existing
            and (found.on_release or found.on_tag(final))
        ):
            return found
    return None


def steps_for(
    config: Config, notes: list[str] | None = None, runners: Runners | None = None
) -> list[ChecklistStep]:
    """The project's own checklist.

    A configured ``checklist`` is used as written. Otherwise the default steps are fitted to
    the project: no branch cut under the trunk model, release candidates as untagged version
    bumps under ``rc-model = "bump"`` (:func:`~.steps.for_bump_model`), titles that
    say what ``version-source = "tag"`` does (:func:`~.steps.for_tag_model`), no
    publish step where the project's own workflow publishes the release
    (:func:`own_publisher`, :func:`~.steps.for_own_publisher`),
    no step for a gate the project does not run (the RC channel is there when the project runs the
    ``downstream`` gate or sets ``rc-index``), and a step naming a nox session or invoke task
    the project does not have runs the mlrelease command behind it instead: nox and invoke are
    asked which the project has (``runners``, when the caller asked them already), and when one
    cannot tell, the mlrelease command runs and a note says why. ``checklist-extra`` steps go
    before the last step.
    """
    rel = config.table(ReleaseConfig)
    table = config.pyproject.get("tool", {}).get("mlrelease", {}).get("release", {})
    if "checklist" in table:
        steps = _renamed(list(rel.checklist), notes)
    else:
        steps = []
        defaults = list(rel.checklist)
        if rel.rc_model == "bump":  # no RC tag: the final is a bump, bound and published
            defaults = for_bump_model(defaults, tagged=rel.rc_tagged)
        if version_model(config).from_tag:  # no release step edits a version file
            defaults = for_tag_model(defaults)
        own = own_publisher(config)
        if own is not None:  # never publish where the project's workflow already does
            defaults = for_own_publisher(defaults, own.said(), own.on_release)
        for step in defaults:
            if step.id == "cut" and rel.model == "trunk":
                continue
            gate = STEP_GATES.get(step.id)
            # The RC channel is for a project that verifies downstream, or names its test index.
            channel = step.id == "rc-channel" and "rc-index" in table
            if gate is not None and gate not in config.gates and not channel:
                continue
            steps.append(step)
        if any(step.run and step.run[0] in ("nox", "invoke") for step in steps):
            steps = _fitted(steps, runners or ask(config.root), notes)
    if rel.checklist_extra:
        at = len(steps) - 1 if steps and not steps[-1].run else len(steps)
        steps[at:at] = _renamed(list(rel.checklist_extra), notes)
    return steps
