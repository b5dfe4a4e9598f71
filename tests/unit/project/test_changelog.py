"""Changelog sections."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.project import changelog

TEXT = """# Changelog

<!-- insertion marker -->
## [v1.4.0-rc1](https://example.invalid/compare) - 2026-01-01

### Features

## 1.3.0 - 2025-12-01

## [Unreleased]
"""


def test_sections_in_order() -> None:
    assert changelog.sections(TEXT) == ["v1.4.0-rc1", "1.3.0", "Unreleased"]


def test_release_candidate_and_final_sections() -> None:
    assert changelog.has_section(TEXT, Version("1.4.0rc1"))
    assert not changelog.has_section(TEXT, Version("1.4.0rc2"))
    assert changelog.has_section(TEXT, Version("1.3.0"))
    assert changelog.has_section(TEXT, Version("1.3.0rc4"))  # covered by the final section
    assert not changelog.has_section(TEXT, Version("1.2.0"))


def test_dev_versions_need_unreleased() -> None:
    assert changelog.has_section(TEXT, Version("1.5.0.dev0"))
    assert not changelog.has_section("# Changelog\n## 1.0.0\n", Version("1.1.0.dev0"))
