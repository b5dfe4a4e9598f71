"""Where the version is written besides the version files (:func:`carriers.carriers`), and
the version split into C preprocessor part macros (:func:`carriers.split_macros`)."""

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


def test_a_version_counts_only_where_the_place_says_it_is_the_projects() -> None:
    """tensorflow-onnx's CI tests ``onnx_version: '1.16.1'``, its own version too (issue 53)."""
    texts = {
        ".github/workflows/unit_test_ci.yml": "    with:\n      onnx_version: '1.16.1'\n",
        "tf2onnx/constants.py": 'TF2ONNX_VERSION = "1.16.1"\nDOWNLOAD = "x/tf2onnx-1.16.1.tgz"\n',
        "docs/conf.py": 'release = "1.16.1"\n',
        "MODULE.bazel": 'module(name = "tf2onnx", version = "1.16.1")\n',
        "notes.py": 'PREVIEW = "1.16.1.dev0"\n',
    }
    found = carriers.carriers(texts, "1.16.1", set(), {"tf2onnx"})
    assert [(f.filename, f.line) for f in found.files] == [
        ("MODULE.bazel", 1),
        ("docs/conf.py", 1),
        ("tf2onnx/constants.py", 1),
    ]
    assert found.left == [
        ".github/workflows/unit_test_ci.yml:2: onnx_version names another project (onnx)",
        "tf2onnx/constants.py:2: nothing before it says it is the version (no key naming a "
        "version)",
    ]  # notes.py: 1.16.1.dev0 is another version, not 1.16.1 followed by text


def test_a_file_git_does_not_track_names_the_build_file_that_writes_it() -> None:
    left = carriers.untracked(
        {"torchvision/version.py": "__version__ = '0.18.0a0+1a2b3c4'\n", "scratch.txt": "0.18"},
        {"torchvision/version.py"},
        {"setup.py": 'open(os.path.join(cwd, "torchvision", "version.py"), "w")'},
    )
    assert left == [
        "scratch.txt: never a version file: git does not track it",
        "torchvision/version.py: never a version file: git ignores it, and setup.py writes it "
        "(the version comes from what setup.py reads)",
    ]


def test_copies_of_other_projects_and_bumpversions_own_key_are_left() -> None:
    """A vendored package's ``__version__``, bump-my-version's ``current_version``: the same
    number, another owner (an adversary's cases)."""
    texts = {
        "src/demo/_vendor/tinylib/__init__.py": '__version__ = "0.3.0"\n',
        "third_party/zlib/VERSION.py": 'VERSION = "0.3.0"\n',
        ".bumpversion.cfg": "[bumpversion]\ncurrent_version = 0.3.0\n",
        "setup.cfg": "[bumpversion]\ncurrent_version = 0.3.0\n",
        "src/demo/version.py": '__version__ = "0.3.0"\n',
    }
    found = carriers.carriers(texts, "0.3.0", set(), {"demo"})
    assert [f.filename for f in found.files] == ["src/demo/version.py"]
    assert [line.split(": ", 1)[1].split(" (")[0].split(":")[0] for line in found.left] == [
        "bump-my-version's own configuration",
        "bump-my-version's current_version",
        "a copy of another project",
        "a copy of another project",
    ]
