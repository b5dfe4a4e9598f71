"""The index edge's pure parts: the one notion of "a file of this release" (PEP 440, with
``packaging``) and the simple index of an upload URL. Pages from a real server are read in
tests/integration/release/invariants/test_a_index.py."""

from __future__ import annotations

import pytest
from packaging.version import Version

from mlrelease.edges.index import distribution, of_release, simple_url

OF_1_12 = [
    "demo-1.12.0-py3-none-any.whl",
    "demo-1.12.0+evil-py3-none-any.whl",  # pip install demo==1.12.0 installs it
    "demo-1.12.0-1-py3-none-any.whl",  # a build tag
    "Demo-1.12.0-cp312-cp312-manylinux_2_17_x86_64.whl",
    "demo-1.12.tar.gz",  # 1.12 == 1.12.0
    "demo-1.12.0.zip",
    "demo-1.12.0.tar.bz2",
    "demo-1.12.0-py3.8.egg",
    "demo-1.12.0.tar.lzma",  # pip builds from it
    "demo-1.12.0.0-py3-none-any.whl",  # 1.12.0.0 == 1.12.0
    "DEMO-1.12-py3-none-any.whl",
    "demo-1.012.0-py3-none-any.whl",
    "demo-v1.12.0.tar.gz",
    "demo-0!1.12.0.tar.gz",  # epoch 0
]
NOT_OF_1_12 = [
    "demo-1.12.1.tar.gz",
    "demo-1.12.0.post1.tar.gz",
    "demo-1.12.0rc1-py3-none-any.whl",
    "demo2-1.12.0.tar.gz",
    "other-1.12.0-py3-none-any.whl",
    "demo-1.12.0.txt",
]


@pytest.mark.parametrize("name", OF_1_12)
def test_every_spelling_of_the_release_counts(name: str) -> None:
    assert of_release(name, "demo", Version("1.12.0")), name


@pytest.mark.parametrize("name", NOT_OF_1_12)
def test_other_releases_and_projects_do_not_count(name: str) -> None:
    assert not of_release(name, "demo", Version("1.12.0")), name


def test_a_project_name_in_another_spelling_counts() -> None:
    assert of_release("Demo_Pkg-1.12.0.tar.gz", "demo-pkg", Version("1.12.0"))
    assert of_release("demo.pkg-1.12.0-py3-none-any.whl", "Demo_Pkg", Version("1.12"))
    assert distribution("demo-pkg-1.12.0.tar.bz2", "demo-pkg") == ("demo-pkg", Version("1.12.0"))


def test_the_simple_index_of_an_upload_url() -> None:
    assert simple_url("https://upload.pypi.org/legacy/") == "https://pypi.org/simple/"
    assert simple_url("https://test.pypi.org/legacy/") == "https://test.pypi.org/simple/"
    assert simple_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/simple/"
