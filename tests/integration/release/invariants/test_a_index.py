"""Invariant (a): the index holds, under this project and version, exactly the manifest's files,
byte for byte, proven by SHA-256 (docs/release/invariants.md). Each test is a class of attack
that once broke it; the index is pypiserver on 127.0.0.1 (standing in for PyPI)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from helpers.dist import make_dist
from helpers.invariants import RC, bound_files, hashes, other_build
from helpers.release import Repo

from mlrelease.release.checklist.steps import DEFAULT_CHECKLIST

PROMOTE = ("release", "promote", "--rc", RC, "--publish")


def publish_step(url: str) -> list[str]:
    """The default checklist's publish step, its placeholders filled, aimed at ``url``."""
    step = next(s for s in DEFAULT_CHECKLIST if s.id == "publish")
    values = {
        "rc_tag": RC, "version": "1.4.0", "series": "1.4", "branch": "release/1.4",
        "final_tag": "v1.4.0", "artifacts": "dist", "repository_url": url,
        "ledger_dir": "build/release/1.4.0",
    }  # fmt: skip
    argv = [a.format(**values) for a in step.run]
    if "--repository-url" not in argv:
        argv += ["--repository-url", url]
    assert argv[0] == "mlrelease"
    return argv[1:]


def test_the_checklists_publish_step_publishes_the_bound_bytes_not_dist(
    candidate: Repo, colleague: Repo, mlr, index, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Class 1: the checklist's publish step checked only dist/SHA256SUMS; a dist/ rebuilt from
    a later commit (with fresh sums) was published as the release."""
    url, packages = index
    candidate.commit_file("src/demo/core.py", "def answer() -> int:\n    return 7\n", "fix: 7")
    candidate.build()  # dist/ rebuilt from the later commit, SHA256SUMS consistent
    monkeypatch.chdir(candidate.path)  # where the checklist runs its steps
    code, _, err = mlr(*publish_step(url))
    assert code == 0, err
    assert set(hashes(packages).items()) <= set(bound_files(colleague).items())


def test_a_file_outside_the_manifest_is_never_published(
    candidate: Repo, colleague: Repo, mlr, index
) -> None:  # type: ignore[no-untyped-def]
    """Class 3: a `.zip` sdist listed in SHA256SUMS but in no manifest was uploaded beside the
    bound files."""
    url, packages = index
    extra = candidate.path / "dist" / "demo-1.4.0.zip"
    with zipfile.ZipFile(extra, "w") as archive:  # a valid sdist in the old .zip format
        archive.writestr(
            "demo-1.4.0/PKG-INFO", "Metadata-Version: 2.1\nName: demo\nVersion: 1.4.0\n"
        )
        archive.writestr("demo-1.4.0/src/demo/core.py", "def answer() -> int:\n    return 7\n")
    sums = candidate.path / "dist" / "SHA256SUMS"
    digest = hashes(candidate.path / "dist")["demo-1.4.0.zip"]
    sums.write_text(sums.read_text() + f"{digest}  demo-1.4.0.zip\n")
    code, _, err = mlr(*PROMOTE, "--repository-url", url, "--execute", "--push")
    assert code == 0, err
    assert hashes(packages) == bound_files(colleague)


@pytest.mark.parametrize("algo", ["md5", "off"])
def test_an_index_without_sha256_is_downloaded_and_hashed(
    candidate: Repo, colleague: Repo, mlr, index, indexes, tmp_path: Path, algo: str
) -> None:  # type: ignore[no-untyped-def]
    """Class 4: an index listing files with md5 or no hash was believed: a same-named file of
    other bytes counted as "already held", and the final tag was pushed."""
    _, packages = index
    theirs = other_build(colleague, tmp_path / "theirs")
    shutil.copy(theirs / "demo-1.4.0-py3-none-any.whl", packages)  # the colleague's upload
    url = indexes(algo)
    code, _, err = mlr(*PROMOTE, "--repository-url", url, "--execute", "--push")
    assert code == 1 and "demo-1.4.0-py3-none-any.whl" in err
    assert candidate.tag_everywhere("v1.4.0")[1] == ""


def test_a_foreign_file_of_the_version_stops_the_release(
    candidate: Repo, colleague: Repo, mlr, index, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Class 5: a foreign file of the same version under another name (a build tag) was left
    on the index beside the bound files, and pip picked it."""
    url, packages = index
    theirs = other_build(colleague, tmp_path / "theirs")
    shutil.copy(
        theirs / "demo-1.4.0-py3-none-any.whl", packages / "demo-1.4.0-1-py3-none-any.whl"
    )  # a build-tagged wheel of 1.4.0, uploaded by someone else
    code, _, err = mlr(*PROMOTE, "--repository-url", url, "--execute", "--push")
    assert code == 1 and "demo-1.4.0-1-py3-none-any.whl" in err
    assert candidate.tag_everywhere("v1.4.0")[1] == ""
    assert colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""


def test_files_swapped_while_publishing_are_not_published(
    candidate: Repo, colleague: Repo, mlr, index, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Class 6: promotion checked dist/ against the manifest, then a separate publish process
    re-checked only SHA256SUMS; files swapped in between were uploaded and tagged. Here dist/
    is rebuilt from another tree the moment the first Python process of the publish starts."""
    url, packages = index
    later = other_build(colleague, tmp_path / "later").parent / "later-tree"
    marker = tmp_path / "swap-once"
    hook = tmp_path / "hook"
    hook.mkdir()
    helpers = Path(make_dist.__code__.co_filename).parent
    (hook / "sitecustomize.py").write_text(
        "import pathlib, sys\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if marker.exists():\n"
        "    marker.unlink()\n"
        f"    sys.path.insert(0, {str(helpers)!r})\n"
        "    from dist import make_dist\n"
        f"    make_dist(pathlib.Path({str(later)!r}),"
        f" pathlib.Path({str(candidate.path / 'dist')!r}), '1.4.0')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(hook))
    marker.write_text("")
    mlr(*PROMOTE, "--repository-url", url, "--execute", "--push")
    assert not marker.exists()  # the swap happened
    assert set(hashes(packages).items()) <= set(bound_files(colleague).items())
