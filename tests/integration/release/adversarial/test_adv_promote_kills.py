"""Promotion with publishing to a local index (pypiserver on 127.0.0.1), SIGKILLed at every
point: between the two uploads, after publishing, after the final tag, after its push. A
re-run converges to the end state of an uninterrupted run: every file on the index exactly
once (the index refuses a second upload of a name, so a duplicate publish would fail the
re-run), the final tag on the RC's commit, here and on origin."""

from __future__ import annotations

import hashlib
import signal
import subprocess

import pytest
from helpers.release import PROMOTE_KILL_POINTS, Repo, run_mlrelease

POINTS = PROMOTE_KILL_POINTS


def promote(repo: Repo, url: str, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    argv = ["release", "promote", "--rc", "v1.4.0-rc1", "--publish", "--repository-url", url]
    return run_mlrelease(repo, *argv, "--execute", "--push", fault=fault)


def assert_promoted(repo: Repo, packages) -> None:  # type: ignore[no-untyped-def]
    rc = repo.git("rev-parse", "v1.4.0-rc1^{commit}")
    assert repo.git("rev-parse", "v1.4.0^{commit}") == rc
    assert repo.origin_git("rev-parse", "v1.4.0^{commit}") == rc
    assert repo.git("rev-parse", "v1.4.0") == repo.origin_git("rev-parse", "v1.4.0")
    on_index = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in packages.iterdir()}
    built = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (repo.path / "dist").iterdir()
        if p.name != "SHA256SUMS"
    }
    assert on_index == built


@pytest.mark.slow
@pytest.mark.parametrize("fault", POINTS)
def test_killed_promotion_completes_on_rerun_and_publishes_once(
    candidate: Repo, index, fault: str
) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    killed = promote(candidate, url, fault)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    if fault.startswith("publish:"):  # nothing is tagged before every file is on the index
        assert candidate.tag_everywhere("v1.4.0") == ("", "")
    resumed = promote(candidate, url)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert_promoted(candidate, packages)
    again = promote(candidate, url)
    assert again.returncode == 0 and "nothing to do" in again.stderr
    assert_promoted(candidate, packages)
