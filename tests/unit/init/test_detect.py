"""`mlrelease init`'s detectors and proposal on snapshots (pure: no git, no files)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import tomllib

from mlrelease import registry
from mlrelease.config import load
from mlrelease.init import detect, propose, version_source
from mlrelease.init.snapshot import Snapshot
from mlrelease.release.config import ReleaseConfig
from mlrelease.wheels.config import WheelsConfig


def snap(
    texts: dict[str, str], *, tags: list[str] | None = None, branches: list[str] | None = None
) -> Snapshot:
    return Snapshot(
        files=sorted(texts), texts=texts, tags=tags or [], branches=branches or ["main"]
    )


@pytest.mark.parametrize(
    ("tags", "tag", "rc_tag"),
    [
        (
            ["v2.0.0", "v2.0.0-rc2", "v1.9.0", "notes"],
            "v{major}.{minor}.{patch}",
            "v{major}.{minor}.{patch}-rc{rc}",
        ),
        (["1.16.0", "1.16.0rc1"], "{major}.{minor}.{patch}", "{major}.{minor}.{patch}rc{rc}"),
        (
            ["rel-1.2.0", "rel-1.3.0"],
            "rel-{major}.{minor}.{patch}",
            "rel-{major}.{minor}.{patch}rc{rc}",
        ),
        ([], "v{major}.{minor}.{patch}", "v{major}.{minor}.{patch}rc{rc}"),
    ],
)
def test_tag_scheme(tags: list[str], tag: str, rc_tag: str) -> None:
    found = detect.tag_scheme(snap({}, tags=tags))
    assert (found.tag, found.rc_tag) == (tag, rc_tag)


def test_latest_release_tag_is_by_version_not_by_listing_order() -> None:
    assert detect.tag_scheme(snap({}, tags=["v1.9.0", "v1.10.0", "v1.2.0"])).latest == "v1.10.0"


@pytest.mark.parametrize(
    ("branches", "model", "template"),
    [
        (["main"], "trunk", "release/{major}.{minor}"),
        (["main", "release/2.5", "release/2.6"], "branch", "release/{major}.{minor}"),
        (["master", "rel-1.16"], "branch", "rel-{major}.{minor}"),
        (["main", "v1.4.x"], "branch", "v{major}.{minor}.x"),
        # onnxconverter-common before rel-1.15.0: r1.6, r1.6.9, r1.7, r1.9.0 (was "trunk").
        (["master", "r1.6", "r1.6.9", "r1.7", "r1.9.0"], "branch", "r{major}.{minor}.{patch}"),
        (["master", "rel-1.15.0"], "branch", "rel-{major}.{minor}.{patch}"),
        (["main", "rework", "r2d2", "remove-1.2"], "trunk", "release/{major}.{minor}"),
    ],
)
def test_release_model(branches: list[str], model: str, template: str) -> None:
    found = detect.release_model(snap({}, branches=branches))
    assert (found.name, found.branch) == (model, template)
    assert found.main_branch in ("main", "master")


def test_release_branches_behind_the_newest_release_are_history() -> None:
    # onnxmltools: r1.6 and r1.7 (2020), releases tagged on main since, up to 1.14.0.
    old = Snapshot(files=[], branches=["main", "r1.6", "r1.7"], tags=["1.14.0", "v1.7.0"])
    found = detect.release_model(old)
    assert (found.name, found.branch) == ("trunk", "r{major}.{minor}")
    assert "none reaches the newest release, 1.14.0 (the newest branch: r1.7)" in found.why
    kept = Snapshot(files=[], branches=["main", "r1.7", "r1.14"], tags=["1.14.0"])
    assert detect.release_model(kept).name == "branch"


def test_release_branches_main_holds_with_its_tag_are_markers_of_releases_on_main() -> None:
    # tensorflow-onnx: r1.16 and r1.16.1 reach v1.16.1, but main's history holds both branches
    # and the tag (releases tagged on main, a branch kept beside each): trunk, not branch.
    marked = Snapshot(
        files=[],
        branches=["main", "r1.15", "r1.16", "r1.16.1"],
        tags=["v1.16.1", "v1.16.0", "v1.15.0"],
        merged=frozenset({"main", "r1.15", "r1.16", "r1.16.1", "v1.16.1", "v1.16.0", "v1.15.0"}),
    )
    found = detect.release_model(marked)
    assert found.name == "trunk", found
    assert "(r1.16, r1.16.1), hold no commit main lacks" in found.why, found.why
    # A release tagged on its branch (a commit main lacks): the branch model, as before.
    branched = dataclasses.replace(marked, merged=frozenset({"main", "r1.15", "r1.16"}))
    assert detect.release_model(branched).name == "branch"
    # One release alone on main, a branch at its tag (cut there): no practice, a branch.
    once = dataclasses.replace(marked, merged=marked.merged - {"v1.16.0"})
    assert detect.release_model(once).name == "branch"
    # The tag on main, but a branch of its series with commits of its own: still a branch.
    picked = dataclasses.replace(marked, merged=marked.merged - {"r1.16.1"})
    assert detect.release_model(picked).name == "branch"


def test_version_sources() -> None:
    static = version_source.version_source(
        snap({"pyproject.toml": '[project]\nversion = "1.0.0"\n'}), None
    )
    assert (static.kind, static.current, static.files) == ("static", "1.0.0", [])
    number = version_source.version_source(
        snap({"setup.py": "setup()\n", "VERSION_NUMBER": "0.4.2\n"}), None
    )
    assert number.kind == "file" and [f.filename for f in number.files] == ["VERSION_NUMBER"]
    unknown = version_source.version_source(snap({"README.md": "Version 3.2.1 is great"}), None)
    assert unknown.kind == "unknown" and unknown.files == []


def test_native_sources_outside_tests_only() -> None:
    assert detect.build_kind(snap({"tests/helper.c": ""})).kind == "pure"
    assert detect.build_kind(snap({"src/pkg/fast.pyx": ""})).kind == "native"


def test_the_proposal_is_a_valid_configuration() -> None:
    found = detect.detect(
        snap(
            {
                "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.2.3"\n',
                "pkg/__init__.py": '__version__ = "1.2.3"\n',
                "CHANGELOG.md": "# Changelog\n",
                "tests/test_pkg.py": "",
            },
            tags=["v1.2.3"],
        )
    )
    proposal = propose.propose(found, {})
    data = tomllib.loads(proposal.text)
    config = load(Path("x"), registry.tables(), data=data, source="x")
    assert config.gates == ["git_state", "versions", "changelog", "wheels", "tests"]
    assert config.table(ReleaseConfig).model == "trunk"
    assert data["tool"]["bumpversion"]["files"] == [
        {
            "filename": "pkg/__init__.py",
            "search": '__version__ = "{current_version}"',
            "replace": '__version__ = "{new_version}"',
        }
    ]


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"docs/conf.py": "", "docsrc/conf.py": "", "docsrc/index.rst": ""}, "docs"),
        ({"docsrc/conf.py": "", "docsrc/index.rst": ""}, "docsrc"),  # Torch-TensorRT
        ({"website/sphinx/conf.py": "", "website/sphinx/index.md": ""}, "website/sphinx"),
        ({"tools/conf.py": "", "tools/run.py": ""}, None),  # a conf.py that is not Sphinx's
        ({"a/b/c/conf.py": "", "a/b/c/index.rst": ""}, None),  # deeper than two levels
    ],
)
def test_sphinx_sources_in_any_shallow_folder(files: dict[str, str], found: str | None) -> None:
    assert detect.docs(snap(files))[0] == found


@pytest.mark.parametrize(
    ("files", "name"),
    [
        ({"pyproject.toml": '[project]\nname = "a"\n', "setup.cfg": "[metadata]\nname = b\n"}, "a"),
        ({"pyproject.toml": "[build-system]\n", "setup.cfg": "[metadata]\nname = b\n"}, "b"),
        (  # Torch-TensorRT: the name only in setup.py's setup() call
            {"setup.py": 'from setuptools import setup\nsetup(name="torch_tensorrt", ext=[])\n'},
            "torch_tensorrt",
        ),
        ({"setup.py": "import setuptools\nsetuptools.setup(name='c')\n"}, "c"),
        ({"setup.py": "NAME = 'd'\nsetup(name=NAME)\n"}, "d"),  # a module-level constant
        (  # PyTorch: an environment variable's default, setup() called inside main()
            {
                "setup.py": "import os\nTORCH_PACKAGE_NAME = os.getenv('TORCH_PACKAGE_NAME', "
                "'torch')\nif LIBTORCH:\n    TORCH_PACKAGE_NAME = 'torch_no_python'\n"
                "def main():\n    setup(name=TORCH_PACKAGE_NAME)\n"
            },
            "torch",
        ),
        ({"setup.py": "setup(name=get_name())\n"}, None),  # computed: not guessed
        ({"setup.py": "setup(name=os.getenv('PKG'))\n"}, None),  # no default: not guessed
        ({"setup.py": "setup(name=\n"}, None),  # a syntax error is no name, never a traceback
        ({"setup.cfg": "[metadata\nname = e\n", "setup.py": "setup(name='f')\n"}, "f"),
    ],
)
def test_the_distribution_name_without_a_project_table(
    files: dict[str, str], name: str | None
) -> None:
    assert detect.distribution_name(snap(files)) == name


def test_init_writes_the_name_a_gate_cannot_find_in_pyproject() -> None:
    files = {
        "pyproject.toml": "[build-system]\nrequires = ['setuptools']\n",
        "setup.py": "from setuptools import setup\nsetup(name='torch_tensorrt')\n",
        "version.txt": "2.14.0a0\n",
    }
    text = propose.propose(detect.detect(snap(files)), {}).text
    data = tomllib.loads(files["pyproject.toml"] + text)
    config = load(Path("x"), registry.tables(), data=data, source="x")
    assert config.distribution == "torch_tensorrt" and config.project_name == "torch_tensorrt"
    with_project = {"project": {"name": "pkg"}, **data}
    config = load(Path("x"), registry.tables(), data=with_project, source="x")
    assert config.project_name == "pkg"  # [project] name wins


TORCH_FAMILY = {
    "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n\n'
    '[tool.setuptools.dynamic]\nversion = {file = "version.txt"}\n',
    "version.txt": "2.14.0a0\n",
}


@pytest.mark.parametrize(
    ("at_tags", "from_tag"),
    [
        # Torch-TensorRT: the RC tags and the final tag sit on commits saying 2.13.0a0.
        ({"v2.13.0": "2.13.0a0", "v2.13.0-rc2": "2.13.0a0", "v2.13.0-rc1": "2.13.0a0"}, True),
        # The files model: each tag on a commit carrying its version (an RC built as final).
        ({"v2.13.0": "2.13.0", "v2.13.0-rc1": "2.13.0", "v2.12.0": "2.12.0"}, False),
        # Release candidates made as bumps (ONNX): 1.22.0rc1 is the RC tag's own version.
        ({"v1.22.0rc1": "1.22.0rc1", "v1.22.0": "1.22.0"}, False),
        # One old tag on a marker commit among tags on their versions: not the practice.
        ({"v2.13.0": "2.13.0", "v2.12.0": "2.12.0", "v2.11.0": "2.11.0a0"}, False),
        ({}, False),  # no tags: nothing to tell from
    ],
)
def test_the_tag_model_is_detected_from_tags_on_commits_saying_another_version(
    at_tags: dict[str, str], from_tag: bool
) -> None:
    snapshot = Snapshot(
        files=sorted(TORCH_FAMILY),
        texts=TORCH_FAMILY,
        tags=list(at_tags),
        branches=["main", "release/2.13"],
        tag_texts={tag: {"version.txt": f"{v}\n"} for tag, v in at_tags.items()},
    )
    found = version_source.version_source(snapshot, None)
    assert found.built_from_tag is from_tag
    main = tomllib.loads(propose.propose(detect.detect(snapshot), {}).text)["tool"]["mlrelease"]
    assert main.get("version-source") == ("tag" if from_tag else None)


STOPPED = "# Changelog\n\n\n# 0.2.0 (2021-02-25)\n\n### Features\n\n* a feature\n"
"""Torch-TensorRT's CHANGELOG.md: conventional-changelog sections that stopped years ago."""
RELEASES = ["v2.13.0", "v2.13.0-rc2", "v2.12.1", "v2.12.0", "v0.2.0"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (STOPPED, False),  # none of 2.13.0, 2.12.1, 2.12.0: release notes live elsewhere
        (STOPPED.replace("# 0.2.0", "## Unreleased\n\n# 0.2.0"), True),  # kept again
        (STOPPED.replace("# 0.2.0 (2021-02-25)", "## [2.12.0] - 2026-05-20"), True),
        ("# Changelog\n", True),  # nothing to judge by: an empty changelog is a new one
    ],
)
def test_a_changelog_the_project_stopped_keeping_gets_no_gate(text: str, kept: bool) -> None:
    found = detect.detect(snap({"CHANGELOG.md": text}, tags=RELEASES))
    if kept:
        assert (found.changelog, found.stale_changelog) == ("CHANGELOG.md", None)
        return
    assert (found.changelog, found.stale_changelog) == (None, "CHANGELOG.md")
    assert "2.13.0, 2.12.1, 2.12.0" in found.changelog_why
    made = propose.propose(found, {})
    assert "changelog" not in made.gates
    assert not any(f.startswith("CHANGELOG.md") for f in made.new_files)  # it exists
    assert any(n.startswith("changelog is left out") for n in made.notes), made.notes


# Torch-TensorRT's wheels: pytorch/test-infra's reusable workflows and a build script.
TRT_WORKFLOW = """\
jobs:
  build:
    uses: pytorch/test-infra/.github/workflows/build_wheels_linux.yml@main
    with:
      package-name: torch_tensorrt
"""


def test_wheels_built_by_a_reusable_workflow_are_audited_not_planned() -> None:
    found = detect.build_kind(
        snap(
            {
                "setup.py": "setup(ext_modules=[Extension('x', ['core/a.cpp'])])\n",
                "core/a.cpp": "int answer() { return 42; }\n",
                ".github/workflows/build-tensorrt-linux.yml": TRT_WORKFLOW,
                ".github/workflows/build-tensorrt-windows.yml": TRT_WORKFLOW.replace(
                    "linux", "windows"
                ),
                "packaging/pre_build_script.sh": "python setup.py bdist_wheel\n",
            }
        )
    )
    assert (found.kind, found.builder, found.cibuildwheel) == ("native", "external", False)
    assert "build-tensorrt-linux.yml" in found.built_by
    assert found.platforms == ("manylinux_x86_64", "win_amd64")
    detection = dataclasses.replace(detect.detect(snap({})), build=found)
    data = tomllib.loads(propose.propose(detection, {}).text)
    wheels = data["tool"]["mlrelease"]["wheels"]
    assert (wheels["builder"], wheels["required-platforms"]) == (
        "external",
        ["manylinux_x86_64", "win_amd64"],
    )
    config = load(Path("x"), registry.tables(), data=data, source="x")
    assert config.table(WheelsConfig).builder == "external"


@pytest.mark.parametrize(
    "texts",
    [
        {".github/workflows/wheels.yml": "uses: pypa/cibuildwheel@v3\nrun: bdist_wheel\n"},
        {"pyproject.toml": "[tool.cibuildwheel]\n", "build_wheels.sh": "pip wheel .\n"},
        {"setup.cfg": "[metadata]\nname = x\n"},  # no build script at all: cibuildwheel's plan
    ],
)
def test_cibuildwheel_anywhere_keeps_the_planned_build(texts: dict[str, str]) -> None:
    found = detect.build_kind(snap({"setup.py": "Extension(", "core/a.cpp": "", **texts}))
    assert (found.kind, found.builder) == ("native", "cibuildwheel")


def test_init_says_when_it_cannot_read_the_name() -> None:
    found = detect.detect(snap({"setup.py": "setup(name=get_name(), ext_modules=[])\n"}))
    proposal = propose.propose(found, {})
    assert "distribution" not in tomllib.loads(proposal.text)["tool"]["mlrelease"]
    assert any('[tool.mlrelease] distribution = "<name>"' in n for n in proposal.notes)


WHEELS_ON_RC_TAGS = """\
on:
  push:
    branches: [main]
    tags:
      # Release candidate tags look like: v1.11.0-rc1
      - v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+
jobs:
  build:
    runs-on: ubuntu-latest
    steps: [{run: make}]
"""


def test_with_no_rc_tag_the_rc_spelling_is_the_one_the_workflows_build() -> None:
    """tensordict had no RC tag before 0.13.0, but its wheel workflows build tags
    ``v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+``: init proposed ``v0.13.0rc1``, which none builds."""
    texts = {".github/workflows/build-wheels-linux.yml": WHEELS_ON_RC_TAGS}
    found = detect.tag_scheme(snap(texts, tags=["v0.12.0", "v0.11.0"]))
    assert (found.tag, found.rc_tag) == (
        "v{major}.{minor}.{patch}",
        "v{major}.{minor}.{patch}-rc{rc}",
    )
    assert "v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+" in found.why, found.why
