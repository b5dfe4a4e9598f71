"""Version files by meaning, and the version files as the truth (issue 53): a string equal to
the version is the project's only where the place says so (not a CI entry naming another
project, not a file the build writes and git ignores); a hand edit of the version is named,
with the command that repairs ``current_version``, by every command that refuses for it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import adopted
from helpers.adopted import Copied
from helpers.replayed import TF2ONNX_SETUP, adopt, proposal, push_tf2onnx, push_vision
from helpers.repo import mlrelease


def _said(proc: Any) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def test_a_ci_entry_naming_another_project_is_no_version_file(tmp_path: Path) -> None:
    """tensorflow-onnx tests against ``onnx_version: '1.16.1'``, its own version too: the
    workflows were proposed, and `release prepare --version 1.17.0` rewrote them."""
    repo = push_tf2onnx(tmp_path)
    tool, said = proposal(repo)
    assert [f["filename"] for f in tool["bumpversion"]["files"]] == ["VERSION_NUMBER"]
    assert "unit_test_ci.yml:18: onnx_version names another project" in said, said
    adopt(repo)
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, _said(prepare)
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0"
    assert "onnx_version: '1.16.1'" in repo.git("show", "HEAD:.github/workflows/unit_test_ci.yml")


def test_a_committed_module_the_build_rewrites_is_no_version_file(tmp_path: Path) -> None:
    """tensorflow-onnx commits tf2onnx/version.py, which its setup.py rewrites at each build
    (``version = '1.16.1'`` and the commit): proposed as a version file, and the maintainers'
    1.17.0 left it at 1.16.1, so every command refused their hand edit as a disagreement."""
    repo = push_tf2onnx(tmp_path)
    writes = (
        "\nwith open(os.path.join(TOP_DIR, 'tf2onnx', 'version.py'), 'w') as f:\n"
        "    f.write(f\"version = '{version}'\\ngit_version = 'abc'\\n\")\n"
    )
    repo.path.joinpath("setup.py").write_text(TF2ONNX_SETUP + writes, encoding="utf-8")
    repo.path.joinpath("tf2onnx/version.py").write_text(
        "version = '1.16.1'\ngit_version = 'abc'\n", encoding="utf-8"
    )
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "Prepare updates for release 1.16.1.")
    tool, said = proposal(repo)
    assert [f["filename"] for f in tool["bumpversion"]["files"]] == ["VERSION_NUMBER"]
    assert "tf2onnx/version.py: never a version file: setup.py writes it" in said, said


def test_a_version_module_the_build_writes_is_no_version_file(tmp_path: Path) -> None:
    """torchvision's setup.py writes the git-ignored torchvision/version.py: on a built tree
    it was proposed, and on a clean clone the `versions` gate failed."""
    repo = push_vision(tmp_path)
    built = "__version__ = '0.18.0a0+1a2b3c4'\ngit_version = '1a2b3c4d5e6f'\n"
    (repo.path / "torchvision/version.py").write_text(built, encoding="utf-8")
    tool, said = proposal(repo)
    assert [f["filename"] for f in tool["bumpversion"]["files"]] == ["version.txt"]
    assert "torchvision/version.py" in said and "setup.py writes it" in said, said
    adopt(repo)
    repo.git("clean", "-q", "-f", "-d", "-X")  # a clean clone's tree
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    assert verify.returncode == 0, _said(verify)


def test_a_sphinx_conf_saying_the_version_is_proposed_and_bumped(tmp_path: Path) -> None:
    """``release = "1.16.1"`` in docs/conf.py says the project's version: the release bumps
    it, or the release's docs site says the old one."""
    repo = push_tf2onnx(tmp_path)
    conf = 'project = "tf2onnx"\nrelease = "1.16.1"\nextensions = []\n'
    repo.commit_file("docs/conf.py", conf, "docs: a site")
    repo.commit_file("docs/index.rst", "tf2onnx\n=======\n", "docs: an index")
    repo.git("push", "-q", "origin", "main")
    tool, _ = proposal(repo)
    assert "docs/conf.py" in [f["filename"] for f in tool["bumpversion"]["files"]]
    adopt(repo)
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, _said(prepare)
    assert 'release = "1.17.0"' in repo.git("show", "HEAD:docs/conf.py")


_OWN_TABLE = {
    "tables": '[[tool.bumpversion.files]]\nfilename = "VERSION_NUMBER"\n',
    "inline": 'files = [{filename = "VERSION_NUMBER"}]\n',
}


def _with_own_table(tmp_path: Path, files: str, version: str = "1.16.1") -> Any:
    """tensorflow-onnx with its own ``[tool.bumpversion]`` (bump-my-version's default parse,
    ``files`` as given), and a Sphinx docs/conf.py that says the version."""
    repo = push_tf2onnx(tmp_path)
    pyproject = repo.path.joinpath("pyproject.toml").read_text(encoding="utf-8")
    table = f'\n[tool.bumpversion]\ncurrent_version = "{version}"\n' + files
    repo.commit_file("pyproject.toml", pyproject + table, "chore: bump-my-version")
    if version != "1.16.1":
        repo.commit_file("VERSION_NUMBER", version + "\n", "Prepare updates")
    repo.commit_file("docs/conf.py", f'project = "tf2onnx"\nrelease = "{version}"\n', "docs")
    repo.commit_file("docs/index.rst", "tf2onnx\n=======\n", "docs: an index")
    repo.git("push", "-q", "origin", "main")
    return repo


def test_a_version_file_the_projects_own_table_misses_is_added_and_bumped(
    tmp_path: Path,
) -> None:
    """A project with its own [tool.bumpversion]: init kept it as it is, so the docs/conf.py
    it had found carrying the version (its findings said so) was never bumped, and the
    release's docs site said the old version. Its entry is appended to the table's files."""
    repo = _with_own_table(tmp_path, _OWN_TABLE["tables"])
    tool, said = proposal(repo)
    assert [f["filename"] for f in tool["bumpversion"]["files"]] == ["docs/conf.py"], said
    assert "docs/conf.py: carries the version, and no [[tool.bumpversion.files]]" in said, said
    adopt(repo)
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, _said(prepare)
    assert 'release = "1.17.0"' in repo.git("show", "HEAD:docs/conf.py")
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0"


def test_an_inline_files_array_gets_the_entry_named_not_a_broken_file(tmp_path: Path) -> None:
    """``files = [...]`` cannot grow from the end of pyproject.toml (TOML refuses a second
    definition): the entry to add is named, as a TOML inline table that, pasted into the
    array as the note says, makes the release bump docs/conf.py (an adversary pasted the
    JSON it first printed, and pyproject.toml no longer parsed)."""
    repo = _with_own_table(tmp_path, _OWN_TABLE["inline"])
    tool, said = proposal(repo)
    assert "bumpversion" not in tool, tool
    assert "tool.bumpversion.files (an inline array" in said, said
    entry = re.search(r'Add to that array: (\{.*?"\})', said)
    assert entry is not None, said
    adopt(repo)
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    assert verify.returncode == 0, _said(verify)
    path = repo.path / "pyproject.toml"
    inline = _OWN_TABLE["inline"].rstrip("]\n")
    path.write_text(path.read_text().replace(inline, f"{inline}, {entry[1]}"), encoding="utf-8")
    repo.git("commit", "-q", "-am", "chore: docs/conf.py carries the version")
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, _said(prepare)
    assert 'release = "1.17.0"' in repo.git("show", "HEAD:docs/conf.py")


def test_a_parse_that_reads_part_of_the_version_is_named_and_refused(tmp_path: Path) -> None:
    """bump-my-version's default parse reads ``1.17.0`` of ``1.17.0.dev0``: the `versions`
    gate passed, and `release prepare --version 1.17.0` failed saying VERSION_NUMBER carries
    1.17.0, not 1.17.0.dev0. init names the parse, and the gate refuses it with the fix."""
    repo = _with_own_table(tmp_path, _OWN_TABLE["tables"], version="1.17.0.dev0")
    _, said = proposal(repo)
    assert "bump-my-version's default parse reads only '1.17.0' of it" in said, said
    adopt(repo)
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    said = _said(verify)
    assert verify.returncode != 0, said
    assert "tool.bumpversion.current_version" in said and "reads whole" in said, said
    assert "read and written back as '1.17.0'" in said, said


def test_cut_refuses_a_table_it_cannot_bump_before_it_makes_the_branch(tmp_path: Path) -> None:
    """An adversary given the docs: `release cut` planned without a refusal, made the release
    branch, then failed in the bump of a table whose parse does not read current_version:
    a change left behind. The table is checked before the first change."""
    repo = _with_own_table(tmp_path, _OWN_TABLE["tables"], version="1.17.0.dev0")
    adopt(repo)
    cut = mlrelease(repo.path, "release", "cut", "--version", "1.17", "--execute")
    said = _said(cut)
    assert cut.returncode != 0 and "reads whole" in said, said
    assert repo.git("branch", "--list", "release/*") == "", said
    assert repo.git("status", "--porcelain") == ""


def test_a_vendored_copy_of_another_project_is_no_version_file(tmp_path: Path) -> None:
    """An adversary given the docs: a vendored ``tinylib`` (pip's ``_vendor/`` layout) whose
    ``__version__`` happened to equal the project's was proposed, and every bump rewrote the
    vendored library's version."""
    repo = push_tf2onnx(tmp_path)
    vendored = '"""tinylib: a vendored copy."""\n__version__ = "1.16.1"\n'
    repo.commit_file("tf2onnx/_vendor/tinylib/__init__.py", vendored, "vendor tinylib")
    repo.git("push", "-q", "origin", "main")
    tool, said = proposal(repo)
    assert [f["filename"] for f in tool["bumpversion"]["files"]] == ["VERSION_NUMBER"], said
    assert (
        "tf2onnx/_vendor/tinylib/__init__.py:2: a copy of another project (under _vendor/)" in said
    )


BUMPVERSION_CFG = """\
[bumpversion]
current_version = 1.16.1

[bumpversion:file:VERSION_NUMBER]

[bumpversion:file:README.md]
search = tf2onnx=={current_version}
replace = tf2onnx=={new_version}
"""


def _prepared_without_the_cfg(repo: Any) -> None:
    """``.bumpversion.cfg`` deleted, committed and pushed, then 1.17.0 prepared by the table."""
    repo.git("rm", "-q", ".bumpversion.cfg")
    repo.git("commit", "-q", "-m", "chore: the version by pyproject.toml alone")
    repo.git("push", "-q", "origin", "main")
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    assert prepare.returncode == 0, _said(prepare)


def test_another_bumpversion_config_is_carried_then_refused_until_it_is_gone(
    tmp_path: Path,
) -> None:
    """An adversary given the docs: the project's own .bumpversion.cfg moved README.md's
    install pin. init proposed the .cfg itself as a version file and dropped what it listed:
    `bump` said the version was 0.4.0 and left the pin, and the .cfg, now ahead of README.md,
    broke the project's own bump-my-version. init carries its entries; the `versions` gate
    refuses the .cfg while it configures bump-my-version; without it, the pin moves."""
    repo = push_tf2onnx(tmp_path)
    repo.commit_file("README.md", "pip install tf2onnx==1.16.1\n", "docs: install")
    repo.commit_file(".bumpversion.cfg", BUMPVERSION_CFG, "chore: bump-my-version")
    repo.git("push", "-q", "origin", "main")
    beside = repo.path / "pyproject.toml"
    table = '\n[tool.bumpversion]\ncurrent_version = "1.16.1"\n'
    beside.write_text(beside.read_text(encoding="utf-8") + table, encoding="utf-8")
    _, said = proposal(repo)  # both: the table is kept, and the .cfg named
    assert ".bumpversion.cfg configures bump-my-version too" in said, said
    repo.git("checkout", "--", "pyproject.toml")
    tool, said = proposal(repo)
    files = tool["bumpversion"]["files"]
    assert [f.get("filename") for f in files] == ["VERSION_NUMBER", "README.md"], said
    assert files[1]["search"] == "tf2onnx=={current_version}"
    assert ".bumpversion.cfg configures bump-my-version: its 2 file entries are carried" in said
    adopt(repo)
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    said = _said(verify)
    assert verify.returncode != 0 and "`.bumpversion.cfg`: configures bump-my-version" in said
    _prepared_without_the_cfg(repo)
    assert repo.git("show", "HEAD:README.md") == "pip install tf2onnx==1.17.0"
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0"


def test_a_file_another_config_names_by_a_glob_is_listed_once(tmp_path: Path) -> None:
    """An adversary given the docs: a ``.bumpversion.cfg`` glob section was carried, and each
    file it matched was listed again by name, so bump-my-version rewrote it twice, found no
    old version the second time and failed every bump and cut."""
    repo = push_tf2onnx(tmp_path)
    cfg = "[bumpversion]\ncurrent_version = 1.16.1\n\n[bumpversion:glob:VERSION_*]\n"
    repo.commit_file(".bumpversion.cfg", cfg, "chore: bump-my-version")
    repo.git("push", "-q", "origin", "main")
    tool, said = proposal(repo)
    assert tool["bumpversion"]["files"] == [{"glob": "VERSION_*"}], said
    adopt(repo)
    _prepared_without_the_cfg(repo)
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0"


def test_a_two_number_version_is_named_with_its_three_number_spelling(tmp_path: Path) -> None:
    """An adversary given the docs: ``current_version = 1.2`` (``serialize = {major}.{minor}``)
    was proposed with a parse of X.Y.Z and no word of it; every gate and bump then refused
    the table init had written. init names the version and the spelling to set."""
    repo = push_tf2onnx(tmp_path)
    repo.commit_file("VERSION_NUMBER", "1.17\n", "Prepare updates for release 1.17.")
    repo.git("push", "-q", "origin", "main")
    tool, said = proposal(repo)
    assert tool["bumpversion"]["current_version"] == "1.17", said
    assert "the version 1.17 is not X.Y.Z" in said and "(for 1.17: 1.17.0)" in said, said


REPAIR = "mlrelease bump --sync --execute"


def test_a_hand_edit_of_the_version_is_named_with_its_repair(copied: Copied) -> None:
    """The maintainers set VERSION_NUMBER to 1.17.0rc1 by hand; [tool.bumpversion]
    current_version stayed 1.16.1. The files are the truth: verify, rc and bump each name
    the stale key and the command that repairs it, which makes every command work again."""
    repo = copied(adopted.tf2onnx)
    repo.commit_file("VERSION_NUMBER", "1.17.0rc1\n", "Prepare updates for release 1.17.0rc1.")
    for command in (
        ("verify", "--only", "versions"),
        ("release", "rc"),
        ("bump", "--part", "pre"),
    ):
        proc = mlrelease(repo.path, *command)
        said = _said(proc)
        assert proc.returncode != 0, (command, said)
        assert "current_version" in said and "1.16.1" in said and "1.17.0rc1" in said, said
        assert REPAIR in said, (command, said)
    dry = mlrelease(repo.path, "bump", "--sync")
    assert dry.returncode == 0 and "1.16.1 -> 1.17.0rc1" in _said(dry), _said(dry)
    assert 'current_version = "1.16.1"' in (repo.path / "pyproject.toml").read_text()
    repaired = mlrelease(repo.path, *REPAIR.split()[1:])
    assert repaired.returncode == 0, _said(repaired)
    assert repo.git("status", "--porcelain") == "M pyproject.toml"
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    assert verify.returncode == 0, _said(verify)


@pytest.mark.parametrize("prepared_first", [True, False], ids=["key-at-release", "key-behind"])
def test_prepare_starts_from_the_version_files_after_a_hand_edit(
    copied: Copied, prepared_first: bool
) -> None:
    """tensorflow-onnx: the maintainers set VERSION_NUMBER to 1.17.0rc1 by hand, and
    current_version stayed (1.17.0 after an earlier prepare, or 1.16.1). `release prepare
    --version 1.17.0` compared with current_version: it said there was nothing to do, or
    bump-my-version found no 1.16.1 to rewrite. The files are the truth: prepare names the
    hand edit and sets the files and current_version to 1.17.0."""
    repo = copied(adopted.tf2onnx)
    if prepared_first:
        first = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
        assert first.returncode == 0, _said(first)
    repo.commit_file("VERSION_NUMBER", "1.17.0rc1\n", "Prepare updates for release 1.17.0rc1.")
    repo.git("push", "-q", "origin", "main")
    prepare = mlrelease(repo.path, "release", "prepare", "--version", "1.17.0", "--execute")
    said = _said(prepare)
    assert prepare.returncode == 0, said
    assert "1.17.0rc1 (edited by hand)" in said, said
    assert repo.git("show", "HEAD:VERSION_NUMBER") == "1.17.0"
    assert 'current_version = "1.17.0"' in repo.git("show", "HEAD:pyproject.toml")
    verify = mlrelease(repo.path, "verify", "--only", "versions")
    assert verify.returncode == 0, _said(verify)
