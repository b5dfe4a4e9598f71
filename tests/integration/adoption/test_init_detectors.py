"""`mlrelease init` on small real repositories built in each test: one per detector."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
from helpers import REPO_ROOT
from helpers.projects import committed
from helpers.repo import git

SETUPTOOLS = (
    '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
)


def make(tmp_path: Path, files: dict[str, str], *, tags: tuple[str, ...] = ()) -> Path:
    """A committed repository holding ``files``; each tag on its own commit, oldest first."""
    (tmp_path / "project").mkdir(parents=True)
    return committed(tmp_path / "project", files, tags=tags)


def bare_mlrelease(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``mlrelease --root ROOT ARGS`` in a child process whose environment is bare (``PATH``
    /usr/bin:/bin, ``HOME`` the folder holding ``root``, 200 columns): a user's, not ours."""
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "HOME": str(root.parent)},
    )


def init(root: Path, *args: str) -> tuple[int, str, str]:
    proc = bare_mlrelease(root, "init", *args)
    return proc.returncode, proc.stdout, proc.stderr


def proposed(root: Path) -> dict[str, Any]:
    """The tables a dry run proposes, parsed (a dry run prints exactly the TOML it appends)."""
    code, out, err = init(root)
    assert code == 0, err
    data: dict[str, Any] = tomllib.loads(out)
    return data["tool"]


def files_of(tool: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["filename"], f["search"]) for f in tool["bumpversion"].get("files", [])]


SCM = (
    '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
    'build-backend = "setuptools.build_meta"\n[project]\nname = "pkg"\n'
    'dynamic = ["version"]\n[tool.setuptools_scm]\n'
)


def test_a_tag_derived_version_gets_its_release_candidates(tmp_path: Path) -> None:
    """An adversary given the docs: a setuptools-scm project adopted as init proposes (trunk,
    ``version-source = "scm"``) could never tag an RC. rc said 1.1.0 was released and to run
    `prepare --version 1.1.1`; prepare said main carried 1.1.1 and had nothing to do; rc
    refused again, word for word. The next patch is the RC's version, and --tag names
    another, since no file can."""
    root = make(tmp_path, {"pyproject.toml": SCM, "pkg/__init__.py": ""}, tags=("v1.1.0",))
    git(root, "commit", "-q", "--allow-empty", "-m", "fix: after the release")
    git(root, "config", "user.name", "Release Tester")  # the bare environment has none
    git(root, "config", "user.email", "release@example.com")
    assert init(root, "--execute")[0] == 0
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    rc = bare_mlrelease(root, "release", "rc", "--execute")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert git(root, "tag", "--points-at", "HEAD") == "v1.1.1rc1"
    prepare = bare_mlrelease(root, "release", "prepare", "--version", "1.2.0")
    said = " ".join((prepare.stdout + prepare.stderr).split())
    assert prepare.returncode == 0 and "rc --tag v1.2.0rc1" in said, said
    git(root, "commit", "-q", "--allow-empty", "-m", "feat: for 1.2")
    rc = bare_mlrelease(root, "release", "rc", "--tag", "v1.2.0rc1", "--execute")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert git(root, "tag", "--points-at", "HEAD") == "v1.2.0rc1"


def test_static_project_version_and_a_matching_dunder_version(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "pkg"\nversion = "2.1.0"\n',
            "pkg/__init__.py": '__version__ = "2.1.0"\nMAX = "3.0.0"\n',
        },
    )
    tool = proposed(root)
    assert tool["bumpversion"]["current_version"] == "2.1.0"
    # bump-my-version keeps [project] version itself; the module is listed with its exact line.
    assert files_of(tool) == [("pkg/__init__.py", '__version__ = "{current_version}"')]


def test_dynamic_attr_in_a_src_layout_takes_no_other_number(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pyproject.toml": SETUPTOOLS
            + '[project]\nname = "pkg"\ndynamic = ["version"]\n'
            + '[tool.setuptools.dynamic]\nversion = {attr = "pkg.__version__"}\n',
            "src/pkg/__init__.py": "OPSET = '1.2.3'\n__version__ = '1.2.3'\n",
        },
    )
    tool = proposed(root)
    assert tool["bumpversion"]["current_version"] == "1.2.3"
    assert files_of(tool) == [("src/pkg/__init__.py", "__version__ = '{current_version}'")]


@pytest.mark.parametrize(
    ("files", "listed"),
    [
        (
            {
                "pyproject.toml": SETUPTOOLS
                + '[project]\nname = "pkg"\ndynamic = ["version"]\n'
                + '[tool.setuptools.dynamic]\nversion = {file = "VERSION"}\n',
                "VERSION": "0.7.2\n",
            },
            "VERSION",
        ),
        (  # setup.py only (no pyproject.toml): the VERSION_NUMBER file onnx projects use
            {
                "setup.py": "from setuptools import setup\n"
                "setup(name='pkg', version=open('VERSION_NUMBER').read().strip())\n",
                "VERSION_NUMBER": "1.17.0\n",
            },
            "VERSION_NUMBER",
        ),
    ],
)
def test_version_files(tmp_path: Path, files: dict[str, str], listed: str) -> None:
    root = make(tmp_path, files)
    tool = proposed(root)
    assert files_of(tool) == [(listed, "^{current_version}$")]
    assert tool["bumpversion"]["files"][0]["regex"] is True


def test_setup_py_literal_version(tmp_path: Path) -> None:
    root = make(tmp_path, {"setup.py": 'from setuptools import setup\nsetup(version="0.3.1")\n'})
    tool = proposed(root)
    assert files_of(tool) == [("setup.py", 'version="{current_version}"')]


@pytest.mark.parametrize(
    "pyproject",
    [
        '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
        'build-backend = "setuptools.build_meta"\n[project]\nname = "pkg"\n'
        'dynamic = ["version"]\n[tool.setuptools_scm]\n',
        '[build-system]\nrequires = ["hatchling", "hatch-vcs"]\nbuild-backend = '
        '"hatchling.build"\n[project]\nname = "pkg"\ndynamic = ["version"]\n'
        '[tool.hatch.version]\nsource = "vcs"\n',
    ],
    ids=["setuptools-scm", "hatch-vcs"],
)
def test_tag_derived_versions_have_nothing_to_bump(tmp_path: Path, pyproject: str) -> None:
    root = make(tmp_path, {"pyproject.toml": pyproject, "pkg/__init__.py": ""}, tags=("v0.4.0",))
    git(root, "branch", "release/0.4")  # the branch model (tensordict's shape)
    git(root, "commit", "-q", "--allow-empty", "-m", "feat: after the release")
    tool = proposed(root)
    assert tool["mlrelease"]["release"]["model"] == "branch"
    assert tool["mlrelease"]["version-source"] == "scm"
    assert tool["bumpversion"]["current_version"] == "0.4.0"
    assert files_of(tool) == []
    assert init(root, "--execute")[0] == 0
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    state = subprocess.run(  # main's version is the tags' (0.4.1.devN), not current_version's
        [sys.executable, "-m", "mlrelease", "--root", str(root), "verify", "--only", "git_state"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert state.returncode == 0, state.stdout + state.stderr
    shutil.rmtree(root / "build")  # verify's reports: not the project's
    main_tip = git(root, "rev-parse", "main")
    cut = subprocess.run(  # the next series: no file to move on, only the branch to make
        [sys.executable, "-m", "mlrelease", "--root", str(root), "release", "cut", "--version",
         "0.5", "--execute"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert cut.returncode == 0, cut.stdout + cut.stderr
    assert git(root, "rev-parse", "release/0.5") == main_tip == git(root, "rev-parse", "main")
    git(root, "switch", "-q", "main")
    bump = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), "bump", "--part", "patch"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bump.returncode == 0 and "comes from git tags" in bump.stderr
    assert "Version is now" not in bump.stderr


def test_hatch_version_path(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n'
            '[tool.hatch.version]\npath = "src/pkg/__about__.py"\n',
            "src/pkg/__about__.py": '__version__ = "5.0.1"\n',
        },
    )
    assert files_of(proposed(root)) == [
        ("src/pkg/__about__.py", '__version__ = "{current_version}"')
    ]


@pytest.mark.parametrize(
    ("tags", "tag", "rc_tag"),
    [
        (
            ["v1.1.0", "v1.2.0-rc1", "v1.2.0"],
            "v{major}.{minor}.{patch}",
            "v{major}.{minor}.{patch}-rc{rc}",
        ),
        (
            ["1.1.0", "1.2.0rc1", "1.2.0"],
            "{major}.{minor}.{patch}",
            "{major}.{minor}.{patch}rc{rc}",
        ),
        (["v0.9.0"], "v{major}.{minor}.{patch}", "v{major}.{minor}.{patch}rc{rc}"),
    ],
)
def test_tag_scheme(tmp_path: Path, tags: list[str], tag: str, rc_tag: str) -> None:
    version = tags[-1].lstrip("v")
    root = make(
        tmp_path,
        {"pyproject.toml": f'[project]\nname = "pkg"\nversion = "{version}"\n'},
        tags=tuple(tags),
    )
    release = proposed(root)["mlrelease"]["release"]
    assert (release["tag"], release["rc-tag"]) == (tag, rc_tag)


def test_release_model(tmp_path: Path) -> None:
    root = make(tmp_path, {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.3.0.dev0"\n'})
    assert proposed(root)["mlrelease"]["release"]["model"] == "trunk"
    git(root, "branch", "release/1.2")
    release = proposed(root)["mlrelease"]["release"]
    assert (release["model"], release["branch"]) == ("branch", "release/{major}.{minor}")
    git(root, "branch", "-m", "release/1.2", "rel-1.2")
    assert proposed(root)["mlrelease"]["release"]["branch"] == "rel-{major}.{minor}"


def test_release_branches_the_releases_stopped_being_made_on(tmp_path: Path) -> None:
    """onnxmltools: r1.6 and r1.7 hold commits of their own (2020), and every release since,
    up to 1.14.0, is tagged on main: 1.15.0 was released on main, as init now proposes
    (``r`` branches were not read, then read as the branch model). A branch of the newest
    series keeps the branch model."""
    root = make(tmp_path, {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.14.0"\n'})
    for name in ("r1.6", "r1.7"):
        git(root, "switch", "-q", "-c", name)
        git(root, "commit", "-q", "--allow-empty", "-m", f"Set version number to {name[1:]}")
        git(root, "switch", "-q", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "Update version to 1.14.0")
    git(root, "tag", "1.14.0")
    release = proposed(root)["mlrelease"]["release"]
    assert (release["model"], release["branch"]) == ("trunk", "r{major}.{minor}")
    git(root, "branch", "r1.14")
    assert proposed(root)["mlrelease"]["release"]["model"] == "branch"


def test_release_branches_kept_beside_tags_on_main_are_no_branch_model(tmp_path: Path) -> None:
    """tensorflow-onnx: v1.16.0 and v1.16.1 tagged on main, r1.16 and r1.16.1 made at them
    (markers, no commit main lacks): 1.17.0 was released on main, as init now proposes (it
    proposed the branch model). A branch of the newest series with a commit of its own, and
    its release tagged there, keeps the branch model."""
    root = make(tmp_path, {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.16.0"\n'})
    for version, branch in (("1.16.0", "r1.16"), ("1.16.1", "r1.16.1")):
        git(root, "commit", "-q", "--allow-empty", "-m", f"Update VERSION_NUMBER to {version}")
        git(root, "tag", f"v{version}")
        git(root, "branch", branch)
        git(root, "commit", "-q", "--allow-empty", "-m", "Fix the converter")
    release = proposed(root)["mlrelease"]["release"]
    assert release["model"] == "trunk", release
    git(root, "switch", "-q", "r1.16.1")
    git(root, "commit", "-q", "--allow-empty", "-m", "Set version number to 1.16.2")
    git(root, "tag", "v1.16.2")
    git(root, "switch", "-q", "main")
    assert proposed(root)["mlrelease"]["release"]["model"] == "branch"


@pytest.mark.parametrize(
    ("files", "kind"),
    [
        ({"pkg/__init__.py": ""}, "pure"),
        ({"pkg/_ops.cpp": "int f() { return 1; }\n"}, "native"),
        (  # extension modules with nothing to compile (torchdata): one pure wheel
            {"setup.py": "from setuptools import Extension, setup\nsetup(ext_modules=[])\n"},
            "pure",
        ),
        ({"CMakeLists.txt": "project(x)\n"}, "native"),
    ],
)
def test_pure_or_native(tmp_path: Path, files: dict[str, str], kind: str) -> None:
    pyproject = '[project]\nname = "pkg"\nversion = "1.0.0"\nrequires-python = ">=3.10"\n'
    root = make(tmp_path, {"pyproject.toml": pyproject, **files})
    wheels = proposed(root)["mlrelease"]["wheels"]
    assert wheels["kind"] == kind
    if kind == "pure":  # one py3-none-any wheel: no platform matrix is required of it
        assert wheels["required-platforms"] == []
    else:  # what cibuildwheel builds for it now
        assert "manylinux_x86_64" in wheels["required-platforms"]


def test_scikit_build_core_backend_is_native(tmp_path: Path) -> None:
    pyproject = (
        '[build-system]\nrequires = ["scikit-build-core"]\nbuild-backend = '
        '"scikit_build_core.build"\n[project]\nname = "pkg"\nversion = "1.0.0"\n'
        'requires-python = ">=3.10"\n'
    )
    root = make(tmp_path, {"pyproject.toml": pyproject})
    assert proposed(root)["mlrelease"]["wheels"]["kind"] == "native"


def test_changelog_tests_docs_and_onnx(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "pkg"\nversion = "1.0.0"\ndependencies = ["onnx>=1.16"]\n'
    bare = make(tmp_path / "a", {"pyproject.toml": pyproject})
    _, _, err = init(bare)
    tool = proposed(bare)
    assert tool["mlrelease"]["gates"] == ["git_state", "versions", "wheels"]
    assert "changelog" not in tool["mlrelease"] and "gate-options" not in tool["mlrelease"]
    assert "CHANGELOG.md" in " ".join(err.split())  # proposed as a new file, never written
    assert "compat is left out: the project uses onnx" in " ".join(err.split())
    full = make(
        tmp_path / "b",
        {
            "pyproject.toml": pyproject,
            "CHANGES.rst": "Changes\n=======\n\n1.0.0\n-----\n\n- first\n",
            "tests/test_pkg.py": "def test_one():\n    assert True\n",
            "doc/conf.py": "project = 'pkg'\n",
        },
    )
    tool = proposed(full)
    assert tool["mlrelease"]["gates"] == ["git_state", "versions", "changelog", "wheels", "tests"]
    assert tool["mlrelease"]["changelog"] == "CHANGES.rst"
    assert tool["mlrelease"]["gate-options"]["tests"]["command"] == ["python", "-m", "pytest", "-q"]
    assert tool["mlrelease"]["docs"]["source"] == "doc"


def test_execute_writes_only_pyproject_then_verify_passes(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pyproject.toml": SETUPTOOLS
            + '[project]\nname = "pkg"\ndynamic = ["version"]\n'
            + '[tool.setuptools.dynamic]\nversion = {attr = "pkg.__version__"}\n',
            "pkg/__init__.py": '__version__ = "1.4.0"\n',
            "CHANGELOG.md": "# Changelog\n\n## 1.4.0\n\n- first\n",
            "tests/test_pkg.py": "def test_one():\n    assert True\n",
        },
        tags=("v1.3.0", "v1.4.0"),
    )
    before = (root / "pyproject.toml").read_text()
    assert init(root)[0] == 0  # dry run
    assert git(root, "status", "--porcelain") == ""
    assert init(root, "--execute")[0] == 0
    assert git(root, "status", "--porcelain") == "M pyproject.toml"
    after = (root / "pyproject.toml").read_text()
    assert after.startswith(before)  # appended; the project's own lines are untouched
    code, _, err = init(root, "--execute")  # a second run changes nothing
    assert code == 0 and "already has [tool.mlrelease]" in err
    assert (root / "pyproject.toml").read_text() == after
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    verify = bare_mlrelease(root, "verify")
    assert verify.returncode == 0, verify.stderr
    for gate in ("git_state", "versions", "changelog", "wheels", "tests"):
        assert f"pass  {gate}" in verify.stderr


def test_invoke_init_wraps_it(tmp_path: Path) -> None:
    root = make(tmp_path, {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0.0"\n'})
    invoke = Path(sys.executable).with_name("invoke")
    proc = subprocess.run(
        [str(invoke), "--search-root", str(REPO_ROOT), "init"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "[tool.mlrelease]" in proc.stdout and "Dry run: nothing written" in proc.stderr
    assert git(root, "status", "--porcelain") == ""


def test_a_setup_py_only_project_gets_a_new_pyproject_and_verifies(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "setup.py": "from setuptools import setup\n"
            "setup(name='pkg', version=open('VERSION_NUMBER').read().strip(), packages=['pkg'])\n",
            "VERSION_NUMBER": "1.17.0\n",
            "pkg/__init__.py": "",
        },
        tags=("v1.17.0",),
    )
    assert init(root, "--execute")[0] == 0
    assert git(root, "status", "--porcelain") == "?? pyproject.toml"
    git(root, "add", "pyproject.toml")
    git(root, "commit", "-q", "-m", "chore: adopt mlrelease")
    verify = bare_mlrelease(root, "verify")
    assert verify.returncode == 0, verify.stderr
    assert "pass  wheels" in verify.stderr
