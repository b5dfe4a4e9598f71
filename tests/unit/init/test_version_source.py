"""Where init finds the version, and which version model it proposes (pure: snapshots only)."""

from __future__ import annotations

import pytest
import tomllib
from packaging.version import Version

from mlrelease.init import detect, propose, version_source
from mlrelease.init.snapshot import Snapshot
from mlrelease.versions import VersionModel

SETUP_READS = (
    "import os\n"
    "with open('version.txt') as f:\n"
    "    os.environ['SETUPTOOLS_SCM_PRETEND_VERSION'] = f.read().strip()\n"
    "setup(name='pkg')\n"
)
"""A setup.py that reads version.txt (ao, executorch, torchdata, tensordict)."""


def family(
    main: str,
    at_tags: dict[str, str],
    branches: list[str],
    *,
    setup: str = SETUP_READS,
    pyproject: str = "",
) -> Snapshot:
    """A repository whose version.txt says ``main`` on main (and in the work tree), with
    ``at_tags``: tag -> what version.txt says at it."""
    texts = {"setup.py": setup, "version.txt": f"{main}\n"}
    if pyproject:
        texts["pyproject.toml"] = pyproject
    return Snapshot(
        files=sorted(texts),
        texts=texts,
        tags=list(at_tags),
        branches=branches,
        tag_texts={tag: {"version.txt": f"{v}\n"} for tag, v in at_tags.items()},
    )


AO_TAGS = {"v0.18.0": "0.18.0", "v0.18.0-rc1": "0.18.0", "v0.17.0": "0.17.0"}
"""torchao: the RC and final tags sit on commits whose version.txt says the final version."""
BRANCHES = ["main", "release/0.17.0", "release/0.18.0"]


def source_of(snapshot: Snapshot) -> str | None:
    """The ``version-source`` init proposes (None: the default, ``files``)."""
    text = propose.propose(detect.detect(snapshot), {}).text
    value: str | None = tomllib.loads(text)["tool"]["mlrelease"].get("version-source")
    return value


def test_a_bare_next_version_on_main_is_the_files_models() -> None:
    """torchao keeps the bare next version on main and builds what version.txt says (its
    v0.14.1 was prepared by setting 0.14.1): the files model, whose main may carry it."""
    assert source_of(family("0.19.0", AO_TAGS, BRANCHES)) is None
    model = VersionModel()
    assert model.on_main(Version("0.19.0"), Version("0.18.0"))  # the next release
    assert model.on_main(Version("0.18.0"), Version("0.18.0"))  # the newest (tensordict)
    assert not model.on_main(Version("0.17.1"), Version("0.18.0"))  # main went back
    assert not model.on_main(Version("0.19.0rc1"), Version("0.18.0"))  # a real pre-release


@pytest.mark.parametrize(
    ("main", "at_tags", "branches"),
    [
        ("0.19.0", AO_TAGS, BRANCHES),  # the bare next version on main: files (torchao)
        ("0.19.0.dev0", AO_TAGS, BRANCHES),  # a development marker on main: files
        ("0.19.0a0", AO_TAGS, BRANCHES),  # torchdata's marker: files
        ("0.18.0", AO_TAGS, BRANCHES),  # main says a released version: not the next one
        ("0.16.5", AO_TAGS, BRANCHES),  # older than the newest release: not the next one
        ("0.19.0", AO_TAGS, ["main"]),  # trunk: a bare version on main is a release's
        ("0.19.0", {}, BRANCHES),  # no release yet: nothing to tell from
        ("0.19.0", {"v0.18.0-rc1": "0.18.0"}, BRANCHES),  # no final release yet either
    ],
)
def test_the_files_model_stays_where_main_is_not_a_bare_next_version(
    main: str, at_tags: dict[str, str], branches: list[str]
) -> None:
    assert source_of(family(main, at_tags, branches)) is None


def test_release_candidates_made_as_bumps_keep_the_files_model() -> None:
    """ONNX: main carries the bare next version, and candidates are bumps on rel-X.Y.Z."""
    snapshot = family("1.4.0", {"v1.3.0": "1.3.0"}, ["main", "rel-1.3.0"])
    bumps = Snapshot(
        files=snapshot.files,
        texts=snapshot.texts,
        tags=snapshot.tags,
        branches=snapshot.branches,
        rc_subjects=["Bump version number to 1.3.0rc2 (#5)"],
        tag_texts=snapshot.tag_texts,
    )
    assert detect.detect(bumps).rc.name == "bump"
    assert source_of(bumps) is None


SCM = (
    '[build-system]\nrequires = ["setuptools", "setuptools_scm"]\n'
    '[project]\nname = "tensordict"\ndynamic = ["version"]\n\n'
    '[tool.setuptools_scm]\nversion_scheme = "post-release"\n'
)


def test_a_version_file_setup_py_reads_is_the_source_even_with_setuptools_scm() -> None:
    """tensordict: setup.py exports version.txt as SETUPTOOLS_SCM_PRETEND_VERSION."""
    tags = {"v0.14.0": "0.14.0", "v0.13.0": "0.13.0"}
    snapshot = family("0.14.0", tags, ["main", "release/0.14.0"], pyproject=SCM)
    found = version_source.version_source(snapshot, "0.14.0")
    assert (found.kind, found.current, found.built_from_tag) == ("file", "0.14.0", False)
    assert [(f.filename, f.search, f.regex) for f in found.files] == [
        ("version.txt", "^{current_version}$", True)
    ]
    assert "the version.txt file (setup.py line 2 reads it)" in found.why
    assert "[tool.setuptools_scm] in pyproject.toml too" in found.why
    assert source_of(snapshot) is None  # files: the tags sit on what the file says
    bumped = family("0.15.0", tags, ["main", "release/0.14.0"], pyproject=SCM)
    assert source_of(bumped) is None  # the bare next version: files, as for any version file


def test_setuptools_scm_alone_still_takes_the_version_from_tags() -> None:
    snapshot = family("0.14.0", {"v0.14.0": "0.14.0"}, ["main"], setup="setup()\n", pyproject=SCM)
    found = version_source.version_source(snapshot, "0.14.0")
    assert (found.kind, found.files) == ("scm", [])
    assert source_of(snapshot) == "scm"


TUNE_PYPROJECT = (
    '[project]\nname = "torchtune"\ndynamic = ["version"]\n'
    '[tool.setuptools.dynamic]\nversion = {attr = "torchtune.__version__"}\n'
)


def test_an_empty_version_attribute_the_build_fills_leaves_the_version_file() -> None:
    """torchtune: ``version = {attr = "torchtune.__version__"}``, whose ``__version__ = ""``
    the wheel build writes (from version.txt, through BUILD_VERSION); version.txt holds the
    version. init found no version file, took 0.4.0 from the newest tag, and cut refused."""
    texts = {
        "pyproject.toml": TUNE_PYPROJECT,
        "torchtune/__init__.py": '__version__ = ""\n',
        "version.txt": "0.5.0\n",
    }
    snapshot = Snapshot(
        files=sorted(texts),
        texts=texts,
        tags=["v0.4.0"],
        branches=["main", "release/0.4.0"],
        tag_texts={"v0.4.0": {"version.txt": "0.4.0\n"}},
    )
    found = version_source.version_source(snapshot, "0.4.0")
    assert (found.kind, found.current) == ("file", "0.5.0"), found.why
    assert [f.filename for f in found.files] == ["version.txt"]
    assert "torchtune.__version__" in found.why and "empty" in found.why, found.why
