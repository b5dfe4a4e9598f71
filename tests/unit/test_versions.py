"""Version strings: tags, bump-my-version search patterns, scanning files."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from mlrelease import versions


@pytest.mark.parametrize(
    ("tag", "version"),
    [("v1.4.0", "1.4.0"), ("v1.4.0-rc2", "1.4.0rc2"), ("v0.10.3-rc11", "0.10.3rc11")],
)
def test_tag_round_trip(tag: str, version: str) -> None:
    assert versions.tag_to_version(tag) == Version(version)
    assert versions.version_to_tag(version) == tag


@pytest.mark.parametrize("tag", ["1.4.0", "v1.4", "v12.0.0rc1", "release-1.4.0", "v1.4.0-beta1"])
def test_non_release_tags(tag: str) -> None:
    assert versions.tag_to_version(tag) is None


@pytest.mark.parametrize("version", ["1.4.0.dev0", "1.4.0a1", "1.4.0.post1"])
def test_versions_without_tags(version: str) -> None:
    with pytest.raises(ValueError, match="has no tag"):
        versions.version_to_tag(version)


def test_search_regex_plain_and_regex() -> None:
    plain = versions.search_regex('__version__ = "{current_version}"', False)
    assert plain.search('__version__ = "1.2.3rc1"\n')["version"] == "1.2.3rc1"  # type: ignore[index]
    anchored = versions.search_regex('^version = "{current_version}"', True)
    text = 'current_version = "9.9.9"\nversion = "1.0.0"\n'
    assert [m["version"] for m in anchored.finditer(text)] == ["1.0.0"]
    twice = versions.search_regex("{current_version} ({current_version})", False)
    assert twice.search("1.0 (1.0)") and not twice.search("1.0 (2.0)")


def test_scan_reports_lines_and_missing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('x = 1\n__version__ = "2.0.0"\n', encoding="utf-8")
    (tmp_path / "b.txt").write_text("nothing here\n", encoding="utf-8")
    table = {
        "tool": {
            "bumpversion": {
                "current_version": "1.0.0",
                "files": [
                    {"filename": "a.py", "search": '__version__ = "{current_version}"'},
                    {"filename": "b.txt"},
                    {"filename": "gone.txt"},
                ],
            }
        }
    }
    found, problems = versions.scan(tmp_path, table, "pyproject.toml")
    assert found == [versions.Occurrence("a.py", 2, "2.0.0")]
    assert [(p.file, p.message.split()[0]) for p in problems] == [
        ("b.txt", "no"),
        ("gone.txt", "the"),
    ]
    assert versions.mismatches(found, "1.0.0") == found
