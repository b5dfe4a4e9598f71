"""Versions and their tags (pure): parsing, the tag of a version and the version of a tag,
the project's version model (where the released version comes from), and a version's kind.

Which version each file carries is :mod:`mlrelease.version_files`'s question.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from packaging.version import InvalidVersion, Version

from mlrelease import naming
from mlrelease.errors import ConfigError

# Release tags: v1.4.0 for a final release, v1.4.0-rc2 for its second release candidate.


def parse(version: str, *, key: str = "version", source: str = "pyproject.toml") -> Version:
    """Parse a PEP 440 version; an invalid one is a :class:`ConfigError` naming ``key``."""
    try:
        return Version(version)
    except InvalidVersion:
        raise ConfigError(
            key,
            "a PEP 440 version such as 1.4.0, 1.4.0rc2 or 1.5.0.dev0",
            repr(version),
            source=source,
        ) from None


def version_to_tag(version: str | Version) -> str:
    """``1.4.0`` -> ``v1.4.0``; ``1.4.0rc2`` -> ``v1.4.0-rc2``."""
    v = version if isinstance(version, Version) else Version(version)
    if v.pre is not None:
        if v.pre[0] != "rc" or v.dev is not None or v.post is not None:
            raise ValueError(f"{v} is not a release or a release candidate; it has no tag")
        return f"v{v.base_version}-rc{v.pre[1]}"
    if v.dev is not None or v.post is not None or v.local is not None:
        raise ValueError(f"{v} is not a release or a release candidate; it has no tag")
    return f"v{v.base_version}"


def tag_to_version(tag: str) -> Version | None:
    """``v1.4.0-rc2`` (or any spelling init may propose: ``v1.4.0rc2``, ``1.4.0.rc2``) ->
    ``1.4.0rc2``; None when ``tag`` is not a release tag (:func:`naming.parse_release_tag`)."""
    return naming.parse_release_tag(tag)


def tag_agrees(tagged: Version, files: Version) -> bool:
    """Whether a release tag's version agrees with the version the files carry.

    ``v1.4.0`` needs ``1.4.0``. A release candidate ``v1.4.0-rc2`` agrees with ``1.4.0rc2`` and
    also with ``1.4.0``: RCs that are promoted by copy (PyTorch's model, and mlrelease's release
    flow) are built with the final version, and the final tag lands on the same commit.
    """
    if tagged == files:
        return True
    is_rc = tagged.pre is not None and tagged.pre[0] == "rc"
    return is_rc and files == Version(tagged.base_version)


Source = Literal["files", "scm", "tag"]
"""Where the released version comes from (``[tool.mlrelease] version-source``)."""


@dataclass(frozen=True)
class VersionModel:
    """What the version files promise under a project's version model: the one owner of the
    rules that ``git_state``, ``versions``, ``release cut``/``prepare``/``rc``/``promote``,
    ``release status`` and the wheel builds judge by.

    ``files`` (default): main carries ``X.Y.0.devN`` or the PyTorch family's ``X.Y.0a0`` (the
    plain next version when release candidates are bumps, ``untagged``); a release is prepared
    by setting ``X.Y.Z`` in the files, and a release tag names exactly what its commit's files
    carry. ``tag`` (the PyTorch family): main and the release branch carry a development
    marker (``X.Y.0a0``, ``X.Y.0.devN``) or the bare next version, and the build takes the
    release or RC version from the tag, so no release step edits a version file. ``scm``: no
    file carries it.
    """

    source: Source = "files"
    untagged: bool = False
    """Release candidates are version bumps (``rc-model = "bump"``): main carries ``X.Y.0``."""

    @property
    def files_carry(self) -> bool:
        """Whether a file carries the version: not under ``scm``, where ``current_version`` is
        only the last tag's (as init found it) and the tags are the version, so no branch is
        judged by what it carries."""
        return self.source != "scm"

    @property
    def from_tag(self) -> bool:
        """The release and RC versions come from the tag at build time, never from a bump."""
        return self.source == "tag"

    def development(self, version: Version) -> bool:
        """Whether ``version`` is a development version under this model."""
        if self.from_tag:
            return is_marker(version) or _bare(version)
        return is_development(version) or (self.untagged and _bare(version))

    def on_main(self, version: Version, newest: Version | None) -> bool:
        """Whether main (branch model) may carry ``version``, ``newest`` being the newest final
        release: a development version, or a bare version not below ``newest``: the next
        release (ao and executorch keep it on main; their builds mark nightlies themselves) or,
        until the next one starts, the newest (tensordict). Never a pre- or post-release."""
        return self.development(version) or (_bare(version) and not (newest and version < newest))

    def expected_on_main(self, major: int, minor: int) -> str:
        """What main should carry for the ``major.minor`` development (shown in errors)."""
        return f"{major}.{minor}.0" + ("a0" if self.from_tag else "" if self.untagged else ".dev0")

    def next_development(self, current: Version, major: int, minor: int, bare: bool = False) -> str:
        """What main moves to after ``major.minor`` is cut: the next minor in the marker style
        main carries now (:func:`restyled`: ``2.14.0a0`` -> ``2.15.0a0``; ``1.5.0.dev3`` ->
        ``1.6.0.dev0``; bare -> bare where ``bare`` says main keeps bare versions), or the
        model's own marker when main carries no development version (a trunk's release)."""
        if self.development(current) or (bare and _bare(current)):
            return str(restyled(f"{major}.{minor + 1}.0", current))
        return self.expected_on_main(major, minor + 1)

    def agrees(self, tagged: Version, files: Version) -> bool:
        """Whether a commit whose files carry ``files`` may carry the release tag of
        ``tagged`` (the RC tag's base version for an RC)."""
        if not self.files_carry:
            return True
        if self.from_tag:
            same = files.release[:2] == tagged.release[:2]
            return same and Version(files.base_version) <= Version(tagged.base_version)
        return tag_agrees(tagged, files)

    def releasable(self, files: Version) -> bool:
        """Whether a release candidate may be tagged on files carrying ``files`` (of the right
        series): the final version, or under ``tag`` any development marker or bare version."""
        if self.from_tag:
            return is_marker(files) or _bare(files)
        return _bare(files)

    def release_of(self, files: Version, released: Iterable[Version]) -> Version:
        """The version an RC tagged on ``files`` releases: ``files``' own under ``files``; under
        ``tag`` the first of the series not yet ``released`` (2.13.0, then 2.13.1, ...), and
        under ``scm`` too, where ``files`` is only the newest tag's version (a commit after
        ``v1.1.0`` makes ``1.1.1``, as setuptools-scm's next-version guess does)."""
        version = Version(files.base_version)
        if self.files_carry and not self.from_tag:
            return version
        taken = set(released)
        while version in taken:
            major, minor, micro = (*version.release, 0, 0)[:3]
            version = Version(f"{major}.{minor}.{micro + 1}")
        return version

    def released_here(self, files: Version, tagged: Version | None) -> Version:
        """The version whose changelog section a commit carrying ``files`` needs (``tagged``:
        the release tag on it, if any): the files' own; under ``tag`` the tag's release, and
        on an untagged commit a development version (the ``Unreleased`` section)."""
        if not self.from_tag:
            return files
        if tagged is not None:
            return Version(tagged.base_version)
        return files if files.is_devrelease else Version(f"{files.base_version}.dev0")


def is_alpha_zero(version: Version) -> bool:
    """``X.Y.Za0``: the PyTorch family's development marker of the next version (torchdata's
    main carries ``0.12.0a0`` while ``release/0.11`` is prepared as ``0.11.0``), never a
    release anyone publishes; other alphas (``a1``) are real pre-releases."""
    return (
        version.pre == ("a", 0)
        and version.dev is None
        and version.post is None
        and (not version.local)
    )


def is_development(version: Version) -> bool:
    """A development version: ``X.Y.Z.devN``, or the PyTorch family's ``X.Y.Za0``."""
    return version.is_devrelease or is_alpha_zero(version)


def kind(version: Version) -> str:
    """What a version is, for messages: a development, pre-release, post-release or release
    version."""
    if is_development(version):
        return "a development version"
    if version.is_prerelease:
        return "a pre-release version"
    return "a post-release version" if version.is_postrelease else "a release version"


def restyled(release: str, like: Version) -> Version:
    """``release`` (``X.Y.Z``) in ``like``'s development-marker style, its numbers at 0: the
    same pre-release letter (``a0``, ``b0``, ``rc0``) and development segment (``.dev0``) as
    ``like``, none when ``like`` is bare; a post or local part marks nothing and is dropped.
    The one rule by which a version moves on: every part bump and main after a cut."""
    pre = f"{like.pre[0]}0" if like.pre is not None else ""
    return Version(release + pre + (".dev0" if like.is_devrelease else ""))


def same_style(one: Version, other: Version) -> bool:
    """Whether two versions carry their development marker in the same segments: a
    pre-release (``aN``/``bN``/``rcN``), a development release (``.devN``), both, or none."""
    return (one.pre is None) == (other.pre is None) and one.is_devrelease == other.is_devrelease


def is_marker(version: Version) -> bool:
    """A development marker: ``X.Y.ZaN``/``bN``/``rcN`` or ``X.Y.Z.devN`` with no post or local
    part (the version a PyTorch-family tree carries between releases)."""
    return (version.pre is not None or version.dev is not None) and not (
        version.post is not None or version.local
    )


def _bare(version: Version) -> bool:
    return (
        version.pre is None and version.dev is None and version.post is None and not version.local
    )
