"""Version strings and release tags (scanning files is bump-my-version's: see
tests/integration/adoption/test_adoption_versions_scan.py)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from mlrelease import versions


@pytest.mark.parametrize(
    ("tag", "version"),
    [("v1.4.0", "1.4.0"), ("v1.4.0-rc2", "1.4.0rc2"), ("v0.10.3-rc11", "0.10.3rc11")],
)
def test_tag_round_trip(tag: str, version: str) -> None:
    assert versions.tag_to_version(tag) == Version(version)
    assert versions.version_to_tag(version) == tag


@pytest.mark.parametrize("tag", ["1.4.0", "v1.4", "v12.0.0rc1", "release-1.4.0", "v1.4.0-beta1"])
def test_non_release_tags(tag: str) -> None:
    assert versions.tag_to_version(tag) is None


@pytest.mark.parametrize("version", ["1.4.0.dev0", "1.4.0a1", "1.4.0.post1"])
def test_versions_without_tags(version: str) -> None:
    with pytest.raises(ValueError, match="has no tag"):
        versions.version_to_tag(version)


def test_tag_agrees() -> None:
    v = Version
    assert versions.tag_agrees(v("1.4.0"), v("1.4.0"))
    assert versions.tag_agrees(v("1.4.0rc2"), v("1.4.0rc2"))
    assert versions.tag_agrees(v("1.4.0rc2"), v("1.4.0"))
    assert not versions.tag_agrees(v("1.4.0"), v("1.4.0rc2"))
    assert not versions.tag_agrees(v("1.4.0rc2"), v("1.4.0rc1"))
    assert not versions.tag_agrees(v("12.0.0"), v("1.12.0"))  # ONNX tagged v12.0.0 for 1.12.0
