"""The project's own publish machinery is read (issue 53): init reads the workflows that
publish (their tag triggers, what each uploads where) and proposes the RC model under which
no RC tag publishes a final version, or says why none can; `release rc` refuses a tag the
project's workflow would publish as final; the checklist never publishes where the
project's workflow already does."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.release import Repo
from helpers.replayed import (
    PYPI_ON_V_TAGS,
    History,
    adopt,
    follow_repair,
    proposal,
    push_skl2onnx,
    push_tf2onnx,
)
from helpers.repo import mlrelease


def _adopted_while_building(tmp_path: Path) -> tuple[Repo, Path]:
    """tensorflow-onnx at 76f54662d, adopted: release.yml builds the distribution and publishes
    nothing yet, so init proposes tag RCs. Returns the repository and its release.yml."""
    repo = push_tf2onnx(tmp_path)
    workflow = repo.path / ".github/workflows/release.yml"
    workflow.write_text(PYPI_ON_V_TAGS.split("  publish:")[0], encoding="utf-8")
    repo.git("commit", "-q", "-am", "ci: build the distribution (no publishing yet)")
    repo.git("push", "-q", "origin", "main")
    adopt(repo)
    assert "rc-model" not in (repo.path / "pyproject.toml").read_text(encoding="utf-8")  # tag
    return repo, workflow


def test_init_reads_the_release_workflow_and_proposes_version_bump_rcs(tmp_path: Path) -> None:
    """tensorflow-onnx's release.yml publishes to PyPI on every ``v*`` tag: an RC tag on a
    commit carrying 1.17.0 would publish 1.17.0 final."""
    tool, said = proposal(push_tf2onnx(tmp_path))
    assert tool["mlrelease"]["release"]["rc-model"] == "bump"
    assert ".github/workflows/release.yml publishes to PyPI" in said, said
    assert "on tags v*" in said, said
    assert "would publish" in said, said


def test_init_says_why_no_rc_model_can_keep_a_final_version_off_the_index(
    tmp_path: Path,
) -> None:
    history = History(tmp_path)
    every_push = PYPI_ON_V_TAGS.replace(
        "    if: github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')\n", ""
    )
    history.commit(
        {
            "VERSION": "1.0.0\n",
            "setup.py": 'from setuptools import setup\nsetup(name="demo", version=open("VERSION")'
            ".read())\n",
            ".github/workflows/release.yml": every_push,
        },
        "init",
    )
    history.git("tag", "v1.0.0")
    _, said = proposal(history.push())
    assert "every push to main" in said and "no RC model" in said, said


def test_rc_refuses_a_tag_the_projects_workflow_publishes_as_final(tmp_path: Path) -> None:
    repo = push_tf2onnx(tmp_path)
    adopt(repo, drop='rc-model = "bump"\nrc-tagged = true\n')
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 1, prepare.stdout + prepare.stderr  # the same rule, first
    assert "publish 1.17.0" in " ".join(prepare.stderr.split()), prepare.stderr
    bump = mlrelease(repo.path, "bump", "--to", "1.17.0", "--execute")  # the final, by hand
    assert bump.returncode == 0, bump.stdout + bump.stderr
    repo.git("commit", "-q", "-am", "Update VERSION_NUMBER")
    rc = mlrelease(repo.path, "release", "rc", "--execute")
    said = " ".join(rc.stderr.split())
    assert rc.returncode == 1, rc.stdout + said
    assert ".github/workflows/release.yml" in said and "publish 1.17.0" in said, said
    assert 'rc-model = "bump"' in said, said
    assert repo.git("tag", "--list", "v1.17.0*") == ""
    workflow = repo.path / ".github/workflows/release.yml"
    workflow.write_text(PYPI_ON_V_TAGS.replace("'v*'", "'v[0-9]+.[0-9]+.[0-9]+'"), encoding="utf-8")
    repo.git("commit", "-q", "-am", "ci: publish final tags only")
    rc = mlrelease(repo.path, "release", "rc")
    assert rc.returncode == 0 and "git tag -a v1.17.0rc1" in rc.stdout, rc.stdout + rc.stderr


def test_a_publish_workflow_added_after_adoption_names_the_tagged_bump_model(
    tmp_path: Path,
) -> None:
    """tensorflow-onnx 1.17.0: adopted under tag RCs while release.yml only built (76f54662d),
    then its publish job (PyPI on every ``v*`` tag) landed during the release (2e4f0716f).
    rc, reading the workflow at RC time, refuses ``v1.17.0rc1`` on a commit carrying 1.17.0
    and carries its repair in ``--json``: the model under which the workflow publishes the
    candidate as the pre-release 1.17.0rc1 (version bumps, each tagged), never an untagged
    bump the workflow would not build. Followed as given, rc sets 1.17.0rc1, then tags
    v1.17.0rc1 on the commit that says it."""
    repo, workflow = _adopted_while_building(tmp_path)
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    workflow.write_text(PYPI_ON_V_TAGS, encoding="utf-8")
    repo.git("commit", "-q", "-am", "ci: publish to PyPI on v* tags")
    repo.git("push", "-q", "origin", "main")
    rc = mlrelease(repo.path, "release", "rc", "--execute", "--push", "--json")
    assert rc.returncode == 1, rc.stdout + rc.stderr
    refused = json.loads(rc.stdout)
    assert "publish 1.17.0" in " ".join(refused["error"].split()), refused
    assert refused["repair"]["set"] == {"rc-model": "bump", "rc-tagged": True}, refused
    assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
    follow_repair(repo, refused["repair"])
    for _ in ("the bump to 1.17.0rc1", "its tag"):
        rc = mlrelease(repo.path, "release", "rc", "--execute", "--push")
        assert rc.returncode == 0, rc.stdout + rc.stderr
    assert repo.origin_git("tag", "--list", "v1.17.0*") == "v1.17.0rc1", rc.stdout
    tagged = repo.origin_git("rev-parse", "refs/tags/v1.17.0rc1^{commit}")
    assert repo.origin_git("show", f"{tagged}:VERSION_NUMBER") == "1.17.0rc1"


def test_prepare_refuses_a_release_whose_rc_tags_the_workflow_would_publish_as_final(
    tmp_path: Path,
) -> None:
    """tensorflow-onnx 1.17.0: adopted under tag RCs while release.yml only built, main set to
    1.17.0 (76f54662d); then the publish job (PyPI on every ``v*`` tag) landed with the first RC
    (2e4f0716f: VERSION_NUMBER 1.17.0rc1). prepare, the release's first step, reads the workflow
    at the release's branch and refuses, before it changes anything, with rc's rule and repair
    (under tag RCs every candidate tag would ship 1.17.0 final); followed, prepare has nothing
    to do and rc makes the candidate the maintainers made: 1.17.0rc1, tagged v1.17.0rc1."""
    repo, workflow = _adopted_while_building(tmp_path)
    args = ("release", "prepare", "--version", "1.17.0", "--execute", "--push", "--json")
    assert mlrelease(repo.path, *args).returncode == 0
    workflow.write_text(PYPI_ON_V_TAGS, encoding="utf-8")
    repo.git("commit", "-q", "-am", "ci: publish to PyPI on v* tags")
    repo.git("push", "-q", "origin", "main")
    before = repo.origin_git("rev-parse", "main")
    prepare = mlrelease(repo.path, *args)
    assert prepare.returncode == 1, prepare.stdout + prepare.stderr
    refused = json.loads(prepare.stdout)
    said = " ".join(refused["error"].split())
    assert said.startswith("prepare: .github/workflows/release.yml publishes to PyPI"), said
    assert "pushing v1.17.0rc1 would publish 1.17.0 as a final release" in said, said
    assert refused["repair"]["set"] == {"rc-model": "bump", "rc-tagged": True}, refused
    assert repo.origin_git("rev-parse", "main") == before  # nothing changed
    assert repo.git("status", "--porcelain") == ""
    follow_repair(repo, refused["repair"])
    prepare = mlrelease(repo.path, *args)
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    rc = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert repo.origin_git("show", "main:VERSION_NUMBER") == "1.17.0rc1"
    rc = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    tagged = repo.origin_git("rev-parse", "refs/tags/v1.17.0rc1^{commit}")
    assert repo.origin_git("show", f"{tagged}:VERSION_NUMBER") == "1.17.0rc1"


def test_prepare_goes_on_where_the_workflow_publishes_no_rc_tag(tmp_path: Path) -> None:
    """The same project with a workflow that publishes final tags only: prepare sets 1.17.0
    under tag RCs, as before."""
    repo = push_tf2onnx(tmp_path)
    workflow = repo.path / ".github/workflows/release.yml"
    workflow.write_text(PYPI_ON_V_TAGS.replace("'v*'", "'v[0-9]+.[0-9]+.[0-9]+'"), encoding="utf-8")
    repo.git("commit", "-q", "-am", "ci: publish final tags only")
    repo.git("push", "-q", "origin", "main")
    adopt(repo)
    assert "rc-model" not in (repo.path / "pyproject.toml").read_text(encoding="utf-8")
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    assert (repo.path / "VERSION_NUMBER").read_text(encoding="utf-8") == "1.17.0\n"


def test_the_checklist_never_publishes_where_the_projects_workflow_does(tmp_path: Path) -> None:
    """sklearn-onnx: the GitHub release (the announce step) runs the upload to PyPI; the
    checklist's own publish step would upload the same version first."""
    repo = push_skl2onnx(tmp_path)
    adopt(repo)
    page = mlrelease(repo.path, "release", "checklist-doc")
    assert page.returncode in (0, 1), page.stderr
    text = " ".join(page.stdout.split())
    assert "mlrelease release publish" not in text, text
    assert "--published-elsewhere" in text, text
    assert ".github/workflows/release.yml" in text and "PyPI" in text, text
