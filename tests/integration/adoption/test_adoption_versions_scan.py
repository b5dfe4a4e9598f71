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


PARTS = """\
[tool.bumpversion]
current_version = "2.14.0a0"
parse = '(?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)(?:(?P<pre_l>a|b|rc)(?P<pre_n>\\d+))?'
serialize = ["{major}.{minor}.{patch}{pre_l}{pre_n}", "{major}.{minor}.{patch}"]

[tool.bumpversion.parts.pre_l]
values = ["a", "b", "rc", "final"]
optional_value = "final"
""" + "".join(
    f"""
[[tool.bumpversion.files]]
filename = "{name}"
search = "#define T_{part.upper()}_VERSION {{current_{part}}}"
replace = "#define T_{part.upper()}_VERSION {{new_{part}}}"
"""
    for name in ("macros.h", "stale.h", "longer.h")
    for part in ("major", "minor", "patch")
)
"""Split part macros (Torch-TensorRT's macros.h), each searched with bump-my-version's
``{current_<part>}``: one file holding 2.14.0, one left at 2.13.0, one whose minor is 141."""


def test_scan_checks_each_part_macro_against_its_part(tmp_path: Path) -> None:
    import tomllib

    def header(minor: str) -> str:
        lines = ("T_MAJOR_VERSION 2", f"T_MINOR_VERSION {minor}", "T_PATCH_VERSION 0")
        return "".join(f"#define {line}\n" for line in lines)

    (tmp_path / "pyproject.toml").write_text(PARTS, encoding="utf-8")
    for name, minor in (("macros.h", "14"), ("stale.h", "13"), ("longer.h", "141")):
        (tmp_path / name).write_text(header(minor), encoding="utf-8")
    git(tmp_path, "init", "-q")
    found, problems = version_files.scan(tmp_path, tomllib.loads(PARTS), "pyproject.toml")
    lines = {(o.file, o.line) for o in found}
    assert {("macros.h", 1), ("macros.h", 2), ("macros.h", 3)} <= lines
    assert ("stale.h", 2) not in lines and ("longer.h", 2) not in lines
    assert {o.value for o in found} == {"2.14.0a0"}
    messages = {p.file: p.message for p in problems}
    assert messages["stale.h"].startswith(
        "line 2: found `13`, expected `14` ({current_minor}): bump-my-version's search "
        "'#define T_MINOR_VERSION 14' finds nothing"
    )
    assert messages["longer.h"].startswith(
        "line 2: bump-my-version's search '#define T_MINOR_VERSION 14' (its search pattern) "
        "matches inside `#define T_MINOR_VERSION 141`"
    )
    assert len(problems) == 2
