"""The version split into C preprocessor part macros (:func:`carriers.split_macros`)."""

from __future__ import annotations

from mlrelease.init import carriers

HEADER = """\
#define XSTR(x) #x
#  define DEMO_VERSION_MAJOR 1 /* {keep} */
#  define DEMO_VERSION_MINOR 4
#  define DEMO_VERSION_MICRO 2
#define ONLY_MAJOR_VERSION 1
#define OTHER_MAJOR 1
#define OTHER_MINOR 4
"""


def test_each_part_macro_is_proposed_with_its_part_and_braces_kept() -> None:
    found = carriers.split_macros({"include/demo.h": HEADER}, "1.4.2rc1")
    assert [(f.line, f.search, f.replace) for f in found.files] == [
        (
            2,
            "#  define DEMO_VERSION_MAJOR {current_major} /* {{keep}} */",
            "#  define DEMO_VERSION_MAJOR {new_major} /* {{keep}} */",
        ),
        (
            3,
            "#  define DEMO_VERSION_MINOR {current_minor}",
            "#  define DEMO_VERSION_MINOR {new_minor}",
        ),
        (
            4,
            "#  define DEMO_VERSION_MICRO {current_patch}",
            "#  define DEMO_VERSION_MICRO {new_patch}",
        ),
    ]
    assert found.split == [
        "include/demo.h:2 splits the version into macros DEMO_VERSION_{MAJOR,MINOR,PATCH}: each "
        "moves with its part ({current_major} -> {new_major}, and so on)"
    ]
    assert found.left == []  # ONLY_ and OTHER_ are no complete set: not a version


def test_a_set_holding_another_version_is_left_and_said() -> None:
    found = carriers.split_macros({"include/demo.h": HEADER}, "1.5.0")
    assert found.files == [] and found.split == []
    assert found.left == [
        "include/demo.h:2: split version macros DEMO_VERSION_{MAJOR,MINOR,PATCH} say 1.4.2, not "
        "1.5.0: another package's version, or stale (bump them by hand if they are ours)"
    ]


def test_a_version_without_three_release_numbers_has_no_parts() -> None:
    assert carriers.split_macros({"include/demo.h": HEADER}, "1.4") == carriers.Carriers()
    assert carriers.split_macros({"include/demo.h": HEADER}, "not a version") == carriers.Carriers()


def test_a_documentation_copy_of_the_macros_is_left() -> None:
    """Sphinx's copy of a header's program listing in a committed site (Torch-TensorRT's
    ``docs/_sources/_cpp_api/program_listing_file_..._macros.h.rst.txt``) is not bumped."""
    listing = "".join(f"   {line}\n" for line in HEADER.splitlines())
    found = carriers.split_macros({"docs/_sources/listing_demo.h.rst.txt": listing}, "1.4.2")
    assert found.files == [] and found.split == []
    assert found.left == [
        "docs/_sources/listing_demo.h.rst.txt:2: documentation: it names versions as history or "
        "instructions; edit by hand"
    ]
