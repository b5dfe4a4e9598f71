"""A project whose files carry a PEP 440 marker other than ``rc`` or ``.dev`` (PyTorch's
``X.Y.0a0`` in version.txt, a beta, a post-release), adopted with `mlrelease init --execute`:
the `versions` gate reads the whole version, and `bump` writes it back."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import tomllib
from helpers.pep440 import pep440_versions
from helpers.repo import git, mlrelease
from hypothesis import given, settings
from packaging.version import Version

from mlrelease import version_files
from mlrelease.init import detect, propose
from mlrelease.init.snapshot import Snapshot


def adopted(tmp_path: Path, version: str) -> Path:
    root = tmp_path / "project"
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n\n'
        '[tool.setuptools.dynamic]\nversion = {file = "version.txt"}\n',
        "version.txt": f"{version}\n",
        "pkg/__init__.py": "",
        ".gitignore": "build/\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat: first")
    proc = mlrelease(root, "init", "--execute")
    assert proc.returncode == 0, proc.stderr
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    return root


@pytest.mark.parametrize(
    ("version", "bumped"),
    [("2.14.0a0", "2.14.0b1"), ("1.3.0b2", "1.3.0rc1"), ("1.2.3.post1", "1.2.3.post2")],
)
def test_the_versions_gate_and_bump_read_and_write_every_marker(
    tmp_path: Path, version: str, bumped: str
) -> None:
    root = adopted(tmp_path, version)
    proc = mlrelease(root, "verify", "--only", "versions")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = mlrelease(root, "bump", "--to", bumped)  # a dry run: shows the edit
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = " ".join((proc.stdout + proc.stderr).split())
    assert f"{version} -> {bumped}" in shown or (version in shown and bumped in shown), shown
    assert (root / "version.txt").read_text() == f"{version}\n"  # nothing written


# --- every PEP 440 marker through init's configuration and the `versions` gate's scan ---

_pep440 = pep440_versions(999)


@settings(max_examples=40, deadline=None)
@given(_pep440)
def test_every_pep440_version_is_found_by_the_versions_scan_of_inits_configuration(
    text: str,
) -> None:
    """init proposes [tool.bumpversion] for a version.txt carrying ``text``; bump-my-version's
    own machinery (its configuration loader, search and serialize) then finds exactly
    ``text`` there, and ``packaging`` reads the same version back."""
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n\n'
        '[tool.setuptools.dynamic]\nversion = {file = "version.txt"}\n',
        "version.txt": f"{text}\n",
    }
    found = detect.detect(Snapshot(files=sorted(files), texts=files, branches=["main"]))
    proposal = propose.propose(found, tomllib.loads(files["pyproject.toml"])).text
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "version.txt").write_text(files["version.txt"], encoding="utf-8")
        pyproject = files["pyproject.toml"] + "\n" + proposal
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
        occurrences, problems = version_files.scan(root, tomllib.loads(pyproject), "pyproject.toml")
    assert problems == []
    assert occurrences == [version_files.Occurrence("version.txt", 1, text)]
    assert Version(occurrences[0].value) == Version(text)
