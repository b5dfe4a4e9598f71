"""What a project's own ``[tool.bumpversion]`` lacks (:mod:`mlrelease.init.kept_table`)."""

from __future__ import annotations

import pytest

from mlrelease.init import kept_table
from mlrelease.init.propose import PEP440_PARSE
from mlrelease.init.version_source import VersionFile

CONF = VersionFile("docs/conf.py", 'release = "{current_version}"', 'release = "{new_version}"')
INIT = VersionFile("src/demo/__init__.py", "{current_version}", "{new_version}")


@pytest.mark.parametrize(
    ("files", "missing"),
    [
        (None, ["docs/conf.py", "src/demo/__init__.py"]),
        ([{"filename": "src/demo/__init__.py"}], ["docs/conf.py"]),
        ([{"filename": "./docs/conf.py"}, {"glob": "src/*/__init__.py"}], []),
        ([{"glob": "docs/*.rst"}, "not a table"], ["docs/conf.py", "src/demo/__init__.py"]),
    ],
)
def test_unlisted_names_the_files_no_entry_names(files: object, missing: list[str]) -> None:
    table = {"current_version": "1.0.0"} if files is None else {"files": files}
    assert [vf.filename for vf in kept_table.unlisted([CONF, INIT], table)] == missing


@pytest.mark.parametrize(
    ("table", "text", "grows"),
    [
        ({}, "[tool.bumpversion]\n", True),
        ({"files": [{}]}, "[tool.bumpversion]\n\n[[ tool.bumpversion.files ]]\n", True),
        ({"files": [{}]}, "[tool.bumpversion]\nfiles = [{filename = 'a'}]\n", False),
    ],
)
def test_files_grow_only_as_an_array_of_tables(table: dict, text: str, grows: bool) -> None:
    assert kept_table.files_can_grow(table, text) is grows


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"current_version": "1.4.0"}, None),
        (
            {"current_version": "0.1.0.dev0"},
            "bump-my-version's default parse reads only '0.1.0' of it",
        ),
        ({"current_version": "0.1.0.dev0", "parse": PEP440_PARSE}, None),
        (
            {"current_version": "2024.1", "parse": r"\d+\.\d+\.\d+"},
            "tool.bumpversion.parse does not match it",
        ),
        ({"current_version": "1.0.0", "parse": "("}, None),
    ],
)
def test_partial_parse_names_a_parse_that_reads_part_of_the_version(
    table: dict, said: str | None
) -> None:
    assert kept_table.partial_parse(table) == said


CFG = """\
[bumpversion]
current_version = 1.2.0
parse = (?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)

[bumpversion:file:src/demo/__init__.py]

[bumpversion:file:README.md]
search = demo=={current_version}
replace = demo=={new_version}

[bumpversion:glob:docs/*.md]

[bumpversion:part:release]
values = a
"""


@pytest.mark.parametrize(
    ("name", "text", "entries"),
    [
        (
            ".bumpversion.cfg",
            CFG,
            [
                {"filename": "src/demo/__init__.py"},
                {
                    "filename": "README.md",
                    "search": "demo=={current_version}",
                    "replace": "demo=={new_version}",
                },
                {"glob": "docs/*.md"},
            ],
        ),
        ("setup.cfg", "[metadata]\nname = demo\n", None),
        ("setup.cfg", "[bumpversion\nbroken", None),
        (
            ".bumpversion.toml",
            '[tool.bumpversion]\ncurrent_version = "1.2.0"\n'
            '[[tool.bumpversion.files]]\nfilename = "VERSION"\n',
            [{"filename": "VERSION"}],
        ),
        (".bumpversion.toml", "not = [toml", None),
    ],
)
def test_other_entries_reads_another_bumpversion_configuration(
    name: str, text: str, entries: list[dict[str, str]] | None
) -> None:
    assert kept_table.other_entries(name, text) == entries


def test_globbed_copies_names_a_copy_of_another_project_that_a_glob_matches() -> None:
    """An adversary given the docs: init left the vendored ``__version__`` as another project's,
    kept the project's ``glob = "src/**/__init__.py"``, and every bump rewrote the copy."""
    left = [
        "src/demo/_vendor/other/__init__.py:1: a copy of another project (under _vendor/): x",
        "README.md:3: documentation: it names versions as history or instructions",
        "third_party/z/VERSION:1: a copy of another project (under third_party/): x",
    ]
    table = {"files": [{"glob": "src/**/__init__.py"}, {"filename": "third_party/z/VERSION"}]}
    assert kept_table.globbed_copies(left, table) == [
        ("src/demo/_vendor/other/__init__.py", "src/**/__init__.py")
    ]
    assert kept_table.globbed_copies(left, {"files": "inline?"}) == []
