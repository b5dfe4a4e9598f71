"""ONNX's release practice on a small onnx-shaped repository built here: rel-X.Y.Z branches,
release candidates as version bumps without tags, the version in VERSION_NUMBER."""

from __future__ import annotations

from pathlib import Path

from helpers.adopted import Copied
from helpers.projects import bump_model, write
from helpers.repo import git, mlrelease
from packaging.version import Version

from mlrelease.init import replay
from mlrelease.registry import load_config
from mlrelease.release.config import ReleaseConfig


def commit_version(root: Path, version: str, subject: str) -> None:
    (root / "VERSION_NUMBER").write_text(version + "\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", subject)


def onnx_shaped(base: Path) -> Path:
    """1.3.0 released as onnx does it (rel-1.3.0, rc1 and rc2 bumps, a cherry-pick, v1.3.0);
    main carries 1.4.0; everything pushed to a bare origin (``base/work``,
    ``base/origin.git``)."""
    root = base / "work"
    write(root, bump_model.onnx_files("1.3.0"))
    git(base, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Start 1.3.0 (#1)")
    git(root, "branch", "rel-1.3.0")
    commit_version(root, "1.4.0", "Bump version number to 1.4.0 (#2)")
    (root / "fix.txt").write_text("fixed\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "Fix the bug (#3)")
    (root / "docs.txt").write_text("new\n", encoding="utf-8")
    git(root, "add", "docs.txt")
    git(root, "commit", "-q", "-m", "Fix the docs (#7)")
    git(root, "switch", "-q", "rel-1.3.0")
    commit_version(root, "1.3.0rc1", "Set version number to 1.3.0rc1 (#4)")
    git(root, "cherry-pick", "main~1")  # the same patch: found by patch identity
    # Adapted by hand (another patch): found by the pull request its title names.
    (root / "docs.txt").write_text("new, adapted\n", encoding="utf-8")
    git(root, "add", "docs.txt")
    git(root, "commit", "-q", "-m", "Cherry-pick: Fix the docs (#7) to rel-1.3.0 (#8)")
    (root / "ci.txt").write_text("branch only\n", encoding="utf-8")
    git(root, "add", "ci.txt")
    git(root, "commit", "-q", "-m", "Fix the branch's CI (#9)")
    commit_version(root, "1.3.0rc2", "Bump version number to 1.3.0rc2 (#5)")
    commit_version(root, "1.3.0", "Update version number to 1.3.0 (#6)")
    git(root, "tag", "v1.3.0")
    git(root, "switch", "-q", "main")
    git(root, "remote", "add", "origin", str(base / "origin.git"))
    git(root, "push", "-q", "origin", "--all")
    git(root, "push", "-q", "origin", "--tags")
    return root


def test_init_describes_the_practice_and_touches_only_pyproject(tmp_path: Path) -> None:
    root = onnx_shaped(tmp_path / "project")
    proc = mlrelease(root, "init", "--execute")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert git(root, "status", "--porcelain").strip() == "M pyproject.toml"
    release = load_config(root).table(ReleaseConfig)
    assert release.branch == "rel-{major}.{minor}.{patch}"
    assert release.tag == "v{major}.{minor}.{patch}"
    assert release.rc_model == "bump"
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert 'filename = "VERSION_NUMBER"' in text and 'current_version = "1.4.0"' in text
    shown = " ".join((proc.stdout + proc.stderr).split())
    assert "2 commit(s) set a release-candidate version" in shown
    assert "VERSION_NUMBER file (read by scikit-build-core" in shown


def adopted(base: Path) -> Path:
    """:func:`onnx_shaped`, adopted by ``init --execute``, committed and pushed (a template:
    the tests take a copy, ``copied(adopted)``)."""
    root = onnx_shaped(base)
    assert mlrelease(root, "init", "--execute").returncode == 0
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    git(root, "push", "-q", "origin", "main")
    return root


def test_cut_rc_bumps_and_no_rc_tags(copied: Copied) -> None:
    root = copied(adopted).path
    cut = mlrelease(root, "release", "cut", "--version", "1.4", "--execute")
    assert cut.returncode == 0, cut.stderr + cut.stdout
    assert git(root, "show", "rel-1.4.0:VERSION_NUMBER").strip() == "1.4.0"
    # onnx's main carries the plain next version, not a .dev one.
    assert git(root, "show", "main:VERSION_NUMBER").strip() == "1.5.0"
    git(root, "switch", "-q", "rel-1.4.0")
    dry = mlrelease(root, "release", "rc")
    assert dry.returncode == 0, dry.stderr + dry.stdout
    assert "Set version number to 1.4.0rc1" in dry.stdout + dry.stderr
    assert git(root, "show", "HEAD:VERSION_NUMBER").strip() == "1.4.0"  # dry run: no change
    tags_before = git(root, "tag").split()
    for number in (1, 2):
        done = mlrelease(root, "release", "rc", "--execute")
        assert done.returncode == 0, done.stderr + done.stdout
        assert git(root, "log", "-1", "--format=%s").strip() == (
            f"Set version number to 1.4.0rc{number}"
        )
        assert git(root, "show", "HEAD:VERSION_NUMBER").strip() == f"1.4.0rc{number}"
        assert git(root, "status", "--porcelain").strip() == ""
    assert git(root, "tag").split() == tags_before  # release candidates are never tagged


def test_promote_sets_the_final_version_and_tags_it(copied: Copied) -> None:
    root = copied(adopted).path
    assert mlrelease(root, "release", "cut", "--version", "1.4", "--execute").returncode == 0
    git(root, "switch", "-q", "rel-1.4.0")
    early = mlrelease(root, "release", "promote", "--version", "1.4.0")
    assert early.returncode != 0 and "no release candidate of 1.4.0" in early.stderr
    assert mlrelease(root, "release", "rc", "--execute").returncode == 0
    dry = mlrelease(root, "release", "promote", "--version", "1.4.0")
    assert dry.returncode == 0, dry.stderr + dry.stdout
    assert "v1.4.0" in dry.stdout + dry.stderr and "v1.4.0" not in git(root, "tag")
    done = mlrelease(root, "release", "promote", "--version", "1.4.0", "--execute")
    assert done.returncode == 0, done.stderr + done.stdout
    assert git(root, "show", "HEAD:VERSION_NUMBER").strip() == "1.4.0"
    assert git(root, "log", "-1", "--format=%s").strip() == "Set version number to 1.4.0"
    assert git(root, "rev-parse", "v1.4.0^{commit}") == git(root, "rev-parse", "HEAD")
    again = mlrelease(root, "release", "promote", "--version", "1.4.0", "--execute")
    assert again.returncode == 0 and "already v1.4.0" in again.stdout + again.stderr
    wrong = mlrelease(root, "release", "promote", "--rc", "v1.4.0rc1")
    assert wrong.returncode != 0 and "omit --rc" in wrong.stderr


def test_rc_on_a_released_branch_is_refused_with_the_way_on(copied: Copied) -> None:
    root = copied(adopted).path
    git(root, "switch", "-q", "rel-1.3.0")
    git(root, "cherry-pick", "main")  # the adoption, carried to the released branch
    path = root / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('current_version = "1.4.0"', 'current_version = "1.3.0"'))
    git(root, "commit", "-q", "-am", "chore: the branch's version")
    proc = mlrelease(root, "release", "rc")
    assert proc.returncode != 0
    assert "1.3.0 is released" in proc.stderr and "1.3.1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_replay_of_the_fixture_release_matches_every_step(copied: Copied) -> None:
    root = copied(adopted).path
    config = load_config(root)
    names = config.names
    history = replay.read_history(
        root, Version("1.3.0"), names, main="main", version_file="VERSION_NUMBER"
    )
    steps = replay.replay(history, names)
    assert [s.step for s in steps] == [
        "cut",
        "main moves on",
        "rc bump",
        "cherry-pick",
        "cherry-pick",
        "cherry-pick",
        "rc bump",
        "final bump",
        "final tag",
    ]
    assert [s.match for s in steps] == [True] * 5 + [False] + [True] * 3
    assert replay.match_rate(steps) == (8, 9)
    assert "patch identity" in steps[3].actual
    assert "by title: #7" in steps[4].actual
    assert "not found on main" in steps[5].actual and "on main first" in steps[5].why
    assert steps[2].planned == "`release rc`: Set version number to 1.3.0rc1"
    assert steps[7].planned == "`release promote`: Set version number to 1.3.0"
    assert steps[-1].actual.startswith("v1.3.0 on ") and "the branch head" in steps[-1].actual


def test_rc_and_the_final_bump_refuse_a_nightly_pin(copied: Copied) -> None:
    """Under rc-model = "bump" too, neither a candidate nor the final version depends on a
    nightly: each bump is a new commit of the branch, read as committed."""
    root = copied(adopted).path
    assert mlrelease(root, "release", "cut", "--version", "1.4", "--execute").returncode == 0
    git(root, "switch", "-q", "rel-1.4.0")
    nightly = "numpy>=1.26\nonnxruntime==1.24.0.dev20261101\n"
    (root / "requirements-dev.txt").write_text(nightly, encoding="utf-8")
    git(root, "add", "requirements-dev.txt")
    git(root, "commit", "-q", "-m", "Test against the runtime's nightly (#10)")
    head = git(root, "rev-parse", "HEAD")
    refused = mlrelease(root, "release", "rc", "--execute")
    said = " ".join((refused.stdout + refused.stderr).split())
    assert refused.returncode != 0 and "rc: rel-1.4.0 pins development (nightly) builds" in said
    assert "requirements-dev.txt:2 (requirement): onnxruntime==1.24.0.dev20261101" in said, said
    assert git(root, "rev-parse", "HEAD") == head  # nothing was committed
    released = nightly.replace("1.24.0.dev20261101", "1.24.0")
    (root / "requirements-dev.txt").write_text(released, encoding="utf-8")
    git(root, "commit", "-q", "-am", "Pin the released runtime (#11)")
    done = mlrelease(root, "release", "rc", "--execute")
    assert done.returncode == 0, done.stdout + done.stderr
    (root / "requirements-dev.txt").write_text(nightly, encoding="utf-8")
    git(root, "commit", "-q", "-am", "Back to the nightly (#12)")
    final = mlrelease(root, "release", "promote", "--version", "1.4.0", "--execute")
    said = " ".join((final.stdout + final.stderr).split())
    assert final.returncode != 0 and "promote: rel-1.4.0 pins development" in said, said
    assert "The release would depend on a nightly" in said
    assert "v1.4.0" not in git(root, "tag")
