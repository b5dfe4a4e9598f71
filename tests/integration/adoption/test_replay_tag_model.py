"""The replay of a release under ``version-source = "tag"`` (what
``scripts/case_study_torch_tensorrt.py`` runs on Torch-TensorRT), on the PyTorch-family
fixture: a cut, three RC tags without bumps, the final tag on rc3's commit."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.release import GIT_ENV
from helpers.torch_family import push_torch_family
from packaging.version import Version

from mlrelease.cli import main
from mlrelease.init import replay_tag
from mlrelease.registry import load_config
from mlrelease.release.config import version_model


def test_replay_of_the_fixture_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = push_torch_family(tmp_path)
    assert main(["--root", str(repo.path), "init", "--execute"]) == 0
    config = load_config(repo.path)
    history = replay_tag.read_history(
        repo.path, Version("2.13.0"), config.names, main="main", version_file="version.txt"
    )
    steps = replay_tag.replay(history, config.names, version_model(config))
    assert [s.step for s in steps] == [
        "cut", "main moves on",
        "direct commit", "rc tag", "direct commit", "rc tag", "direct commit", "rc tag",
        "final tag",
    ]  # fmt: skip
    assert steps[0].planned.startswith("`release cut --version 2.13`: branch release/2.13")
    assert "commits 2.14.0a0 on main" in steps[1].planned
    rc3 = repo.git("rev-list", "-n", "1", "v2.13.0-rc3")
    assert f"tag v2.13.0-rc3 on HEAD {rc3[:9]}, no version bump" in steps[7].planned
    assert f"tag v2.13.0 on {rc3[:9]}" in steps[8].planned
    assert replay_tag.match_rate(steps) == (6, 6)  # direct commits are listed, not counted


def test_a_final_tag_after_the_last_rc_is_a_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Torch-TensorRT's v2.13.0 sits on a commit after rc13 that no RC built."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = push_torch_family(tmp_path)
    repo.git("switch", "-q", "release/2.13")
    repo.git("tag", "-d", "v2.13.0")
    (repo.path / "NOTES.md").write_text("notes\n", encoding="utf-8")
    repo.git("add", "NOTES.md")
    repo.git("commit", "-q", "-m", "docs: a late note")
    repo.git("tag", "-a", "v2.13.0", "-m", "2.13.0")
    repo.git("switch", "-q", "main")
    assert main(["--root", str(repo.path), "init", "--execute"]) == 0
    config = load_config(repo.path)
    history = replay_tag.read_history(
        repo.path, Version("2.13.0"), config.names, main="main", version_file="version.txt"
    )
    steps = replay_tag.replay(history, config.names, version_model(config))
    final = steps[-1]
    assert (final.step, final.match) == ("final tag", False)
    assert "after v2.13.0-rc3 that no RC built (docs: a late note)" in final.why
    assert replay_tag.match_rate(steps) == (5, 6)  # the late commit itself: a direct commit


def test_the_case_study_script_replays_and_renders_the_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scripts/case_study_torch_tensorrt.py``'s replay and its table, on the fixture instead
    of the Torch-TensorRT repository (which CI does not have)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "scripts"))
    import case_study_torch_tensorrt as study
    import case_study_torch_tensorrt_page as study_page

    repo = push_torch_family(tmp_path)
    assert main(["--root", str(repo.path), "init", "--execute"]) == 0
    replayed = study.replays(repo.path, load_config(repo.path), ["2.13.0"])
    assert [(r["release"], r["matched"], r["counted"], r["direct"]) for r in replayed] == [
        ("2.13.0", 6, 6, 3)
    ]
    text = "\n".join(study_page.replay_section(replayed))
    assert "| 2.13.0 | 6/6 = 100% | 3 | 6/9 = 67% |" in text
    assert "Overall: **6/6 = 100%** of the release steps (3 direct commits listed)." in text
