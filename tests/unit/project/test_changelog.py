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


CONVENTIONAL = """# [0.2.0](https://example.invalid/compare/v0.1.1...v0.2.0) (2020-05-01)

### Features

## [0.1.1](https://example.invalid/compare/v0.1.0...v0.1.1) (2020-04-10)

# 0.0.1 (2020-03-31)
"""
"""conventional-changelog's own style (Torch-TensorRT's CHANGELOG.md): minor releases at level
1, patches at level 2, each title a link to the comparison, then the date."""

KEEP_A_CHANGELOG = """# Changelog

## [Unreleased]

## [1.1.0] - 2019-02-15

[Unreleased]: https://example.invalid/compare/v1.1.0...HEAD
"""

TOWNCRIER_MD = """# Release notes

<!-- towncrier release notes start -->

## 23.1.0 (2023-01-15)

### Features
"""


def test_the_changelog_styles_of_the_wild() -> None:
    assert changelog.sections(CONVENTIONAL) == ["0.2.0", "0.1.1", "0.0.1 (2020-03-31)"]
    assert changelog.has_section(CONVENTIONAL, Version("0.2.0"))
    assert changelog.has_section(CONVENTIONAL, Version("0.0.1"))
    assert changelog.sections(KEEP_A_CHANGELOG) == ["Unreleased", "1.1.0"]
    assert changelog.has_section(KEEP_A_CHANGELOG, Version("1.2.0.dev0"))
    assert changelog.sections(TOWNCRIER_MD) == ["23.1.0 (2023-01-15)"]
    assert changelog.has_section(TOWNCRIER_MD, Version("23.1.0rc1"))


def test_a_document_title_is_not_a_section() -> None:
    assert changelog.sections("# Changelog\n\n# Release notes\n") == []
    assert changelog.sections("# Unreleased\n") == ["Unreleased"]


def test_a_subject_is_escaped_once_and_its_code_spans_are_kept() -> None:
    escaped = changelog.escape_subject("a [b](c) <d> *e* f_g `[h](i)`")
    assert escaped == r"a \[b\](c) \<d\> \*e\* f\_g `[h](i)`"
    assert changelog.escape_subject(escaped) == escaped
