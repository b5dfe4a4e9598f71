"""Each channel is tied to its index (#38): ``release publish --channel rc`` uploads only to the
rc index, the release index is reached only through the release channel, and a URL on the
command line must be the channel's (docs/release/invariants.md). Two pypiservers on 127.0.0.1
stand in for PyPI and TestPyPI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import projects
from helpers.index import serve
from helpers.invariants import RC, hashes
from helpers.release import Repo


@pytest.fixture
def rc_index(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    with serve(tmp_path / "rc-index") as url:
        yield url, tmp_path / "rc-index"


def configure(repo: Repo, index: str, rc_index: str) -> None:
    """The project's pyproject.toml names both channels' indexes (uncommitted: read by the
    command, and no part of the RC's files)."""
    projects.configure(repo.path, "tool.mlrelease.release", {"index": index, "rc-index": rc_index})


def test_the_rc_channel_never_uploads_to_the_release_index(
    candidate: Repo, mlr, index, rc_index
) -> None:  # type: ignore[no-untyped-def]
    """#38: `release publish --channel rc --repository-url <the release index>` uploaded the
    RC's files to the release index, with no report."""
    (url, packages), (rc_url, rc_packages) = index, rc_index
    configure(candidate, url, rc_url)
    argv = ("release", "publish", "--rc", RC, "--channel", "rc", "--execute")
    code, _, err = mlr(*argv, "--repository-url", url)
    assert code != 0, err
    assert "the release channel's index" in err and url in err and rc_url in err
    assert hashes(packages) == {}
    code, _, err = mlr(*argv)  # without a URL: the rc channel's own index
    assert code == 0, err
    assert sorted(hashes(rc_packages)) == ["demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"]
    assert hashes(packages) == {}


def test_a_url_that_is_not_the_channels_is_refused(
    candidate: Repo, mlr, index, rc_index, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A --repository-url other than the configured index of the release channel is refused,
    naming both; the release channel given the rc index is refused too."""
    (url, packages), (rc_url, rc_packages) = index, rc_index
    configure(candidate, url, rc_url)
    with serve(tmp_path / "elsewhere") as elsewhere:
        code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", elsewhere)
        assert code != 0 and elsewhere in err and url in err, err
        code, _, err = mlr("release", "promote", "--rc", RC, "--repository-url", elsewhere)
        assert code != 0 and elsewhere in err and url in err, err
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", rc_url, "--execute")
    assert code != 0 and "the rc channel's index" in err, err
    assert hashes(packages) == {} and hashes(rc_packages) == {}


def test_one_index_for_both_channels_is_refused(candidate: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    configure(candidate, url, url.rstrip("/"))
    code, _, err = mlr("release", "publish", "--rc", RC, "--channel", "rc", "--execute")
    assert code != 0 and "are one index" in err, err
    assert hashes(packages) == {}
