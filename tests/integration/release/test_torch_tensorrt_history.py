"""The release commands on Torch-TensorRT's real history (a fresh clone of pytorch/TensorRT,
where this machine has one): 2.13's fork point adopted with ``mlrelease init``, the branch cut
with ``release cut``, the project's first commits landed, ``release cherry-picks --json`` and
``release rc --execute --push --json`` run as subprocesses, as
``scripts/case_study_torch_tensorrt.py`` does for the whole release.

The mirror is ``$MLRELEASE_TENSORRT_MIRROR``, else the one the ``fetch`` tool leaves under
``/work/.mirror``; without one the test skips, naming how to get it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
KNOWN = Path("/work/.mirror/pytorch+TensorRT/repo")


def _is_clone(path: Path) -> bool:
    """Whether ``path`` is a clone of pytorch/TensorRT with its release/2.13 branch."""
    args = ["git", "-C", str(path), "rev-parse", "-q", "--verify", "release/2.13^{commit}"]
    return path.is_dir() and subprocess.run(args, capture_output=True, check=False).returncode == 0


def _mirror() -> Path | None:
    """The mirror named by the environment (checked by the test: a wrong one fails), else the
    known one when it is there."""
    named = os.environ.get("MLRELEASE_TENSORRT_MIRROR")
    if named:
        return Path(named)
    return KNOWN if _is_clone(KNOWN) else None


MIRROR = _mirror()


@pytest.mark.slow
@pytest.mark.skipif(
    MIRROR is None,
    reason="no Torch-TensorRT mirror on this machine: fetch github:pytorch/TensorRT (or set "
    "MLRELEASE_TENSORRT_MIRROR to a clone with its release/2.13 branch and tags)",
)
def test_the_commands_on_torch_tensorrt_2_13(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MIRROR is not None and _is_clone(MIRROR), (
        f"MLRELEASE_TENSORRT_MIRROR={MIRROR}: not a clone of pytorch/TensorRT with release/2.13"
    )
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    import case_study_torch_tensorrt_replay as replay

    found = replay.replay(MIRROR, "2.13.0", rcs=2)
    steps = found["steps"]
    kinds = [s["kind"] for s in steps]
    assert kinds[:3] == ["cut", "main moves on", "release-only edit"], kinds
    assert steps[0]["match"], steps[0]
    assert steps[1]["did"].startswith("main at 2.14.0a0"), steps[1]
    rcs = [s for s in steps if s["kind"] == "rc tag"]
    assert [s["history"].split()[0] for s in rcs] == ["v2.13.0-rc1", "v2.13.0-rc2"]
    assert all(s["match"] for s in rcs), rcs
    # #4391 brought main's torchvision nightly into the branch: rc refuses, naming it; the
    # fix it asks for made, rc2 is tagged.
    refused = [s for s in steps if s["kind"] == "rc refused"]
    assert [s["history"].split()[0] for s in refused] == ["v2.13.0-rc2"], refused
    assert "torchvision>=0.29.0.dev" in refused[0]["did"], refused
    assert "pin fixed" in rcs[1]["did"], rcs
    picks = {s["history"].split(" (")[0]: s for s in steps if s["kind"] == "pick"}
    # The project's hand picks, without trailers, named by their pull requests.
    for subject in (
        "[cherry-pick][release/2.13] TRT 11 MD Ops",
        "[cherry-pick][release/2.13] MD-TRT changes for release 2.13",
        "cherrypick: PRs #4371, #4387, #4209, and two commits on main branch",
    ):
        assert picks[subject]["match"], picks[subject]
