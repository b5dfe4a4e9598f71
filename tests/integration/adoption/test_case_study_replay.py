"""``scripts/case_study_torch_tensorrt.py``'s replay (the release commands run as subprocesses
from the fork point, each step judged from their ``--json``), on the PyTorch-family fixture
shaped like Torch-TensorRT instead of the real repository (which CI does not have; the test
on it is tests/integration/release/test_torch_tensorrt_history.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.projects.tag_model import TENSORRT
from helpers.release import GIT_ENV
from helpers.torch_family import push_torch_family

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_replay_runs_the_commands_and_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import case_study_torch_tensorrt_page as page
    import case_study_torch_tensorrt_replay as replay

    repo = push_torch_family(tmp_path, TENSORRT)
    found = replay.replay(repo.path, "2.13.0")
    steps = [(s["kind"], s["history"].split(" (")[0], s["match"]) for s in found["steps"]]
    assert steps[:2] == [
        ("cut", "branch release/2.13 forks from main at " + steps[0][1].split()[-1], True),
        ("main moves on", "2.14.0a0: chore: open the 2.14 development", True),
    ], steps
    # No tag precedes the fixture's fork point, so init there takes version.txt as the source
    # of the version: each `release rc` refuses 2.13.0a0 and names the way on; the replay goes
    # on with the project's tags made by hand.
    rcs = [s for s in found["steps"] if s["kind"] == "rc tag"]
    assert [s["history"].split()[0] for s in rcs] == [f"v2.13.0-rc{n}" for n in (1, 2, 3)]
    assert all(not s["match"] and "release prepare --version 2.13.0" in s["did"] for s in rcs)
    directs = [s for s in found["steps"] if s["kind"] == "direct commit"]
    assert [s["did"] for s in directs] == ["carries no commit of main"] * 3
    assert found["steps"][-1]["kind"] == "final tag", found["steps"][-1]
    text = "\n".join(page.replay_section([found]))
    assert f"| 2.13.0 | {found['matched']}/{found['counted']} = " in text, text
