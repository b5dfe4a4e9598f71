"""The project's own release checklist: the configured steps as written, or the default steps
fitted to the project (its release model, RC model, gates, nox sessions and invoke tasks).
Read by the runner (:mod:`.checklist`) and the generated page (:mod:`.checklist_doc`) alike."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from mlrelease.config import Config
from mlrelease.release.checklist_steps import ChecklistStep, current_id, for_bump_model
from mlrelease.release.config import ReleaseConfig

STEP_GATES = {
    "ops-index": "ops_index",
    "wheels": "wheels",
    "docs-freeze": "docs",
    "rc-channel": "downstream",
    "final-wheels": "wheels",
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
invoke task the default names."""


def _has_runner(root: Path, words: list[str]) -> bool:
    """Whether the project has the nox session or invoke task that the argv ``words`` runs."""
    if len(words) >= 3 and words[:2] == ["nox", "-s"]:
        path, name = root / "noxfile.py", words[2]
        pattern = rf"^def {re.escape(name)}\("
    elif len(words) >= 2 and words[0] == "invoke":
        path, name = root / "tasks.py", words[1].rsplit(".", 1)[-1]
        pattern = rf"^def {re.escape(name.replace('-', '_'))}\(|name=[\"']{re.escape(name)}[\"']"
    else:
        return True
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    return re.search(pattern, text, re.M) is not None


def _renamed(steps: list[ChecklistStep], notes: list[str] | None) -> list[ChecklistStep]:
    """Steps configured under a deprecated name get the current one (a note says so)."""
    found = []
    for step in steps:
        new, note = current_id(step.id)
        if note and notes is not None and note not in notes:
            notes.append(note)
        found.append(dataclasses.replace(step, id=new) if note else step)
    return found


def steps_for(config: Config, notes: list[str] | None = None) -> list[ChecklistStep]:
    """The project's own checklist.

    A configured ``checklist`` is used as written. Otherwise the default steps are fitted to
    the project: no branch cut under the trunk model, release candidates as untagged version
    bumps under ``rc-model = "bump"`` (:func:`~.checklist_steps.for_bump_model`),
    no step for a gate the project does not run (the RC channel is there when the project runs the
    ``downstream`` gate or sets ``rc-index``), and a step naming a nox session or invoke task
    the project does not have runs the mlrelease command behind it instead. ``checklist-extra``
    steps go before the last step.
    """
    rel = config.table(ReleaseConfig)
    table = config.pyproject.get("tool", {}).get("mlrelease", {}).get("release", {})
    if "checklist" in table:
        steps = _renamed(list(rel.checklist), notes)
    else:
        steps = []
        defaults = list(rel.checklist)
        if rel.rc_model == "bump":  # no RC tag: the final is a bump, bound and published
            defaults = for_bump_model(defaults)
        for step in defaults:
            if step.id == "cut" and rel.model == "trunk":
                continue
            gate = STEP_GATES.get(step.id)
            # The RC channel is for a project that verifies downstream, or names its test index.
            channel = step.id == "rc-channel" and "rc-index" in table
            if gate is not None and gate not in config.gates and not channel:
                continue
            if step.run and not _has_runner(config.root, step.run):
                step = dataclasses.replace(step, run=list(OWN_COMMANDS.get(step.id, step.run)))
            steps.append(step)
    if rel.checklist_extra:
        at = len(steps) - 1 if steps and not steps[-1].run else len(steps)
        steps[at:at] = _renamed(list(rel.checklist_extra), notes)
    return steps
