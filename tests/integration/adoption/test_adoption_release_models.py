"""Release models and the project's own checklist, on an adopted repository."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.adopted import Copied
from helpers.repo import git, mlrelease


def adopted(base: Path, *, branch: str | None = None) -> Path:
    """A pure project released as v1.4.0 on main, adopted with `mlrelease init --execute`
    (``base/work``, its origin ``base/origin.git``; the tests take a copy of it,
    ``copied(adopted)``)."""
    root = base / "work"
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n\n'
        '[tool.setuptools.dynamic]\nversion = {attr = "pkg.__version__"}\n',
        "src/pkg/__init__.py": '__version__ = "1.4.0"\n',
        "CHANGELOG.md": "# Changelog\n\n<!-- insertion marker -->\n## 1.4.0\n\n- first\n",
        ".gitignore": "build/\n__pycache__/\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(base, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Release 1.4.0")
    git(root, "tag", "v1.4.0")
    if branch:
        git(root, "branch", branch)
    git(root, "remote", "add", "origin", str(base / "origin.git"))
    git(root, "push", "-q", "origin", "--all")
    git(root, "push", "-q", "origin", "--tags")
    assert mlrelease(root, "init", "--execute").returncode == 0
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    return root


def test_trunk_checklist_names_only_what_the_project_has(copied: Copied) -> None:
    root = copied(adopted).path
    proc = mlrelease(root, "release", "checklist", "--version", "1.4.1")
    assert proc.returncode == 0, proc.stderr
    shown = proc.stderr
    assert "cut:" not in shown  # trunk: no release branch to cut
    assert "ops-index" not in shown and "docs-freeze" not in shown  # gates it does not run
    assert "mlrelease verify" in shown and "mlrelease wheels build" in shown
    assert "nox " not in shown and "invoke " not in shown
    assert mlrelease(root, "release", "checklist-doc", "--execute").returncode == 0
    page = (root / "docs" / "release" / "checklist.md").read_text()
    assert "nox -s" not in page and "invoke " not in page and "Trunk model" in page
    status = mlrelease(root, "release", "status", "--json")
    assert status.returncode == 0, status.stderr
    assert sorted(json.loads(status.stdout)["next"]) == ["prepare", "promote", "rc"]  # no cut


def test_branch_model_keeps_the_cut(tmp_path: Path) -> None:
    # A branch of the newest release's series (1.4.0); an older one alone, beside releases
    # tagged on main, is history and proposes trunk (onnxmltools' r1.7 beside 1.14.0).
    root = adopted(tmp_path / "project", branch="release/1.4")
    data = (root / "pyproject.toml").read_text()
    assert 'model = "branch"' in data
    proc = mlrelease(root, "release", "checklist", "--version", "1.5.0")
    assert proc.returncode == 0 and "cut:" in proc.stderr


def test_extra_steps_and_unknown_placeholders(copied: Copied) -> None:
    root = copied(adopted).path
    pyproject = root / "pyproject.toml"
    extra = (
        '\n[[tool.mlrelease.release.checklist-extra]]\nid = "conda"\n'
        'title = "Update the conda-forge feedstock"\ntask = "by hand"\nrun = []\n'
    )
    pyproject.write_text(pyproject.read_text() + extra)
    git(root, "commit", "-q", "-am", "chore: a conda step")
    proc = mlrelease(root, "release", "checklist", "--version", "1.4.1")
    assert proc.returncode == 0 and "conda: Update the conda-forge feedstock" in proc.stderr
    assert proc.stderr.index("conda:") < proc.stderr.index("announce:")
    bad = '\n[[tool.mlrelease.release.checklist-extra]]\nid = "x"\ntitle = "x"\n'
    pyproject.write_text(pyproject.read_text() + bad + 'run = ["echo", "{rc_tagg}"]\n')
    git(root, "commit", "-q", "-am", "chore: a typo")
    for command in (["release", "checklist", "--version", "1.4.1"], ["verify"]):
        proc = mlrelease(root, *command)
        message = " ".join(proc.stderr.split())
        assert proc.returncode == 2, message
        assert "tool.mlrelease.release.checklist-extra[1].run" in message
        assert "{rc_tagg}" in message


def test_trunk_prepare_and_rc_happen_on_main(copied: Copied) -> None:
    root = copied(adopted).path
    git(root, "commit", "-q", "--allow-empty", "-m", "fix: a bug")
    proc = mlrelease(root, "release", "prepare", "--version", "1.4.1", "--execute")
    assert proc.returncode == 0, proc.stderr
    assert git(root, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert '__version__ = "1.4.1"' in (root / "src" / "pkg" / "__init__.py").read_text()
    proc = mlrelease(root, "release", "rc", "--execute")
    assert proc.returncode == 0, proc.stderr
    assert "v1.4.1rc1" in git(root, "tag", "--points-at", "HEAD").split()
    verify = mlrelease(root, "verify")
    assert verify.returncode == 0, verify.stderr


def test_every_derived_step_runs_a_real_command(copied: Copied) -> None:
    from mlrelease.cli import build_parser
    from mlrelease.registry import load_config
    from mlrelease.release.checklist.fitting import steps_for

    root = copied(adopted).path
    values = {
        "version": "1.4.1", "series": "1.4", "rc_tag": "v1.4.1rc1", "artifacts": "dist",
        "index": "https://upload.pypi.org/legacy/",
    }  # fmt: skip
    parser = build_parser()
    steps = steps_for(load_config(root))
    assert [s.id for s in steps] == [
        "verify",
        "prepare",
        "rc",
        "wheels",
        "bind",
        "rc-verify",
        "publish",
        "promote",
        "announce",
    ]
    for step in steps:
        if step.run:
            assert step.run[0] == "mlrelease", step
            parser.parse_args([a.format(**values) for a in step.run[1:]])  # exits on a bad one
