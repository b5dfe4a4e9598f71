"""Bumped release candidates that the project also tags (issue 53, onnxoptimizer's 0.4.2):
VERSION_NUMBER is set to ``X.Y.ZrcN`` by a commit, and ``vX.Y.ZrcN`` is tagged later on a
commit whose files say ``X.Y.ZrcN``; the release workflow publishes every ``v*`` tag to PyPI,
so an untagged bump is never built. ``release rc`` tags the candidate the files carry while it
has no tag, and bumps to the next ``rcN`` once it has one (or when the files say the final
version)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import adopted
from helpers.adopted import Copied
from helpers.projects import configure
from helpers.release import Repo
from helpers.replayed import follow_repair, proposal, push_tf2onnx
from helpers.repo import mlrelease


def _ok(repo: Repo, *args: str) -> str:
    proc = mlrelease(repo.path, *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def _colleague(repo: Repo, base: Path) -> Repo:
    """A second clone of origin, playing a colleague who pushes to main."""
    path = base / "colleague"
    subprocess.run(["git", "clone", "-q", str(repo.origin), str(path)], check=True)
    colleague = Repo(path, repo.origin)
    colleague.git("config", "user.email", "colleague@example.com")
    colleague.git("config", "user.name", "Colleague")
    return colleague


def _origin_tag(repo: Repo, name: str) -> tuple[str, str]:
    """(the commit origin's tag ``name`` names, its VERSION_NUMBER there)."""
    commit = repo.origin_git("rev-parse", f"refs/tags/{name}^{{commit}}")
    return commit, repo.origin_git("show", f"{commit}:VERSION_NUMBER")


def test_init_proposes_tagged_bumps_where_the_workflow_publishes_tags(tmp_path: Path) -> None:
    tool, said = proposal(push_tf2onnx(tmp_path))
    release = tool["mlrelease"]["release"]
    assert release["rc-model"] == "bump", said
    assert release.get("rc-tagged") is True, said
    assert "each tagged on a commit that says it" in said, said


def test_rc_tags_the_candidate_the_files_carry_then_bumps_the_next(
    copied: Copied, tmp_path: Path
) -> None:
    repo = copied(adopted.tf2onnx)
    page = " ".join(mlrelease(repo.path, "release", "checklist-doc").stdout.split())
    assert "Tag the release candidate X.Y.ZrcN the version files carry" in page, page
    colleague = _colleague(repo, tmp_path)
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    # VERSION_NUMBER says the final version: the first candidate is a bump, untagged yet.
    said = _ok(repo, "release", "rc", "--execute", "--push")
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0rc1", said
    assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
    # A colleague lands a fix on main; rc refuses until this clone has it (origin is ahead).
    colleague.git("pull", "-q", "origin", "main")
    fix = colleague.commit_file("tf2onnx/fix.py", "FIXED = True\n", "Fix the converter")
    colleague.git("push", "-q", "origin", "main")
    behind = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    assert behind.returncode == 1, behind.stdout + behind.stderr
    assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
    repo.git("pull", "-q", "--ff-only", "origin", "main")
    # The files say 1.17.0rc1 and v1.17.0rc1 does not exist: HEAD is tagged, nothing bumped.
    said = _ok(repo, "release", "rc", "--execute", "--push")
    assert _origin_tag(repo, "v1.17.0rc1") == (fix, "1.17.0rc1"), said
    annotation = repo.origin_git("cat-file", "-p", "refs/tags/v1.17.0rc1")
    assert "Made-by: mlrelease release rc" in annotation, annotation
    assert repo.git("rev-parse", "HEAD") == fix
    # rc1 is tagged: the next run bumps to rc2 (untagged), the one after tags it.
    _ok(repo, "release", "rc", "--execute", "--push")
    bumped = repo.git("rev-parse", "HEAD")
    assert repo.origin_git("show", "main:VERSION_NUMBER") == "1.17.0rc2"
    assert repo.origin_git("tag", "--list", "v1.17.0rc2") == ""
    _ok(repo, "release", "rc", "--execute", "--push")
    assert _origin_tag(repo, "v1.17.0rc2") == (bumped, "1.17.0rc2")


def test_rc_refuses_a_candidate_numbered_below_the_newest_tag(
    copied: Copied, tmp_path: Path
) -> None:
    """A colleague tagged rc2 by hand while the files still say rc1: rc says so and changes
    nothing (no bump back to an rc2 that exists, no tag of rc1 after rc2)."""
    repo = copied(adopted.tf2onnx)
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    _ok(repo, "release", "rc", "--execute", "--push")
    head = repo.git("rev-parse", "HEAD")
    colleague = _colleague(repo, tmp_path)
    colleague.git("tag", "-a", "v1.17.0rc2", "-m", "rc2", head)
    colleague.git("push", "-q", "origin", "refs/tags/v1.17.0rc2")
    refused = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 1, refused.stdout + said
    assert "v1.17.0rc2 is tagged already" in said, said
    assert repo.git("rev-parse", "HEAD") == head
    assert repo.origin_git("tag", "--list", "v1.17.0*") == "v1.17.0rc2"


def test_a_hand_set_rc_under_tag_rcs_names_the_model_that_keeps_it(copied: Copied) -> None:
    """tensorflow-onnx and onnxmltools under tag RCs: the maintainers set 1.17.0rc1 by hand;
    after the repair of current_version that rc names, rc names the model that tags the
    version as the files carry it, never a command that sets 1.17.0 back over their edit."""
    repo = copied(adopted.tf2onnx_building)  # release.yml builds
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    repo.commit_file("VERSION_NUMBER", "1.17.0rc1\n", "Update VERSION_NUMBER, use rc")
    stale = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    assert stale.returncode == 1 and "bump --sync --execute" in stale.stderr, stale.stderr
    _ok(repo, "bump", "--sync", "--execute")
    repo.git("commit", "-q", "-am", "chore: current_version follows VERSION_NUMBER")
    repo.git("push", "-q", "origin", "main")
    refused = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 1, refused.stdout + said
    assert 'rc-model = "bump" and rc-tagged = true' in said and "v1.17.0rc1" in said, said
    assert "release prepare" not in said, said
    assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
    configure(repo.path, "tool.mlrelease.release", {"rc-model": "bump", "rc-tagged": True})
    repo.git("commit", "-q", "-am", "chore: version-bump RCs, tagged")
    repo.git("push", "-q", "origin", "main")
    said = _ok(repo, "release", "rc", "--execute", "--push")
    head = repo.git("rev-parse", "HEAD")
    assert _origin_tag(repo, "v1.17.0rc1") == (head, "1.17.0rc1"), said


def test_a_hand_set_rc_refusal_carries_each_repair_in_its_json(copied: Copied) -> None:
    """onnxmltools and tensorflow-onnx under tag RCs, the maintainers' 1.17.0rc1 set by hand:
    each of rc's refusals carries its repair in its ``--json`` output (stdout one object:
    ``error`` and ``repair``), first the command that syncs current_version, then the keys of
    [tool.mlrelease.release] that keep the candidate; followed as given, rc tags v1.17.0rc1."""
    repo = copied(adopted.tf2onnx_building)  # release.yml builds
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    repo.commit_file("VERSION_NUMBER", "1.17.0rc1\n", "Update VERSION_NUMBER, use rc")
    repo.git("push", "-q", "origin", "main")
    repairs = []
    for _ in range(3):
        said = mlrelease(repo.path, "release", "rc", "--execute", "--push", "--json")
        if said.returncode == 0:
            break
        assert said.returncode == 1, said.stdout + said.stderr
        refused = json.loads(said.stdout)
        assert refused["error"].startswith("rc: "), refused
        assert " ".join(refused["error"].split()) in " ".join(said.stderr.split()), said.stderr
        assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
        repairs.append(refused["repair"])
        follow_repair(repo, refused["repair"])
    assert repairs == [
        {
            "kind": "command",
            "command": ["mlrelease", "bump", "--sync", "--execute"],
            "commit": ["pyproject.toml"],
            "then": "re-run",
        },
        {
            "kind": "config",
            "file": "pyproject.toml",
            "table": "tool.mlrelease.release",
            "set": {"rc-model": "bump", "rc-tagged": True},
            "commit": ["pyproject.toml"],
            "then": "re-run",
        },
    ], repairs
    assert said.returncode == 0, said.stdout + said.stderr
    head = repo.git("rev-parse", "HEAD")
    assert _origin_tag(repo, "v1.17.0rc1") == (head, "1.17.0rc1")


def test_a_refusal_without_a_program_repair_leaves_json_stdout_empty(copied: Copied) -> None:
    """A refusal whose repair is a judgement (here: a tag of a newer candidate exists) prints
    no JSON object: stdout stays empty, as before, and the message goes to stderr."""
    repo = copied(adopted.tf2onnx)
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    _ok(repo, "release", "rc", "--execute", "--push")
    repo.git("tag", "-a", "v1.17.0rc2", "-m", "by hand", "HEAD")
    repo.git("push", "-q", "origin", "refs/tags/v1.17.0rc2")
    refused = mlrelease(repo.path, "release", "rc", "--execute", "--push", "--json")
    assert refused.returncode == 1 and refused.stdout == "", refused.stdout + refused.stderr
    assert "v1.17.0rc2 is tagged already" in " ".join(refused.stderr.split()), refused.stderr


def test_a_tag_made_but_not_pushed_is_pushed_by_the_next_run_and_a_hand_made_one_refused(
    copied: Copied,
) -> None:
    """Invariant (l) for bumped candidates: a run without --push (or killed before it) leaves
    its tag, which the next run pushes rather than bumping past it; a tag of that name that
    this clone has but did not make is refused and never pushed."""
    repo = copied(adopted.tf2onnx)
    _ok(repo, "release", "prepare", "--version", "1.17.0", "--execute", "--push")
    _ok(repo, "release", "rc", "--execute", "--push")
    head = repo.git("rev-parse", "HEAD")
    _ok(repo, "release", "rc", "--execute")  # tagged here, not pushed
    assert repo.git("rev-parse", "v1.17.0rc1^{commit}") == head
    assert repo.origin_git("tag", "--list", "v1.17.0*") == ""
    said = _ok(repo, "release", "rc", "--execute", "--push")
    assert _origin_tag(repo, "v1.17.0rc1") == (head, "1.17.0rc1"), said
    assert repo.git("rev-parse", "HEAD") == head  # pushed, not bumped past
    _ok(repo, "release", "rc", "--execute", "--push")  # rc1 is tagged: bump to rc2
    bumped = repo.git("rev-parse", "HEAD")
    repo.git("tag", "-a", "v1.17.0rc2", "-m", "by hand", bumped)
    refused = mlrelease(repo.path, "release", "rc", "--execute", "--push")
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 1 and "v1.17.0rc2" in said, refused.stdout + said
    assert repo.origin_git("tag", "--list", "v1.17.0rc2") == ""
