"""Issue 48, the reference is the commit whatever the clone: the tree is exported from git
objects (no filter, no attribute outside the commit, no eol conversion, no configuration from
the environment), submodules at their recorded commits, committed ``export-ignore`` not applied
to the tree the build sees, the commit's hash there for a build that writes it; and nothing the
build could write is trusted (the cache under ``.git/mlrelease/reference``). Real repositories
(a bare origin, the maintainer's clone, a colleague's), real builds."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.dist import build_dist
from helpers.reference_builds import (
    RC,
    SDIST,
    WHEEL,
    bound,
    commit,
    git_env,
    refused,
    run,
    smudge_from_environment,
    to_rc,
    write,
)
from helpers.release import Repo, copy_repo

from mlrelease.wheels.artifacts import write_sums

SEVEN = "def answer() -> int:\n    return 7\n"


@pytest.fixture
def demo(_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The demo project on main, pushed: the test's own copy of the release tests' template."""
    git_env(monkeypatch)
    return copy_repo(_template, tmp_path / "p")


def _tampered(repo: Repo) -> None:
    """dist/: the RC's files built from a tree whose ``answer`` returns 7 (no commit has it)."""
    tree = repo.path.parent / "tampered"
    shutil.copytree(repo.path, tree, ignore=shutil.ignore_patterns(".git", "dist", "build"))
    (tree / "src/demo/core.py").write_text(SEVEN, encoding="utf-8")
    build_dist(tree, repo.path / "dist")


def test_a_smudge_filter_from_the_environment_does_not_make_the_reference(
    demo_at_rc: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A smudge filter set through ``GIT_CONFIG_COUNT`` (which the git edge keeps, as CI passes
    credentials) and an attribute in ``.git/info/attributes``: ``git archive`` wrote the
    tampered ``answer`` into the reference, which then matched the tampered files."""
    demo = demo_at_rc
    _tampered(demo)
    write(demo.path / ".git/info/attributes", "src/demo/core.py filter=fix\n")
    smudge_from_environment(monkeypatch, "sed s/42/7/")
    refused(demo, "demo/core.py", "differs from the reference build")


def test_an_export_ignore_outside_the_commit_does_not_hide_a_file(demo: Repo) -> None:
    """The RC's fix adds ``src/demo/guard.py``; ``.git/info/attributes`` marks it
    ``export-ignore``, so the reference lacked it and the previous build matched."""
    to_rc(demo, lambda root: write(root / "src/demo/guard.py", "CHECK = True\n"), "dist")
    write(demo.path / ".git/info/attributes", "src/demo/guard.py export-ignore\n")
    refused(demo, WHEEL, "demo/guard.py", "missing")


def test_a_clone_with_autocrlf_binds_a_correct_release(demo_at_rc: Repo, tmp_path: Path) -> None:
    """Git for Windows' default, ``core.autocrlf=true``: the clone's checkout has CRLF lines,
    CI's build (a colleague's clean clone here) LF; the files are the commit's."""
    demo = demo_at_rc
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--branch", RC, str(demo.origin), str(ci)], check=True)
    build_dist(ci, demo.path / "dist")
    demo.git("config", "core.autocrlf", "true")
    for path in (demo.path / "src/demo").glob("*.py"):
        path.unlink()
    demo.git("checkout", "--", "src/demo")
    assert b"\r\n" in (demo.path / "src/demo/core.py").read_bytes()
    assert demo.status() == ""
    bound(demo)


def _ident_after_the_files(root: Path) -> None:
    """A ``.gitattributes`` committed with the files it applies to: the working tree keeps what
    was written before (``$Id$``), a checkout writes ``$Id: <blob> $``; git status is clean."""
    write(root / "src/demo/core.py", "# $Id$\ndef answer() -> int:\n    return 42\n")
    write(root / ".gitattributes", "src/demo/core.py ident\n")


def test_a_working_tree_no_checkout_writes_is_named_with_a_repair_that_works(
    demo: Repo, tmp_path: Path
) -> None:
    """An adversary given the docs: a committed ``ident`` attribute newer than the maintainer's
    working tree. bind refused rightly, and advised building into an empty folder, which
    refused again, forever. It now names the files a checkout writes otherwise, and the
    repair it advises binds."""
    to_rc(demo, _ident_after_the_files)
    assert demo.status() == ""
    build_dist(demo.path, demo.path / "dist")
    refused(demo, f"{RC} writes: src/demo/core.py differ from a fresh checkout", "reset --hard")
    shutil.rmtree(demo.path / "dist")
    demo.git("rm", "--cached", "-r", "-q", ".")
    demo.git("reset", "-q", "--hard", RC)
    assert "$Id: " in (demo.path / "src/demo/core.py").read_text()
    build_dist(demo.path, demo.path / "dist")
    bound(demo)


def test_a_package_vendored_through_a_submodule_binds(demo: Repo, tmp_path: Path) -> None:
    """``src/demo/_vendor/tiny`` is a git submodule: the clone has it checked out, the build
    ships it, and the reference exports it at the commit the RC records."""
    vendored = tmp_path / "tiny"
    write(vendored / "tiny/__init__.py", "VALUE = 1\n")
    for args in (("init", "-q", "-b", "main"), ("add", "."), ("commit", "-q", "-m", "tiny")):
        subprocess.run(["git", *args], cwd=vendored, check=True, capture_output=True)
    demo.git(
        "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(vendored),
        "src/demo/_vendor",
    )  # fmt: skip
    commit(demo, "feat: vendor tiny")
    demo.git("push", "-q", "origin", "main")
    to_rc(demo)
    build_dist(demo.path, demo.path / "dist")
    _, manifest = bound(demo)
    assert WHEEL in {f["name"] for f in manifest["files"]}  # type: ignore[union-attr, index]


def test_a_submodule_with_no_gitmodules_entry_is_named_as_such(demo: Repo) -> None:
    """The commit records a submodule (a gitlink) and no ``.gitmodules`` entry for it. bind
    advised `git submodule update --init --recursive`, which fails ("No url found for submodule
    path", an adversary given the docs); now it names the missing entry."""
    head = demo.git("rev-parse", "HEAD")
    demo.git("update-index", "--add", "--cacheinfo", f"160000,{head},src/demo/_vendor")
    demo.git("commit", "-q", "-m", "feat: vendor by a bare link")
    (demo.path / "src/demo/_vendor").mkdir()  # an uninitialised submodule, as a clone has it
    demo.git("push", "-q", "origin", "main")
    to_rc(demo)
    build_dist(demo.path, demo.path / "dist")
    out = refused(demo, "src/demo/_vendor", ".gitmodules has no entry for that path")
    assert "submodule update --init" not in out, out


def _torch_pattern(root: Path) -> None:
    """torch's and torchvision's setup.py: the commit's hash, from ``git rev-parse HEAD``, is
    written into ``version.py`` (git-ignored) by every build."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    text = text.replace(
        'requires = ["hatchling"]\nbuild-backend = "hatchling.build"',
        'requires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"',
    )
    text += '\n[tool.setuptools]\npackage-dir = {"" = "src"}\npackages = ["demo"]\n'
    write(root / "pyproject.toml", text)
    write(
        root / "setup.py",
        "import subprocess\nfrom pathlib import Path\n\nfrom setuptools import setup\n\n"
        "here = Path(__file__).parent\nsha = 'Unknown'\ntry:\n"
        "    sha = subprocess.check_output(['git', 'rev-parse', 'HEAD'], cwd=here, "
        "stderr=subprocess.DEVNULL).decode().strip()\nexcept Exception:\n    pass\n"
        "(here / 'src/demo/version.py').write_text(f'git_version = {sha!r}\\n')\nsetup()\n",
    )
    write(root / ".gitignore", "build/\ndist/\n__pycache__/\nsrc/demo/version.py\n*.egg-info/\n")


def test_a_setup_py_that_writes_the_commit_hash_binds(demo: Repo) -> None:
    """CI builds in its checkout (``python -m build``): the sdist's ``version.py`` carries the
    RC's commit hash. The reference was built from an export without git, so it said
    ``Unknown`` and refused the correct files."""
    _torch_pattern(demo.path)
    commit(demo, "build: write the commit hash into version.py")
    demo.git("push", "-q", "origin", "main")
    to_rc(demo)
    build_dist(demo.path, demo.path / "dist")
    sha = demo.git("rev-parse", "HEAD")
    import tarfile

    with tarfile.open(demo.path / "dist" / SDIST) as sdist:
        member = sdist.extractfile("demo-1.4.0/src/demo/version.py")
        assert member is not None and sha in member.read().decode()
    bound(demo)


def test_a_committed_export_ignore_for_tests_binds(demo: Repo) -> None:
    """``tests/ export-ignore`` (kept out of GitHub's source tarballs) is committed; hatchling's
    sdist ships tests/. The reference was built from ``git archive``, without them."""
    write(demo.path / ".gitattributes", "tests/ export-ignore\n")
    write(
        demo.path / "tests/test_core.py",
        "from demo.core import answer\n\n\ndef test_answer():\n    assert answer() == 42\n",
    )
    commit(demo, "test: the answer")
    demo.git("push", "-q", "origin", "main")
    to_rc(demo)
    build_dist(demo.path, demo.path / "dist")
    bound(demo)


def test_a_reference_written_into_the_cache_by_a_build_is_not_trusted(demo_at_rc: Repo) -> None:
    """A build step (the project's own, run in the clone before bind) writes
    ``.git/mlrelease/reference/<commit>``: the tampered files as "what the commit builds"."""
    demo = demo_at_rc
    _tampered(demo)
    sha = demo.git("rev-parse", f"{RC}^{{commit}}")
    cache = demo.path / ".git/mlrelease/reference" / sha
    cache.mkdir(parents=True)
    for path in (demo.path / "dist").iterdir():
        shutil.copy(path, cache)
    state = {"sdist": SDIST, "wheel": WHEEL, "seconds": 1.0}
    (cache / "reference.json").write_text(json.dumps(state), encoding="utf-8")
    write_sums(demo.path / "dist")
    refused(demo, "demo/core.py", "differs from the reference build")


def test_publish_reads_the_cache_only_when_the_bound_manifest_vouches_for_it(
    demo_built: Repo, index: tuple[str, Path]
) -> None:
    """After bind, a build step rewrites the cached reference of the RC's commit (another
    tree's files): publish read it and refused the bound files. The cache's digest is not the
    one the manifest on origin records, so publish builds the reference again, and the bound
    files reach the index (pypiserver on 127.0.0.1)."""
    url, packages = index
    demo = demo_built
    _, manifest = bound(demo)
    assert run(demo, "verify")[0] == 0
    sha = demo.git("rev-parse", f"{RC}^{{commit}}")
    cache = demo.path / ".git/mlrelease/reference" / sha
    assert (cache / "reference.json").is_file()
    tampered = demo.path.parent / "tampered-dist"
    shutil.move(demo.path / "dist", tampered)
    _tampered(demo)
    for name in (WHEEL, SDIST):
        for cached in cache.rglob(name):
            shutil.copy(demo.path / "dist" / name, cached)
    shutil.rmtree(demo.path / "dist")
    shutil.move(tampered, demo.path / "dist")
    code, out = run(demo, "release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, out
    bound_files = {f["name"]: f["sha256"] for f in manifest["files"]}  # type: ignore[union-attr, index]
    held = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in packages.iterdir()}
    assert held == bound_files
    assert manifest.get("reference"), manifest  # the digest publish checked the cache against
