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


@pytest.mark.parametrize("tag", ["v1.4", "v1.4.0-beta1", "nightly", "v1.4.0-rc", "1.4.0-final"])
def test_non_release_tags(tag: str) -> None:
    assert versions.tag_to_version(tag) is None


@pytest.mark.parametrize(
    ("tag", "version"),
    [
        ("1.4.0", "1.4.0"),
        ("v12.0.0rc1", "12.0.0rc1"),
        ("release-1.4.0", "1.4.0"),
        ("1.4.0.rc2", "1.4.0rc2"),
        ("v1.4.0-rc.2", "1.4.0rc2"),
    ],
)
def test_every_spelling_init_may_propose(tag: str, version: str) -> None:
    """Issue 44: one reading of tag spellings, the one init proposes from (naming)."""
    assert versions.tag_to_version(tag) == Version(version)


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


# --- the version models (VersionModel) ---------------------------------------------------------

FILES, TAG = versions.VersionModel("files"), versions.VersionModel("tag")
BUMPED = versions.VersionModel("files", untagged=True)


@pytest.mark.parametrize(
    ("model", "version", "development"),
    [
        (FILES, "2.14.0.dev0", True),
        (FILES, "2.14.0a0", True),  # torchdata's main: 0.12.0a0, releases prepared as 0.11.0
        (FILES, "2.14.0a1", False),  # a real alpha release
        (FILES, "2.14.0rc1", False),
        (FILES, "2.14.0.post1", False),
        (FILES, "2.14.0", False),
        (BUMPED, "2.14.0", True),
        (TAG, "2.14.0a0", True),
        (TAG, "2.14.0.dev3", True),
        (TAG, "2.14.0", True),
        (TAG, "2.14.0.post1", False),
        (TAG, "2.14.0+cu121", False),
    ],
)
def test_what_main_may_carry(model: versions.VersionModel, version: str, development: bool) -> None:
    assert model.development(Version(version)) is development


@pytest.mark.parametrize(
    ("model", "current", "moved"),
    [
        (FILES, "2.14.0.dev3", "2.15.0.dev0"),
        (FILES, "2.14.0a0", "2.15.0a0"),
        (BUMPED, "2.14.0", "2.15.0"),
        (TAG, "2.14.0a0", "2.15.0a0"),
        (TAG, "2.14.0.dev2", "2.15.0.dev0"),
        (TAG, "2.14.0", "2.15.0"),
    ],
)
def test_main_moves_on_in_its_own_style(
    model: versions.VersionModel, current: str, moved: str
) -> None:
    assert model.next_development(Version(current), 2, 14) == moved


@pytest.mark.parametrize(
    ("model", "tagged", "files", "agrees"),
    [
        (FILES, "2.13.0", "2.13.0", True),
        (FILES, "2.13.0rc2", "2.13.0", True),  # an RC built with the final version
        (FILES, "2.13.0", "2.13.0a0", False),
        (TAG, "2.13.0", "2.13.0a0", True),  # Torch-TensorRT's v2.13.0
        (TAG, "2.13.0rc3", "2.13.0a0", True),
        (TAG, "2.13.1", "2.13.0a0", True),  # a patch release built from the same branch
        (TAG, "2.13.0", "2.14.0a0", False),  # another series
        (TAG, "2.13.0", "2.13.1", False),  # the files are ahead of the tag
    ],
)
def test_a_tag_agrees_with_what_its_commit_carries(
    model: versions.VersionModel, tagged: str, files: str, agrees: bool
) -> None:
    assert model.agrees(Version(tagged), Version(files)) is agrees


def test_the_tag_model_releases_the_first_unreleased_version_of_the_series() -> None:
    carried = Version("2.13.0a0")
    assert TAG.releasable(carried) and not FILES.releasable(carried)
    assert TAG.release_of(carried, []) == Version("2.13.0")
    assert TAG.release_of(carried, [Version("2.13.0"), Version("2.13.1")]) == Version("2.13.2")
    assert FILES.release_of(Version("2.13.0"), [Version("2.13.0")]) == Version("2.13.0")


@pytest.mark.parametrize(
    ("model", "files", "tagged", "section"),
    [
        (FILES, "1.4.0", None, "1.4.0"),
        (FILES, "1.5.0.dev0", None, "1.5.0.dev0"),
        (TAG, "2.14.0a0", None, "2.14.0.dev0"),  # untagged: the Unreleased section
        (TAG, "2.14.0", None, "2.14.0.dev0"),
        (TAG, "2.13.0a0", "2.13.0", "2.13.0"),  # at v2.13.0-rcN or v2.13.0: the release's
        (TAG, "2.13.0a0", "2.13.1", "2.13.1"),
    ],
)
def test_the_changelog_section_a_commit_needs(
    model: versions.VersionModel, files: str, tagged: str | None, section: str
) -> None:
    tag = Version(tagged) if tagged else None
    assert model.released_here(Version(files), tag) == Version(section)


@pytest.mark.parametrize(
    ("version", "kind"),
    [
        ("2.14.0a0", "a development version"),
        ("2.14.0.dev1", "a development version"),
        ("2.14.0a1", "a pre-release version"),
        ("2.14.0rc1", "a pre-release version"),
        ("2.14.0.post1", "a post-release version"),
        ("2.14.0", "a release version"),
    ],
)
def test_what_a_version_is_called_in_messages(version: str, kind: str) -> None:
    assert versions.kind(Version(version)) == kind
