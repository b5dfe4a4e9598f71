"""Issue 44: the docs state the release's version. The docs gate reads the version the built
Sphinx site declares (``release`` as rendered) and fails when it differs from the project's;
``mlrelease init`` lists a ``conf.py`` that hard-codes one. Real git project, real Sphinx."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import text, verify
from helpers.projects import single_gate, write
from helpers.repo import commit_all, git

from mlrelease.cli import main

CONF = 'project = "demo"\nrelease = "{release}"\nexclude_patterns = ["_build"]\n'


def _project(tmp_path: Path, release: str) -> Path:
    root = tmp_path / "demo"
    write(root, single_gate.docs(conf=CONF.format(release=release)))
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "docs: demo")
    return root


def test_a_site_that_declares_another_version_fails(tmp_path: Path) -> None:
    root = _project(tmp_path, "0.0.9")
    failed = verify(root, "docs")
    assert failed["status"] == "fail", failed
    assert "declares version '0.0.9'" in text(failed) and "the project is 0.1.0" in text(failed)


def test_a_site_that_declares_the_projects_version_passes(tmp_path: Path) -> None:
    root = _project(tmp_path, "0.1.0")
    assert verify(root, "docs")["status"] == "pass"


def test_init_lists_a_conf_py_that_hard_codes_a_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "adopter"
    write(
        root,
        {
            "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1.0"\n',
            "docs/conf.py": CONF.format(release="0.0.9"),
            "docs/index.rst": "Demo\n====\n",
        },
    )
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "docs: demo")
    capsys.readouterr()
    assert main(["--root", str(root), "init"]) == 0
    said = capsys.readouterr()
    out = " ".join((said.out + said.err).split())
    assert "conf.py:2 hard-codes release = '0.0.9'" in out, out
