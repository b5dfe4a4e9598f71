"""Release-only edits understood, on histories shaped like torchvision's and torchaudio's
(issue 53): proposed as patterns with the PyTorch series the release pairs with, found in
whichever commit of the branch made them, never a bare word, never for a file main no longer
has; an edit whose file the branch deleted stops nothing, and no advice reverts a
maintainer's newer edit."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from helpers import adopted
from helpers.adopted import Copied
from helpers.release import Repo
from helpers.replayed import BUILD_LINUX, History, adopt, pinned, proposal, push_audio, push_vision
from helpers.repo import mlrelease

WHEELS = ".github/workflows/build-wheels-linux.yml"
LINT = ".github/workflows/lint.yml"
CUT_018 = ("release", "cut", "--version", "0.18", "--upstream", "2.3", "--execute")


def _edits(tool: dict[str, Any]) -> list[dict[str, str]]:
    edits: list[dict[str, str]] = tool["mlrelease"]["release"].get("edits", [])
    return edits


def test_the_pytorch_series_of_an_edit_is_its_parameter_asked_at_cut(tmp_path: Path) -> None:
    """release/0.17 pinned pytorch/test-infra at release/2.2, the PyTorch series it paired
    with: init proposes ``release/{upstream_series}``, and the 0.18 cut asks for its own."""
    repo = push_vision(tmp_path)
    tool, said = proposal(repo)
    replaces = [e["replace"] for e in _edits(tool)]
    assert replaces and all("2.2" not in r for r in replaces), replaces
    assert any(r.endswith("@release/{upstream_series}") for r in replaces), replaces
    assert "test-infra-ref: release/{upstream_series}" in replaces, replaces
    assert tool["mlrelease"]["release"]["upstream"] == "torch"
    assert "release/0.17 paired with torch 2.2" in said, said
    adopt(repo)
    asked = mlrelease(repo.path, "release", "cut", "--version", "0.18")
    message = " ".join(asked.stderr.split())
    assert asked.returncode != 0 and "--upstream X.Y" in message, message
    assert "Traceback" not in message
    cut = mlrelease(repo.path, *CUT_018)
    assert cut.returncode == 0, cut.stdout + cut.stderr
    on_branch = repo.git("show", f"release/0.18:{WHEELS}")
    assert on_branch == pinned(BUILD_LINUX, "2.3").strip(), on_branch


def test_no_bare_word_is_proposed_and_unrelated_text_is_kept(tmp_path: Path) -> None:
    """``test-infra-ref: main`` -> ``release/2.2`` is one changed word; proposed alone,
    ``search = "main"`` rewrote the ``branches: [main]`` that triggers the workflow too."""
    repo = push_vision(tmp_path)
    tool, _ = proposal(repo)
    searches = [e["search"] for e in _edits(tool)]
    assert all(not re.fullmatch(r"[\w.-]+", s) for s in searches), searches
    adopt(repo)
    cut = mlrelease(repo.path, *CUT_018)
    assert cut.returncode == 0, cut.stdout + cut.stderr
    assert "      - main\n" in repo.git("show", f"release/0.18:{WHEELS}") + "\n"
    assert "branches: [main]" in repo.git("show", f"release/0.18:{LINT}")


def test_an_edit_of_a_file_main_deleted_is_not_proposed_and_said(tmp_path: Path) -> None:
    """release/0.17 pinned .github/workflows/docs.yml, which main deleted since: proposed,
    its edit stopped `release cut` (exit 2) and every release command after it."""
    repo = push_vision(tmp_path)
    tool, said = proposal(repo)
    assert ".github/workflows/docs.yml" not in {e["file"] for e in _edits(tool)}
    assert "docs.yml" in said and "main no longer has it" in said, said
    adopt(repo)
    cut = mlrelease(repo.path, "release", "cut", "--version", "0.18", "--upstream", "2.3")
    assert cut.returncode == 0, cut.stdout + cut.stderr


def test_edits_made_by_a_later_commit_of_the_branch_are_found(tmp_path: Path) -> None:
    """torchaudio's release/2.2 made its release-only edits in its second commit."""
    repo = push_audio(tmp_path)
    tool, said = proposal(repo)
    files = {e["file"] for e in _edits(tool)}
    assert files == {WHEELS, LINT}, _edits(tool)
    assert "[RELEASE-ONLY CHANGES] Pin test-infra to release/2.2" in said, said


CUDA = """\
name: CUDA
on:
  push:
    branches: [main]
jobs:
  test-cuda:
    uses: pytorch/test-infra/.github/workflows/linux_job.yml@main
    with:
      test-infra-ref: main
      script: python -m pytest test/cuda
"""
"""A workflow main added after the newest release branch was cut (executorch's cuda.yml, new
since release/1.0): the same test-infra job at ``@main`` as the workflows the branch pinned."""


def test_an_edit_is_made_in_the_workflows_main_added_since_the_branch(tmp_path: Path) -> None:
    """executorch 1.1: release/1.0 pinned test-infra's jobs in the workflows it had; main
    added cuda.yml (and four more) since, with the same ``linux_job_v2.yml@main`` lines, and
    the maintainers pinned those at release/2.10 too. init proposes each pin of the upstream's
    series in every workflow main added since that holds its text, and the cut pins cuda.yml
    as the others."""
    repo = push_vision(tmp_path)
    repo.commit_file(".github/workflows/cuda.yml", CUDA, "Add CUDA CI (#8250)")
    repo.git("push", "-q", "origin", "main")
    tool, said = proposal(repo)
    assert ".github/workflows/cuda.yml" in {e["file"] for e in _edits(tool)}, _edits(tool)
    assert "upstream pins also made in .github/workflows/cuda.yml" in said, said
    adopt(repo)
    cut = mlrelease(repo.path, *CUT_018)
    assert cut.returncode == 0, cut.stdout + cut.stderr
    on_branch = repo.git("show", "release/0.18:.github/workflows/cuda.yml")
    assert on_branch == pinned(CUDA, "2.3").strip(), on_branch
    assert "branches: [main]" in on_branch


def test_init_says_when_the_newest_branch_made_no_release_only_edit(tmp_path: Path) -> None:
    history = History(tmp_path)
    history.commit({"version.txt": "2.2.0a0\n", "setup.py": _SETUP, LINT: "on: push\n"}, "init")
    history.git("switch", "-q", "-c", "release/2.2")
    history.commit({"demo/fix.py": "FIX = 1\n"}, "Fix a crash")
    history.git("switch", "-q", "main")
    history.commit({"version.txt": "2.3.0a0\n"}, "Bump version to 2.3.0a0")
    tool, said = proposal(history.push())
    assert _edits(tool) == []
    assert "release-only edits none found on release/2.2" in said.replace(":", ""), said


_SETUP = 'from setuptools import setup\nsetup(name="demo", version=open("version.txt").read())\n'


def _maintainers_cut(repo: Repo) -> None:
    """The maintainers cut release/0.18 by hand, pairing with PyTorch 2.3: their release commit
    pins the reusable workflows at release/2.3 (but leaves ``test-infra-ref: main``) and
    deletes the lint workflow, whose edit the configuration declares."""
    repo.git("switch", "-q", "-c", "release/0.18")
    path = repo.path / WHEELS
    path.write_text(BUILD_LINUX.replace(".yml@main", ".yml@release/2.3"), encoding="utf-8")
    repo.git("rm", "-q", LINT)
    repo.git("commit", "-q", "-am", "[RELEASE-ONLY CHANGES] Branch cut 0.18")
    repo.git("push", "-q", "origin", "release/0.18")


def test_an_edit_whose_file_the_branch_deleted_stops_nothing(copied: Copied) -> None:
    """The maintainers' release commit deleted a file an edit names: the edit belongs to the
    series that had the file; status and rc judge the branch by the edits it can have."""
    repo = copied(adopted.vision)
    _maintainers_cut(repo)
    status = mlrelease(repo.path, "release", "status", "--version", "0.18.0", "--json")
    assert status.returncode == 0, status.stdout + status.stderr
    edits = json.loads(status.stdout)["release_edits"]
    assert edits["error"] is None, edits
    assert [m.split(":")[0] for m in edits["missing"]] == [WHEELS], edits
    rc = mlrelease(repo.path, "release", "rc")
    said = " ".join(rc.stderr.split())
    assert rc.returncode == 1 and "lint.yml" not in said, said


def test_no_advice_reverts_a_maintainers_newer_edit(copied: Copied) -> None:
    """The branch lacks one edit: rc's advice re-runs the cut with the PyTorch series the
    branch already says (2.3), never the one the configuration was adopted from (2.2)."""
    repo = copied(adopted.vision)
    _maintainers_cut(repo)
    rc = mlrelease(repo.path, "release", "rc")
    said = " ".join(rc.stderr.split())
    assert rc.returncode != 0 and "test-infra-ref: main" in said, said
    advice = re.search(r"`(mlrelease release cut [^`]*)`", said)
    assert advice is not None, said
    assert "--upstream 2.3" in advice[1], advice[1]
    args = shlex.split(advice[1])[1:]
    done = mlrelease(repo.path, *[a for a in args if a != "--push"])
    assert done.returncode == 0, done.stdout + done.stderr
    on_branch = repo.git("show", f"release/0.18:{WHEELS}")
    assert on_branch == pinned(BUILD_LINUX, "2.3").strip(), on_branch
    assert "release/2.2" not in repo.git("grep", "-h", "release/", "release/0.18", "--", ".github")
    again = mlrelease(repo.path, "release", "rc")
    assert again.returncode == 0, again.stdout + again.stderr
