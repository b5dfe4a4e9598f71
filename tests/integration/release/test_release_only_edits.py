"""PyTorch RELEASE.md's release-only edits, declared once: after the cut, the release branch
pins its workflow refs (``@main`` -> ``@release/X.Y``) in every workflow a glob matches, in the
one release-edits commit; `release status` shows edits missing on an existing branch; a glob
that matches nothing is a configuration error naming the key."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.release import FILES, Repo, push_demo, run_mlrelease

WORKFLOW_EDIT = """
[[tool.mlrelease.release.edits]]
file = ".github/workflows/*.yml"
search = "@main"
replace = "@{branch}"
"""

WORKFLOWS = {
    ".github/workflows/build.yml": "jobs:\n  b:\n    uses: org/infra/.github/workflows/b@main\n",
    ".github/workflows/test.yml": "jobs:\n  t:\n    uses: org/infra/.github/workflows/t@main\n",
    ".github/workflows/lint.yml": "jobs:\n  l:\n    runs-on: ubuntu-latest\n",
}


def _repo(tmp_path: Path, pyproject: str) -> Repo:
    files = {**FILES, **WORKFLOWS, "pyproject.toml": pyproject}
    work = push_demo(tmp_path, files)
    return Repo(work, tmp_path / "origin.git")


def _with_edit(pyproject: str) -> str:
    # The demo's inline `edits = [...]` and an array of tables cannot both be written: move the
    # demo's two edits into the array-of-tables form, then add the glob edit.
    start = pyproject.index("edits = [")
    end = pyproject.index("]\n", start) + 2
    tables = "".join(
        f'\n[[tool.mlrelease.release.edits]]\nfile = "{f}"\nsearch = "{s}"\nreplace = "{r}"\n'
        for f, s, r in (
            ("README.md", "/blob/main/", "/blob/{branch}/"),
            ("docs/links.md", "?ref=main", "?ref={branch}"),
        )
    )
    return pyproject[:start] + pyproject[end:] + tables + WORKFLOW_EDIT


def test_cut_pins_every_workflow_the_glob_matches_in_one_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path, _with_edit(FILES["pyproject.toml"]))
    proc = run_mlrelease(repo, "release", "cut", "--version", "1.4", "--execute")
    assert proc.returncode == 0, proc.stderr
    for name in (".github/workflows/build.yml", ".github/workflows/test.yml"):
        on_branch = repo.git("show", f"release/1.4:{name}")
        assert "@release/1.4" in on_branch and "@main" not in on_branch
        assert "@main" in repo.git("show", f"main:{name}")  # main keeps its refs
    subject = repo.git("log", "-1", "--format=%s", "release/1.4")
    changed = repo.git("show", "--name-only", "--format=", "release/1.4").split()
    assert subject == "chore(release): release-only edits for release/1.4"
    assert ".github/workflows/build.yml" in changed and ".github/workflows/test.yml" in changed
    assert ".github/workflows/lint.yml" not in changed  # matched, nothing to pin
    tip = repo.git("rev-parse", "release/1.4")
    again = run_mlrelease(repo, "release", "cut", "--version", "1.4", "--execute")
    assert again.returncode == 0, again.stderr  # safe to run twice: nothing more to do
    assert repo.git("rev-parse", "release/1.4") == tip


def test_status_shows_edits_missing_on_an_existing_branch(tmp_path: Path) -> None:
    repo = _repo(tmp_path, FILES["pyproject.toml"])
    assert run_mlrelease(repo, "release", "cut", "--version", "1.4", "--execute").returncode == 0
    repo.git("switch", "-q", "main")
    pyproject = repo.path / "pyproject.toml"
    pyproject.write_text(_with_edit(pyproject.read_text()), encoding="utf-8")
    repo.git("commit", "-qam", "build: pin workflow refs on release branches")
    proc = run_mlrelease(repo, "release", "status", "--version", "1.4.0", "--json")
    assert proc.returncode == 0, proc.stderr
    cut = json.loads(proc.stdout)["next"]["cut"]
    assert "edit .github/workflows/build.yml: '@main' -> '@release/1.4'" in cut, cut
    assert "edit .github/workflows/test.yml" in cut and "lint.yml" not in cut
    missing = json.loads(proc.stdout)["release_edits"]["missing"]
    assert ".github/workflows/build.yml: '@main' -> '@release/1.4'" in missing, missing
    shown = run_mlrelease(repo, "release", "status", "--version", "1.4.0")
    assert "MISSING on release/1.4" in " ".join(shown.stdout.split()), shown.stdout
    assert run_mlrelease(repo, "release", "cut", "--version", "1.4", "--execute").returncode == 0
    proc = run_mlrelease(repo, "release", "status", "--version", "1.4.0", "--json")
    assert json.loads(proc.stdout)["release_edits"]["missing"] == [], proc.stdout


def test_a_glob_that_matches_nothing_names_the_key(tmp_path: Path) -> None:
    pyproject = _with_edit(FILES["pyproject.toml"]).replace(
        ".github/workflows/*.yml", ".github/workflows/*.yaml"
    )
    repo = _repo(tmp_path, pyproject)
    before = repo.git("rev-parse", "HEAD")
    proc = run_mlrelease(repo, "release", "cut", "--version", "1.4", "--execute")
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2, message
    assert "tool.mlrelease.release.edits[2].file" in message and "*.yaml" in message
    assert "Traceback" not in message
    assert (
        repo.git("rev-parse", "HEAD") == before and repo.git("branch", "--list", "release/*") == ""
    )
