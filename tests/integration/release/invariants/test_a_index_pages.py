"""Invariant (a), the index's side: what mlrelease reads of an index is a simple index page, and
every file of the release counts whatever its spelling (docs/release/invariants.md, "What
mlrelease assumes of the index"). The index is pypiserver on 127.0.0.1; the misbehaving index
is a small proxy in front of it (:mod:`helpers.error_index`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.error_index import PAGES, proxied
from helpers.invariants import RC, hashes, other_build
from helpers.release import Repo

PROMOTE = ("release", "promote", "--rc", RC, "--publish")


@pytest.mark.parametrize("mode", sorted(PAGES))
def test_an_index_answering_an_error_page_is_not_read_as_empty(
    candidate: Repo, mlr, index, tmp_path: Path, mode: str
) -> None:  # type: ignore[no-untyped-def]
    """#38: an index answering 200 with an HTML error page was read as "holds nothing": the
    bound files were uploaded beside a foreign one (and then promote failed, half done)."""
    url, packages = index
    theirs = other_build(candidate, tmp_path / "theirs")
    foreign = "demo-1.4.0-1-py3-none-any.whl"
    shutil.copy(theirs / "demo-1.4.0-py3-none-any.whl", packages / foreign)
    with proxied(url) as proxy:
        proxy.mode = mode
        code, _, err = mlr(*PROMOTE, "--repository-url", proxy.url, "--execute", "--push")
    assert code == 1, err
    assert f"{proxy.url}simple/demo/ answered 200 with" in err
    assert "not a simple index page" in err
    assert proxy.uploads == []  # refused before any upload
    assert sorted(hashes(packages)) == [foreign]
    assert candidate.tag_everywhere("v1.4.0")[1] == ""


def test_a_real_pypiserver_page_passes_through_the_proxy(candidate: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    """The validation is no proxy of its own: pypiserver's pages (HTML, no PEP 629 meta, a
    404 for a project it lacks) are read as they are, and the release goes out."""
    url, packages = index
    with proxied(url) as proxy:
        code, _, err = mlr(*PROMOTE, "--repository-url", proxy.url, "--execute", "--push")
    assert code == 0, err
    assert len(proxy.uploads) == 2
    assert sorted(hashes(packages)) == ["demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"]


@pytest.mark.parametrize(
    "spelling",
    ["demo-1.4.0+evil-py3-none-any.whl", "demo-1.4-py3-none-any.whl", "Demo-1.4.0.tar.bz2"],
)
def test_a_foreign_file_under_another_spelling_stops_the_release(
    candidate: Repo, colleague: Repo, mlr, index, tmp_path: Path, spelling: str
) -> None:  # type: ignore[no-untyped-def]
    """#44: `demo-1.4.0+evil-py3-none-any.whl` on the index was not counted as a 1.4.0 file
    (string equality of versions): promote tagged v1.4.0 and `pip install demo==1.4.0`
    installed the foreign wheel. Refused before any upload and before the tag."""
    url, packages = index
    theirs = other_build(colleague, tmp_path / "theirs")
    source = "demo-1.4.0.tar.gz" if spelling.endswith(".tar.bz2") else "demo-1.4.0-py3-none-any.whl"
    shutil.copy(theirs / source, packages / spelling)
    code, _, err = mlr(*PROMOTE, "--repository-url", url, "--execute", "--push")
    assert code == 1 and spelling in err, err
    assert sorted(hashes(packages)) == [spelling]  # nothing was uploaded
    assert candidate.tag_everywhere("v1.4.0")[1] == ""


def test_a_yanked_bound_file_stops_the_final_tag(candidate: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    """The index's yanked status is read (PEP 691 ``yanked``): promote does not tag a release
    whose files the index yanked."""
    url, packages = index
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, err
    held = hashes(packages)
    page = {
        "meta": {"api-version": "1.1"},
        "name": "demo",
        "files": [
            {
                "filename": n,
                "url": f"../../packages/{n}",
                "hashes": {"sha256": h},
                "yanked": n.endswith(".whl"),
            }
            for n, h in sorted(held.items())
        ],
    }
    with proxied(url) as proxy:
        proxy.mode, proxy.json_page = "json", json.dumps(page)
        code, _, err = mlr("release", "promote", "--rc", RC, "--repository-url", proxy.url)
    assert code == 1 and "yanked demo-1.4.0-py3-none-any.whl" in err, err
