"""Who was right where the replay of a Torch-TensorRT release (``case_study_torch_tensorrt_replay``)
differs from what the project did: the review of each kind of difference, and the helpers that
read the commands' refusals and plans."""

from __future__ import annotations

import re
from typing import Any

REVIEWED = {
    "cpp/include/torch_tensorrt/macros.h": (
        True,
        "`TORCH_TENSORRT_MINOR_VERSION` moves to the next minor: the C++ API's version, split "
        "into MAJOR/MINOR/PATCH macros, which init proposes part by part: left unmoved here",
    ),
    "setup.py": (
        False,
        "torch's pin (`torch>=X.Y.0.dev,<X.Y+1.0`), which the project moves with its own minor "
        "version by policy: another package's version, rightly not bumped",
    ),
    "README.md": (False, "the PyTorch and TensorRT badges and the tested versions: not ours"),
    "pyproject.toml": (False, "torch's pin in [build-system], as in setup.py"),
    "py/requirements.txt": (False, "torch's pin, as in setup.py"),
    "tests/py/requirements.txt": (False, "torchvision's pin: another package's version"),
    "=2.12.0.dev": (False, "an empty file committed by mistake (a shell redirect)"),
}
"""Files the project's main move changed and the cut did not, reviewed by reading their diffs:
(carries Torch-TensorRT's own version, what the change is). A file not listed is shown as
unreviewed and counts as a miss."""


_DEV_PIN = re.compile(r"(?P<file>[^\s:;]+):(?P<line>\d+) \((?P<where>[^)]*)\): (?P<req>.+?): pin ")


def dev_pins(message: str) -> list[tuple[str, str]]:
    """(file, requirement as written) of each development pin a refusal of ``release rc``
    names (``FILE:LINE (WHERE): REQUIREMENT: pin NAME on ...``); none for another refusal."""
    if "pins development (nightly) builds" not in message:
        return []
    return [(m["file"], m["req"]) for m in _DEV_PIN.finditer(message)]


def tags_of(data: dict[str, Any] | None, index: int) -> list[str]:
    """Argument ``index`` of each ``git tag`` action of a command's ``--json`` plan."""
    actions = (data or {}).get("actions", [])
    return [a["git"][index] for a in actions if a["git"] and a["git"][1] == "tag"]


_TEMP = re.compile(r"/tmp/[\w./-]+")


def refusal(message: str) -> str:
    """A command's refusal as the page shows it: its first sentence or two, without the build
    log it may quote, temporary paths masked (the page is the same on every run)."""
    short = message.split(": python -m build", 1)[0]
    short = short if len(short) <= 400 else short[:400] + " ..."
    return _TEMP.sub("(temporary)", short)


def own(subject: str) -> str | None:
    """The pull request number a subject ends with (``(#4203)``)."""
    found = re.search(r"\(#(\d+)\)\s*$", subject)
    return found[1] if found else None


def judge_rc(message: str, tags: list[str]) -> str:
    """Which was right, where ``release rc`` did not tag what the project tagged."""
    lower = message.lower()
    if "nightly" in lower or ".dev" in lower or "development" in lower:
        return (
            "mlrelease right, by the project's own rule: its release-cut commit turns each "
            "`>=X.dev` bound into `>=X` on the branch (nightly index -> test index), and the "
            "branch requires a development build again (named in the refusal), so the "
            "candidate's test environment could take a nightly. Strict where the line only "
            "feeds test environments; the replay makes the fix it asks for and runs `rc` again"
        )
    if "release-only edit" in lower:
        return "mlrelease right: a release-only edit was missing from the branch"
    if tags:
        return "mlrelease numbered the candidate differently: review"
    return "unjudged: review the refusal"
