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


ARABIC_INDIC = "v\u0661.\u0664.\u0660"
"""``v1.4.0`` in Arabic-Indic digits."""
FULLWIDTH = "v\uff11.\uff14.\uff10"
"""``v1.4.0`` in fullwidth digits."""


def test_a_tag_spelt_in_other_digits_names_no_release() -> None:
    """Anyone who can push may push ``v1.4.0`` spelt in Arabic-Indic or fullwidth digits: no
    release and no RC, never a traceback of every command that reads the tags (``packaging``
    refuses those digits in a version)."""
    names = Names.compile(
        "t", tag="v{major}.{minor}.{patch}", rc_tag="v{major}.{minor}.{patch}-rc{rc}"
    )
    others = (ARABIC_INDIC, FULLWIDTH, ARABIC_INDIC[1:], "v1.4.0-rc\u0661", "v1.4.0rc\uff11")
    for tag in others:
        assert names.read_tag(tag) is None, tag
    assert names.newest_final([ARABIC_INDIC, "v1.3.0"]) == Version("1.3.0")
    assert names.release_tag(Version("1.4.0"), [FULLWIDTH]) is None
