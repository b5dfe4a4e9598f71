"""Generated files: one first difference, and one grammar (dry run, --execute, --check)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mlrelease.cli import main
from mlrelease.edges import files
from mlrelease.edges.files import Generated, Mode, first_difference


def test_first_difference_names_the_line() -> None:
    assert first_difference("a\nb\n", "a\nb\n") is None
    assert first_difference("a\nb\n", "a\nc\n") == "line 2: expected 'b', found 'c'"
    assert first_difference("a\nb\n", "a\n") == "line 2: expected 'b', found the end of the file"
    assert first_difference("a\n", "a\nz\n") == "line 2: expected the end of the file, found 'z'"
    assert first_difference("a\n", "a") == "line endings or the final newline differ"


def _parse(*argv: str, wrote_by_default: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    files.add_arguments(parser, wrote_by_default=wrote_by_default)
    return parser.parse_args(argv)


def test_the_grammar() -> None:
    assert files.mode(_parse()) is Mode.DRY_RUN
    assert files.mode(_parse("--execute")) is Mode.EXECUTE
    assert files.mode(_parse("--check")) is Mode.CHECK
    with pytest.raises(SystemExit):
        _parse("--execute", "--check")
    with pytest.raises(SystemExit):
        _parse("--write")  # only where the command wrote by default
    said: list[str] = []
    assert files.mode(_parse("--write", wrote_by_default=True), said.append) is Mode.EXECUTE
    assert said == [files.WRITE_DEPRECATED]


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    page = Generated(tmp_path / "docs" / "page.md", "# Page\n\nnew\n", "docs/page.md")
    (tmp_path / "docs").mkdir()
    page.path.write_text("# Page\n\nold\n", encoding="utf-8")
    said: list[str] = []
    shown: list[str] = []
    code = files.apply([page], Mode.DRY_RUN, command="gen", say=said.append, show=shown.append)
    assert code == 0
    assert page.path.read_text(encoding="utf-8") == "# Page\n\nold\n"
    assert "-old\n+new" in shown[0] and shown[0].startswith("--- docs/page.md")
    assert said == ["Dry run: nothing written. Re-run `gen` with --execute to write."]


def test_check_fails_naming_the_file_and_line_then_execute_writes(tmp_path: Path) -> None:
    page = Generated(tmp_path / "out" / "page.md", "one\ntwo\n", "out/page.md")
    said: list[str] = []
    assert files.apply([page], Mode.CHECK, command="gen", say=said.append) == 1
    assert said == ["out/page.md is stale (missing); run `gen --execute` and commit it."]
    said.clear()
    assert files.apply([page], Mode.EXECUTE, command="gen", say=said.append) == 0
    assert said == ["Wrote out/page.md"] and page.current() == "one\ntwo\n"
    assert not list(page.path.parent.glob("*.mlrelease-tmp"))
    said.clear()
    assert files.apply([page], Mode.EXECUTE, command="gen", say=said.append) == 0
    assert said == ["out/page.md is current; nothing to write."]
    page.path.write_text("one\n2\n", encoding="utf-8")
    said.clear()
    assert files.apply([page], Mode.CHECK, command="gen", say=said.append) == 1
    assert said == [
        "out/page.md is stale (line 2: expected 'two', found '2'); run `gen --execute` "
        "and commit it."
    ]


def test_gates_doc_speaks_the_grammar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mlrelease]\ngates = ['versions']\n", encoding="utf-8"
    )
    page = tmp_path / "docs" / "release" / "exit-criteria.md"
    root = ["--root", str(tmp_path)]
    assert main([*root, "gates", "doc"]) == 0  # until now this wrote the page
    assert not page.exists()
    out, err = capsys.readouterr()
    assert "+| 1 | `versions` |" in out
    assert "wrote by default until now" in err
    assert main([*root, "gates", "doc", "--check"]) == 1
    assert "exit-criteria.md is stale (missing)" in capsys.readouterr().err
    assert main([*root, "gates", "doc", "--write"]) == 0  # the old default, deprecated
    assert page.is_file() and "--write` is deprecated" in capsys.readouterr().err
    assert main([*root, "gates", "doc", "--check"]) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("versions", "versons"))
    assert main([*root, "gates", "doc", "--check"]) == 1
    assert "is stale (line 11: expected" in capsys.readouterr().err
    assert main([*root, "gates", "doc", "--execute"]) == 0
    assert main([*root, "gates", "doc", "--check"]) == 0
