"""The project's own publish machinery is read (issue 53): init reads the workflows that
publish (their tag triggers, what each uploads where) and proposes the RC model under which
no RC tag publishes a final version, or says why none can; `release rc` refuses a tag the
project's workflow would publish as final; the checklist never publishes where the
project's workflow already does."""

from __future__ import annotations

from pathlib import Path

from helpers.replayed import PYPI_ON_V_TAGS, History, adopt, proposal, push_skl2onnx, push_tf2onnx
from helpers.repo import mlrelease


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
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
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
