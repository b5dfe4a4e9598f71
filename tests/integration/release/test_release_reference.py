"""Issue 44: the bound files are what the RC's commit builds. ``release bind`` builds the
reference (the sdist from a clean export of the RC's commit, the wheel from that sdist, with
pypa/build) and compares every candidate file with it whole. Each test is a stale or doctored
``dist/`` that today's proxies (file names, ``.py`` members at ``pkg/`` or ``src/pkg/``) bound.
Real repositories (bare origin, the maintainer's clone, a colleague's), real builds."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.dist import build_dist
from helpers.invariants import RC, binding_refs
from helpers.reference_builds import Members, project, rewrite_sdist, rewrite_wheel, run, write
from helpers.release import GIT_ENV, Repo

from mlrelease.wheels.artifacts import write_sums

WHEEL = "demo-1.4.0-py3-none-any.whl"
SDIST = "demo-1.4.0.tar.gz"


def _to_rc(mlr, repo: Repo, fix: Callable[[Path], None]) -> None:  # type: ignore[no-untyped-def]
    """Cut and prepare 1.4.0, build it into stale/ (the previous build), apply ``fix`` to the
    work tree, commit it on the release branch and tag the RC there."""
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
    ):
        code, _, err = mlr("release", *args)
        assert code == 0, err
    repo.build("build/stale")
    fix(repo.path)
    repo.git("add", "-A", ".")
    repo.git("commit", "-q", "--allow-empty", "-m", "fix: the RC's fix")
    repo.git("push", "-q", "origin", "release/1.4")
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err


def _stale_wheel_fresh_sdist(repo: Repo) -> None:
    """dist/: the wheel of the previous build beside an sdist built at the RC (the wheel jobs
    ran before the fix, the sdist job after)."""
    repo.build("build/fresh")
    dist = repo.path / "dist"
    dist.mkdir()
    shutil.copy(repo.path / "build/stale" / WHEEL, dist)
    shutil.copy(repo.path / "build/fresh" / SDIST, dist)
    write_sums(dist)
    shutil.rmtree(repo.path / "build/stale")
    shutil.rmtree(repo.path / "build/fresh")


def _refused(repo: Repo, colleague: Repo, mlr, *words: str) -> str:  # type: ignore[no-untyped-def]
    """bind refuses, naming ``words``; origin binds nothing."""
    assert repo.status() == ""
    code, out, err = mlr("release", "bind", "--rc", RC, "--execute", "--push")
    assert code == 1, out
    for word in words:
        assert word in err, err
    assert binding_refs(colleague) == {}
    return err


def test_a_stale_wheel_with_old_package_data_is_refused(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The RC's fix is in package data (ops.json): the previous build's wheel carries the old."""
    write(repo.path / "src/demo/ops.json", '{"Add": 13}\n')
    repo.git("add", "src/demo/ops.json")
    repo.git("commit", "-q", "-m", "feat: ops")
    repo.git("push", "-q", "origin", "main")
    _to_rc(mlr, repo, lambda root: write(root / "src/demo/ops.json", '{"Add": 14}\n'))
    _stale_wheel_fresh_sdist(repo)
    _refused(repo, colleague, mlr, WHEEL, "demo/ops.json", "differs from the reference build")


def _pin(root: Path) -> None:
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    line = 'requires-python = ">=3.9"\n'
    write(root / "pyproject.toml", text.replace(line, line + 'dependencies = ["packaging<27"]\n'))


def test_a_stale_wheel_without_the_rcs_pin_is_refused(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The RC's fix is a dependency pin: the previous wheel's Requires-Dist lacks it."""
    _to_rc(mlr, repo, _pin)
    _stale_wheel_fresh_sdist(repo)
    _refused(repo, colleague, mlr, WHEEL, "METADATA Requires-Dist is (none)", '"packaging<27"')


def test_a_stale_wheel_with_a_deleted_module_is_refused(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The RC's fix deletes a module: the previous wheel still ships it."""
    write(repo.path / "src/demo/legacy.py", "import os\nos.system('rm -rf ~')\n")
    repo.git("add", "src/demo/legacy.py")
    repo.git("commit", "-q", "-m", "feat: legacy")
    repo.git("push", "-q", "origin", "main")
    _to_rc(mlr, repo, lambda root: (root / "src/demo/legacy.py").unlink())
    _stale_wheel_fresh_sdist(repo)
    _refused(repo, colleague, mlr, WHEEL, "demo/legacy.py is not in the reference wheel")


def test_a_wheel_that_lost_the_pin_is_refused(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The RC pins a dependency; the wheel's METADATA (its RECORD kept true) lost the pin."""
    _to_rc(mlr, repo, _pin)
    repo.build()
    wheel = repo.path / "dist" / WHEEL
    member = "demo-1.4.0.dist-info/METADATA"

    def unpin(members: Members) -> None:
        members[member] = members[member].replace(b"Requires-Dist: packaging<27\n", b"")

    rewrite_wheel(wheel, unpin)
    _refused(repo, colleague, mlr, WHEEL, "Requires-Dist is (none)", '"packaging<27"')


def test_an_sdist_with_another_pkg_info_version_is_refused(
    repo: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """The jax 0.4.15 incident: an sdist named 1.4.0 whose PKG-INFO says 1.4.0.dev0."""
    _to_rc(mlr, repo, lambda root: None)
    repo.build()
    sdist = repo.path / "dist" / SDIST
    dev = lambda text: text.replace("Version: 1.4.0\n", "Version: 1.4.0.dev0\n")  # noqa: E731
    rewrite_sdist(sdist, "demo-1.4.0/PKG-INFO", dev)
    _refused(repo, colleague, mlr, SDIST, 'PKG-INFO Version is "1.4.0.dev0"', '"1.4.0"')


def _rc(repo: Repo) -> None:
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
        ("rc", "--execute", "--push"),
    ):
        code, out = run(repo, "release", *args)
        assert code == 0, out


def _under_python(files: dict[str, str]) -> None:
    for name in [n for n in files if n.startswith("src/demo/")]:
        files[name.replace("src/", "python/", 1)] = files.pop(name)
    text = files["pyproject.toml"].replace('"src/demo/__init__.py"', '"python/demo/__init__.py"')
    wheel = '\n[tool.hatch.build.targets.wheel]\npackages = ["python/demo"]\n'
    files["pyproject.toml"] = text + wheel


def test_a_stale_wheel_of_a_package_under_python_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The package lives under python/, not src/: the fix of python/demo/core.py is not in the
    previous build's wheel, whose demo/core.py no proxy found in the tree."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = project(tmp_path / "p", _under_python)
    code, out = run(repo, "release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, out
    code, out = run(repo, "release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 0, out
    repo.build("build/stale")
    repo.commit_file("python/demo/core.py", "def answer() -> int:\n    return 7\n", "fix: 7")
    repo.git("push", "-q", "origin", "release/1.4")
    code, out = run(repo, "release", "rc", "--execute", "--push")
    assert code == 0, out
    _stale_wheel_fresh_sdist(repo)
    code, out = run(repo, "release", "bind", "--rc", RC, "--execute", "--push")
    assert code == 1 and WHEEL in out and "demo/core.py differs from the reference" in out, out
    assert repo.origin_git("for-each-ref", "refs/mlrelease") == ""


def _header_outside_the_sdist(files: dict[str, str]) -> None:
    files["include/ops.h"] = "#define OPS 14\n"
    files["pyproject.toml"] += (
        '\n[tool.hatch.build.targets.sdist]\nexclude = ["include/"]\n'
        '\n[tool.hatch.build.targets.wheel.force-include]\n"include/ops.h" = "demo/include/ops.h"\n'
    )


def test_an_sdist_that_does_not_build_a_wheel_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI's path: the wheel built from the tree, the sdist beside it; the sdist lacks the
    header the wheel needs (left out of the sdist, as by a MANIFEST.in without it), so
    ``pip wheel`` of the published sdist fails. The reference build from the sdist proves it."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = project(tmp_path / "h", _header_outside_the_sdist)
    _rc(repo)
    build_dist(repo.path, repo.path / "dist", "--sdist", "--wheel")  # both from the tree
    code, out = run(repo, "release", "bind", "--rc", RC, "--execute", "--push")
    assert code == 1, out
    assert "does not build a wheel, while its tree does" in out and SDIST in out, out
    assert repo.origin_git("for-each-ref", "refs/mlrelease") == ""


@pytest.mark.parametrize("ignore", [".hgignore", ".gitignore"])
def test_an_ignore_file_above_the_build_does_not_decide_the_reference(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ignore: str
) -> None:
    """An adversary given the docs wrote ``syntax: glob / guard.py`` into a ``.hgignore`` in a
    folder above the temporary folder: hatchling walks up to it, so the reference build left out
    the committed ``src/demo/guard.py``, like the maintainer's build beside it, and the two
    matched. The ``.gitignore`` case passes on the code before too (the demo's sdist carries its
    own, found first); it guards the unpacked sdist of a project that has none."""
    import tempfile
    import zipfile

    from mlrelease.wheels import reference

    repo.commit_file("src/demo/guard.py", "GUARD = True\n", "feat: a guard")
    above = tmp_path / "above"
    (above / "tmp").mkdir(parents=True)
    (above / ignore).write_text(
        "syntax: glob\nguard.py\n" if ignore == ".hgignore" else "guard.py\n"
    )
    monkeypatch.setenv("TMPDIR", str(above / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(above / "tmp"))
    built = reference.build(repo.path, repo.git("rev-parse", "HEAD"))
    assert built.wheel is not None, built.broken
    names = zipfile.ZipFile(built.wheel).namelist()
    assert "demo/guard.py" in names, names


HOOK = """\
import os
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name == "wheel":
            hook = os.path.join(tempfile.mkdtemp(), "demo_dev.pth")
            with open(hook, "w") as f:
                f.write("import demo\\n")
            build_data["force_include"][hook] = "demo_dev.pth"
"""


def _only_this_build_has_the_hook(repo: Repo) -> None:
    """This clone's own build has ``demo_dev.pth`` (the test is not vacuous); no wheel of the
    commit's reference build does."""
    import zipfile

    from mlrelease.wheels import reference

    repo.build("build/mine")
    (mine,) = (repo.path / "build/mine").glob("*.whl")
    assert "demo_dev.pth" in zipfile.ZipFile(mine).namelist()
    built = reference.build(repo.path, repo.git("rev-parse", "HEAD"))
    assert built.wheel is not None, built.broken
    for wheel in built.wheels:
        assert "demo_dev.pth" not in zipfile.ZipFile(wheel).namelist(), wheel.name


def test_a_build_switch_of_this_shell_does_not_reach_the_reference(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adversary given the docs: an opt-in hatch hook (``enable-by-default = false``) adds an
    import hook, and ``HATCH_BUILD_HOOKS_ENABLE=1`` in the maintainer's shell turned it on in
    their build and in the reference build alike, so the two matched and the ``.pth`` was
    bound, published and promoted. The reference builds as a fresh CI machine does, without
    the build tools' variables of this shell, and a refusal names the ones it left out."""

    from mlrelease.wheels import reference

    pyproject = (repo.path / "pyproject.toml").read_text(encoding="utf-8")
    opt_in = "\n[tool.hatch.build.hooks.custom]\nenable-by-default = false\n"
    repo.commit_file("hatch_build.py", HOOK, "build: a development import hook")
    repo.commit_file("pyproject.toml", pyproject + opt_in, "build: the hook, off by default")
    monkeypatch.setenv("HATCH_BUILD_HOOKS_ENABLE", "1")
    _only_this_build_has_the_hook(repo)
    assert "HATCH_BUILD_HOOKS_ENABLE" in reference.left_out()


HOME_HOOK = """\
import os
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name == "wheel" and os.path.exists(os.path.expanduser("~/.demo-dev")):
            hook = os.path.join(tempfile.mkdtemp(), "demo_dev.pth")
            with open(hook, "w") as f:
                f.write("import demo\\n")
            build_data["force_include"][hook] = "demo_dev.pth"
"""


def test_configuration_in_the_home_folder_does_not_reach_the_reference(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adversary given the docs: ``~/.pydistutils.cfg`` added a dependency to setuptools'
    metadata, and a ``~/.gitconfig`` attributes file left a committed file out, in the
    maintainer's build and the reference alike (the reference kept HOME). A build that reads
    its home is modelled by a hook that adds an import hook when ``~/.demo-dev`` exists: the
    reference builds with an empty home, as a fresh CI machine does."""

    pyproject = (repo.path / "pyproject.toml").read_text(encoding="utf-8")
    hooked = "\n[tool.hatch.build.hooks.custom]\n"
    repo.commit_file("hatch_build.py", HOME_HOOK, "build: a hook that reads the home folder")
    repo.commit_file("pyproject.toml", pyproject + hooked, "build: the hook")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".demo-dev").write_text("")
    monkeypatch.setenv("HOME", str(home))
    _only_this_build_has_the_hook(repo)
