"""`version_files.scan` finds exactly what bump-my-version's own search finds."""

from __future__ import annotations

from pathlib import Path

from helpers.repo import git

from mlrelease import version_files

PYPROJECT = """\
[tool.bumpversion]
current_version = "1.0.0"

[[tool.bumpversion.files]]
filename = "a.py"
search = '__version__ = "{current_version}"'

[[tool.bumpversion.files]]
filename = "b.txt"

[[tool.bumpversion.files]]
filename = "c.txt"

[[tool.bumpversion.files]]
filename = "gone.txt"
"""


def test_scan_reports_lines_values_and_missing_files(tmp_path: Path) -> None:
    import tomllib

    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "a.py").write_text('x = 1\n__version__ = "2.0.0"\n', encoding="utf-8")
    (tmp_path / "b.txt").write_text("opset 21.0.0 only\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("intro\nrelease 1.0.0\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    data = tomllib.loads(PYPROJECT)
    found, problems = version_files.scan(tmp_path, data, "pyproject.toml")
    assert found == [version_files.Occurrence("c.txt", 2, "1.0.0")]
    messages = {p.file: p.message for p in problems}
    assert messages["a.py"].startswith("line 2: found `2.0.0`, expected `1.0.0`")
    # No search pattern: bump-my-version looks for 1.0.0 itself; 21.0.0 is not a version here.
    assert messages["b.txt"].startswith(
        "line 1: bump-my-version's search '1.0.0' (no search pattern) matches inside `21.0.0`"
    )
    assert messages["gone.txt"] == "the file does not exist"
