"""Every foundation gate passing and failing on real temporary git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.repo import git

from mlrelease.cli import main

MakeRepo = Callable[..., Path]


def verify(root: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["--root", str(root), "verify", *args])
    data = json.loads(
        (root / "build" / "release-verify" / "report.json").read_text(encoding="utf-8")
    )
    return code, data


def statuses(data: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {r["name"]: r["status"] for r in data["results"]}


def test_all_gates_pass_on_a_consistent_project(make_repo: MakeRepo) -> None:
    root = make_repo()
    code, data = verify(root)
    assert code == 0, data
    assert statuses(data) == dict.fromkeys(
        ("versions", "changelog", "exit_criteria_doc", "tests"), "pass"
    )
    assert data["commit"] == git(root, "rev-parse", "HEAD")
    assert (root / "build" / "release-verify" / "junit.xml").is_file()


def test_versions_mismatch_names_file_value_and_expected(make_repo: MakeRepo) -> None:
    root = make_repo()
    module = root / "src" / "demo" / "__init__.py"
    module.write_text(module.read_text().replace("1.4.0.dev0", "1.4.1.dev0"))
    code, data = verify(root, "--only", "versions")
    assert code == 1
    (gate,) = data["results"]
    assert gate["status"] == "fail"
    assert (
        "`src/demo/__init__.py`: line 3: found `1.4.1.dev0`, expected `1.4.0.dev0`"
        in gate["details"][0]
    )
    report_md = (root / "build" / "release-verify" / "report.md").read_text()
    assert "src/demo/__init__.py" in report_md and "1.4.1.dev0" in report_md
    git(root, "checkout", "--", ".")
    assert verify(root, "--only", "versions")[0] == 0


def test_versions_checks_the_release_tag_on_head(make_repo: MakeRepo) -> None:
    root = make_repo(version="2.0.0rc2", changelog_title="2.0.0")
    git(root, "tag", "v2.0.0-rc2")
    assert verify(root, "--only", "versions")[0] == 0
    git(root, "tag", "v2.0.0-rc3")
    code, data = verify(root, "--only", "versions")
    assert code == 1
    assert "HEAD is tagged `v2.0.0-rc3` (version 2.0.0rc3)" in data["results"][0]["details"][0]


def test_rc_tag_on_final_version_files(make_repo: MakeRepo) -> None:
    """Promote-by-copy: v2.0.0-rc1 and later v2.0.0 name one commit whose files say 2.0.0."""
    root = make_repo(version="2.0.0", changelog_title="2.0.0")
    git(root, "tag", "v2.0.0-rc1")
    git(root, "tag", "v2.0.0")
    assert verify(root, "--only", "versions")[0] == 0
    git(root, "tag", "v2.0.1-rc1")
    code, data = verify(root, "--only", "versions")
    assert code == 1
    assert "`v2.0.1-rc1` (version 2.0.1rc1)" in data["results"][0]["summary"]


def test_versions_missing_file_fails(make_repo: MakeRepo) -> None:
    root = make_repo()
    (root / "src" / "demo" / "__init__.py").unlink()
    code, data = verify(root, "--only", "versions")
    assert (
        code == 1
        and "`src/demo/__init__.py`: the file does not exist" in data["results"][0]["summary"]
    )


def test_changelog_needs_the_release_section(make_repo: MakeRepo) -> None:
    root = make_repo(version="1.4.0", changelog_title="1.3.0")
    code, data = verify(root, "--only", "changelog")
    assert code == 1
    assert "no section for 1.4.0 (sections found: 1.3.0)" in data["results"][0]["summary"]
    changelog = root / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("## 1.3.0", "## [v1.4.0]() - 2026-01-01"))
    assert verify(root, "--only", "changelog")[0] == 0


def test_exit_criteria_doc_detects_a_stale_page(make_repo: MakeRepo) -> None:
    root = make_repo()
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(', "tests"]', "]"))
    code, data = verify(root, "--only", "exit_criteria_doc")
    assert code == 1
    assert "exit-criteria.md is stale" in data["results"][0]["summary"]
    assert main(["--root", str(root), "gates", "doc", "--check"]) == 1
    assert main(["--root", str(root), "gates", "doc", "--execute"]) == 0
    assert main(["--root", str(root), "gates", "doc", "--check"]) == 0
    assert verify(root, "--only", "exit_criteria_doc")[0] == 0


def test_tests_gate_fails_on_a_failing_test(make_repo: MakeRepo) -> None:
    root = make_repo()
    (root / "checks" / "test_broken.py").write_text("def test_broken():\n    assert 1 == 2\n")
    code, data = verify(root, "--only", "tests")
    gate = data["results"][0]
    assert code == 1 and gate["status"] == "fail"
    assert "1 failed, 1 passed" in gate["summary"]
    log = root / gate["evidence"][0]
    assert "assert 1 == 2" in log.read_text()


def test_plugin_gate_skip_passes_unless_strict(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = (
        "from mlrelease.gates import GateResult, gate\n\n"
        "@gate('gpu_only', 'Needs a CUDA device.')\n"
        "def run(ctx):\n    return GateResult.skipped('no CUDA device [tool.mlrelease.gpu]')\n"
    )
    root = make_repo(gates=("versions", "gpu_only"), plugins={"skip_gates": plugin})
    code, data = verify(root)
    assert code == 0 and statuses(data) == {"versions": "pass", "gpu_only": "skip"}
    assert "gpu_only: no CUDA device [tool.mlrelease.gpu]" in capsys.readouterr().err
    code, data = verify(root, "--strict")
    assert code == 1 and statuses(data)["gpu_only"] == "fail"
    assert "required under --strict: no CUDA device" in data["results"][1]["summary"]


def test_broken_gate_is_an_error_not_a_crash(make_repo: MakeRepo) -> None:
    plugin = (
        "from mlrelease.gates import gate\n\n"
        "@gate('boom', 'Always raises.')\n"
        "def run(ctx):\n    raise RuntimeError('kaput')\n"
    )
    root = make_repo(gates=("boom", "versions"), plugins={"boom_gates": plugin})
    code, data = verify(root)
    assert code == 1
    assert statuses(data) == {"boom": "error", "versions": "pass"}
    assert data["results"][0]["summary"] == "RuntimeError: kaput"


def test_shards_merge_to_the_unsharded_verdicts(make_repo: MakeRepo, tmp_path: Path) -> None:
    root = make_repo()
    module = root / "src" / "demo" / "__init__.py"
    module.write_text(module.read_text().replace("1.4.0.dev0", "9.9.9"))  # one failing gate
    code, whole = verify(root)
    assert code == 1
    shard_reports = []
    for i in (1, 2, 3):
        out = tmp_path / f"shard{i}"
        main(["--root", str(root), "verify", "--shard", f"{i}/3", "--report-dir", str(out)])
        shard_reports.append(str(out / "report.json"))
    merged_dir = tmp_path / "merged"
    assert main(["report", "merge", *shard_reports, "-o", str(merged_dir)]) == 1
    merged = json.loads((merged_dir / "report.json").read_text())
    assert statuses(merged) == statuses(whole)
    assert [r["name"] for r in merged["results"]] == whole["gates"]
    assert merged["verdict"] == whole["verdict"] == "fail"


def test_only_and_skip_validate_names(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo()
    assert main(["--root", str(root), "verify", "--only", "version"]) == 2
    assert "Did you mean 'versions'?" in capsys.readouterr().err
    code, data = verify(root, "--skip", "tests", "--skip", "changelog")
    assert code == 0 and list(statuses(data)) == ["versions", "exit_criteria_doc"]


def test_clean_tree_is_left_clean(make_repo: MakeRepo) -> None:
    root = make_repo()
    verify(root)
    assert git(root, "status", "--porcelain") == ""


def test_verify_says_when_git_does_not_ignore_its_reports(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mlrelease init` says "Next: mlrelease verify"; in a project whose .gitignore lacks
    build/, the reports then left the tree with untracked files, and `release cut` refused it
    with "commit or stash them". verify now names the folder and the fix when it writes there."""
    root = make_repo()
    (root / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "chore: ignore caches only")
    note = "note: build/release-verify/ is not ignored by git"
    assert main(["--root", str(root), "verify", "--only", "versions"]) == 0
    said = " ".join("".join(capsys.readouterr()).split())
    assert note in said and "Add build/release-verify/ (or build/) to .gitignore" in said
    assert "set [tool.mlrelease] report-dir to a folder outside" in said  # not read as markup
    assert git(root, "status", "--porcelain") == "?? build/"  # what cut then refused
    outside = tmp_path / "reports"
    assert (
        main(["--root", str(root), "verify", "--only", "versions", "--report-dir", str(outside)])
        == 0
    )
    assert "is not ignored by git" not in "".join(capsys.readouterr())  # not in the work tree
    elsewhere = ["verify", "--only", "versions", "--report-dir", str(root / "reports" / "v")]
    assert main(["--root", str(root), *elsewhere]) == 0
    said = " ".join("".join(capsys.readouterr()).split())  # not build/: its own folder alone
    assert "Add reports/v/ to .gitignore" in said and "build/" not in said.split("note:")[1]
    (root / ".gitignore").write_text("__pycache__/\nbuild/\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "chore: ignore build output")
    assert main(["--root", str(root), "verify", "--only", "versions"]) == 0
    assert "is not ignored by git" not in "".join(capsys.readouterr())
