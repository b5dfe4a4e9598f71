"""Every tag spelling a project has used counts (issue 53): sklearn-onnx tags both
``v1.19.1`` and ``1.20.0``; a release is known by its version, new tags keep the configured
spelling."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.naming import Names


def test_a_release_is_read_in_every_spelling_the_project_used() -> None:
    names = Names.compile(
        "t", tag="{major}.{minor}.{patch}", rc_tag="{major}.{minor}.{patch}rc{rc}"
    )
    assert names.parse_tag("v1.19.1") is None  # the configured spelling only
    assert names.read_tag("v1.19.1") == (Version("1.19.1"), None)
    assert names.read_tag("v1.20.0-rc2") == (Version("1.20.0"), 2)
    assert names.read_tag("release-1.19.1") is None  # another prefix is another thing's
    assert names.release_tag(Version("1.19.1"), ["1.17.0", "v1.19.1"]) == "v1.19.1"
    assert names.release_tag(Version("1.19.1"), ["1.19.1rc1"]) is None
    assert names.newest_final(["1.17.0", "v1.19.1", "1.20.0rc1"]) == Version("1.19.1")
    assert names.final_tag(Version("1.20.0")) == "1.20.0"  # new tags: the configured spelling


def test_a_prefix_other_than_v_keeps_its_v_variant_only() -> None:
    names = Names.compile("t", tag="rel-{major}.{minor}.{patch}")
    assert names.read_tag("rel-v1.2.0") == (Version("1.2.0"), None)
    assert names.read_tag("v1.2.0") is None
