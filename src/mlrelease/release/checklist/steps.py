"""The release checklist's steps: what each is, the default list modelled on the seeds, and
the old step names still accepted (pure: no git, no files)."""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

STEP_ALIASES = {"freeze": "cut", "bump": "prepare", "rc-tag": "rc"}
"""Deprecated step names -> the verb each step is named after now. Accepted, with a message
saying the new name, in ``checklist``/``checklist-extra``, ``--confirm``/``--redo`` and
ledgers, for one release."""


_PLAIN = re.compile(r"[\w@%+=:,./{}-]+")


def command_line(argv: Sequence[str]) -> str:
    """``argv`` as a person types it: quoted only where a shell needs it (``{series}`` is
    shown as is: it stands for a value)."""
    return " ".join(a if _PLAIN.fullmatch(a) else shlex.quote(a) for a in argv)


def current_id(step_id: str) -> tuple[str, str | None]:
    """(the step's name now, a message when ``step_id`` is a deprecated one)."""
    new = STEP_ALIASES.get(step_id)
    if new is None:
        return step_id, None
    return new, (
        f"checklist: step {step_id!r} is now called {new!r} (after the command it runs); the "
        f"old name is accepted until the next release. Use {new!r}."
    )


@dataclass(frozen=True)
class ChecklistStep:
    """One step of the release checklist (and one row of docs/release/checklist.md)."""

    id: str
    """Short name, unique, the verb of the command it runs (``cut`` runs ``release cut``);
    the ledger and ``--confirm`` use it."""
    title: str
    """What the step achieves, one line."""
    task: str = ""
    """A manual step's instructions: what a person does by hand. A step with a ``run`` has
    none: the command shown for it is its ``run`` (one argv, never two that could disagree)."""
    run: list[str] = field(default_factory=list)
    """The command the checklist runner executes, and shows; empty for a manual step."""
    evidence: list[str] = field(default_factory=list)
    """Files the step must leave behind (recorded in the ledger; missing ones fail the step)."""
    mutating: bool = True
    """Changes git state or publishes something: once done, never run again."""
    details: str = ""
    """Why the step exists, or what to check by hand."""

    @property
    def shown(self) -> str:
        """The command as a person reads it (derived from ``run``), or the manual text."""
        return command_line(self.run) if self.run else self.task


def _step(
    id: str,
    title: str,
    run: list[str],
    evidence: list[str] | None = None,
    *,
    mutating: bool = True,
    details: str = "",
    task: str = "",
) -> ChecklistStep:
    return ChecklistStep(id, title, task, run, evidence or [], mutating, details)


# Modelled on the seeds: Torch-TensorRT (freeze, test, ops index, version bump PR with changelog,
# tag), PyTorch (cut release/X.Y, RC tags vX.Y.Z-rcN, promote RC to stable), ONNX 1.7 (verify
# the RC before the final release, publish, announce).
DEFAULT_CHECKLIST: list[ChecklistStep] = [
    _step(
        "cut",
        "Freeze main: cut the release branch; main moves to the next development version",
        ["mlrelease", "release", "cut", "--version", "{series}", "--execute", "--push"],
        details="Release-only edits are committed on the branch; fixes reach it as cherry-picks.",
    ),
    _step(
        "verify",
        "Check every exit criterion on the release branch",
        ["nox", "-s", "release_verify"],
        ["build/release-verify/report.json"],
        mutating=False,
    ),
    _step(
        "prepare",
        "Bump the version and write its changelog section (one commit on the branch)",
        ["mlrelease", "release", "prepare", "--version", "{version}", "--execute", "--push"],
        details="The seeds' version-bump and changelog steps: one commit, so no tag ever sees "
        "one without the other.",
    ),
    _step(
        "ops-index",
        "Regenerate the supported-operators index; it must equal the committed one",
        ["nox", "-s", "ops_index", "--", "--check"],
        ["docs/indices/supported_ops.json"],
        mutating=False,
    ),
    _step(
        "rc",
        "Tag the next release candidate vX.Y.Z-rcN on the branch head",
        ["mlrelease", "release", "rc", "--execute", "--push"],
    ),
    _step(
        "wheels",
        "Build, audit and smoke-test the sdist and wheels of the RC",
        ["nox", "-s", "wheels"],
        ["dist/SHA256SUMS"],
        mutating=False,
        details="In CI the RC tag's release workflow builds every platform and stores the "
        "files with their SHA256SUMS on the RC's pre-release.",
    ),
    _step(
        "bind",
        "Bind the RC's artifacts to it: their manifest on origin, their bytes in the store",
        ["mlrelease", "release", "bind", "--rc", "{rc_tag}", "--execute", "--push"],
        details="Run where the files were built, at the RC's commit: they must be this "
        "release's files, built from the RC's commit (the sdist is compared with its tree). "
        "Publishing reads the store filled here, never dist/.",
    ),
    _step(
        "rc-channel",
        "Publish the RC's bound files to the test index, for downstream verification",
        ["mlrelease", "release", "publish", "--rc", "{rc_tag}", "--channel", "rc", "--execute"],
        details="The RC channel ([tool.mlrelease.release] rc-index): consumers test the exact "
        "bytes that will ship.",
    ),
    _step(
        "rc-verify",
        "Verify the release candidate: the report promotion reads",
        ["nox", "-s", "release_verify"],
        ["build/release-verify/report.json"],
        mutating=False,
    ),
    _step(
        "publish",
        "Publish the RC's bound files to the index (no rebuild)",
        ["mlrelease", "release", "publish", "--rc", "{rc_tag}", "--execute"],
        details="From the store, behind the gatekeeper: only the bound files, byte for byte, "
        "only while the index holds no other file of this version, only with the RC's "
        "passing report.",
    ),
    _step(
        "promote",
        "Promote the verified RC: tag vX.Y.Z on exactly the RC's commit",
        [
            "mlrelease",
            "release",
            "promote",
            "--rc",
            "{rc_tag}",
            "--repository-url",
            "{index}",
            "--execute",
            "--push",
        ],
        details="Tags only when the index holds exactly the bound files and the RC's report "
        "passes for its commit, tree and configuration.",
    ),
    _step(
        "conda",
        "Write the conda-forge feedstock change of the release: a branch of the feedstock",
        ["mlrelease", "conda", "--version", "{version}", "--execute", "--push"],
        details="After publish and promote: the recipe's source (the sdist on the index, or the "
        "tag's archive) exists. Version, hash and requirements come from the bound release; "
        "open the feedstock's pull request from the pushed branch and decide what the command "
        "could not (it says what).",
    ),
    _step(
        "docs-freeze",
        "Freeze this version's docs from its tag and list it in the switcher",
        ["invoke", "docs.freeze", "--version", "{version}", "--execute"],
        details="After promotion: docs.freeze builds from the final tag vX.Y.Z.",
    ),
    _step(
        "announce",
        "Publish the release notes (the changelog section) and announce the release",
        [],
        task="by hand: GitHub release from the changelog section, then the project's channels",
        details="Confirm with `mlrelease release checklist --version X.Y.Z --execute --confirm "
        "announce`.",
    ),
]

# PyTorch's patch-release criteria, and its cherry-pick tracker rules.
DEFAULT_PATCH_CRITERIA = [
    "The regression breaks core functionality (stable or beta features), including the "
    "functionality that first-party downstream libraries rely on.",
    "There is no viable workaround: users cannot simply avoid or overcome the regression.",
    "Documentation-only problems do not qualify; they are fixed on main and in the next release.",
]
DEFAULT_CHERRY_PICK_RULES = [
    "Cherry-picks fix regressions, test or build breakage and release blockers; they are not "
    "a way to add features after the freeze.",
    "Every fix lands on main first, with the trailer `{trailer}: {series}` in its commit message.",
    "The release manager tracks them with `mlrelease release cherry-picks --branch {branch}` "
    "(Markdown for the tracker issue) and picks the missing ones with `--execute` "
    "(`git cherry-pick -x`).",
    "A fix counts as picked when a commit with the same patch (`git cherry`) is on the branch, "
    "even if it was rebased or picked by hand.",
    "A new release candidate is tagged after the picks; only the newest RC can be promoted.",
]


def _bump_model_steps() -> dict[str, ChecklistStep]:
    by_id = {step.id: step for step in DEFAULT_CHECKLIST}
    return {
        "rc": dataclasses.replace(
            by_id["rc"],
            title="Commit the next release-candidate version X.Y.ZrcN on the branch head (no tag)",
        ),
        "promote": dataclasses.replace(
            by_id["promote"],
            title="Set the final version X.Y.Z on the release branch and tag it",
            run=["mlrelease", "release", "promote", "--execute", "--push"],
            details='Under rc-model = "bump" the final release is a version bump like its '
            "candidates, tagged on the branch.",
        ),
        "publish": dataclasses.replace(
            by_id["publish"],
            title="Publish the final release's bound files to the index",
            run=["mlrelease", "release", "publish", "--version", "{version}", "--execute"],
            details='Under rc-model = "bump" no RC artifact exists to promote: the files are '
            "built from the final tag, bound to it and verified there, then published from "
            "the store like a candidate's.",
        ),
        "final-wheels": _step(
            "final-wheels",
            "Build, audit and smoke-test the final release's files from its tag",
            ["nox", "-s", "wheels"],
            ["dist/SHA256SUMS"],
            mutating=False,
        ),
        "bind": _step(
            "bind",
            "Bind the final release's files to its tag: their manifest on origin, bytes stored",
            ["mlrelease", "release", "bind", "--rc", "{final_tag}", "--execute", "--push"],
        ),
        "final-verify": _step(
            "final-verify",
            "Verify the final release's commit: the report publishing reads",
            ["nox", "-s", "release_verify"],
            ["build/release-verify/report.json"],
            mutating=False,
        ),
    }


def for_bump_model(steps: list[ChecklistStep], tagged: bool = False) -> list[ChecklistStep]:
    """The default steps under ``rc-model = "bump"``: no RC to bind or to put on the RC channel;
    after the final bump and tag (promote), the final release's files are built, bound to the
    final tag and verified there, then published. ``tagged`` (``rc-tagged``): each candidate's
    bump is also tagged."""
    found = []
    ids = {s.id for s in steps}
    for step in steps:
        if step.id in ("bind", "rc-channel", "publish"):
            continue
        if step.id == "rc" and tagged:
            found.append(TAGGED_BUMP_RC)
            continue
        found.append(BUMP_MODEL_STEPS.get(step.id, step))
        if step.id == "promote":
            after = ["final-wheels" if "wheels" in ids else "", "bind"]
            after += ["final-verify" if "rc-verify" in ids else "", "publish"]
            found += [BUMP_MODEL_STEPS[name] for name in after if name]
    return found


BUMP_MODEL_STEPS = _bump_model_steps()
"""Default steps as they read under ``rc-model = "bump"`` (release candidates are untagged
version bumps, ONNX's practice)."""


TAGGED_BUMP_RC = dataclasses.replace(
    BUMP_MODEL_STEPS["rc"],
    title="Tag the release candidate X.Y.ZrcN the version files carry (vX.Y.ZrcN on the branch "
    "head); where it is tagged already, or the files carry X.Y.Z, commit the next rcN first and "
    "run the step again to tag it",
)
"""The ``rc`` step under ``rc-model = "bump"`` with ``rc-tagged`` (onnxoptimizer's practice)."""


TAG_MODEL_STEPS = {
    "cut": "Freeze main: cut the release branch; main moves to the next development version in "
    "the marker style it carries (X.Y+1.0a0 after X.Y.0a0); the branch keeps X.Y.0a0",
    "prepare": "Write the release's changelog section (one commit on the branch): the version "
    "files keep their development marker, the tag gives the version",
    "rc": "Tag the next release candidate vX.Y.Z-rcN on the branch head: the build takes X.Y.Z "
    "from the tag, no file carries it",
}
"""Default steps' titles under ``version-source = "tag"`` (the PyTorch family): no release
step edits a version file."""


def for_tag_model(steps: list[ChecklistStep]) -> list[ChecklistStep]:
    """The default steps as they read under ``version-source = "tag"``."""
    return [
        dataclasses.replace(s, title=TAG_MODEL_STEPS[s.id]) if s.id in TAG_MODEL_STEPS else s
        for s in steps
    ]


def for_own_publisher(
    steps: list[ChecklistStep], said: str, on_release: bool
) -> list[ChecklistStep]:
    """The default steps when the project's own workflow publishes the release (``said``: what
    it does, and when; ``on_release``: a published GitHub release runs it, so the announce
    step publishes): the checklist publishes nothing itself, and promote reads no index
    before its tag (the workflow publishes after it, or after the GitHub release)."""
    found = []
    for step in steps:
        if step.id == "publish":
            continue
        if step.id == "promote":
            run = [a for a in step.run if a not in ("--repository-url", "{index}")]
            if "--rc" in run:  # the tag model's promote reads an index unless told not to
                run.insert(run.index("--execute"), "--published-elsewhere")
            details = (
                f"{said}: the checklist publishes nothing itself, and promote reads no index "
                "before its tag (the project's workflow publishes the release)."
            )
            step = dataclasses.replace(step, run=run, details=details)
        elif step.id == "announce" and on_release:
            step = dataclasses.replace(
                step,
                details=f"{step.details} Publishing the GitHub "
                f"release publishes the files: {said}.",
            )
        found.append(step)
    return found
