"""``[tool.mlrelease.docs]``: where the documentation lives and where frozen versions go."""

from __future__ import annotations

from dataclasses import dataclass

from mlrelease.errors import ConfigError


@dataclass(frozen=True)
class DocsConfig:
    """The ``[tool.mlrelease.docs]`` table."""

    source: str = "docs"
    """The Sphinx source folder (holding ``conf.py``), relative to the project root."""
    build_dir: str = "build/docs"
    """Where ``mlrelease docs build`` writes ``html/`` and ``linkcheck/``."""
    site: str = "build/site"
    """The versioned site: one folder per frozen version plus ``switcher.json``. Point
    ``mlrelease docs freeze --site`` at a checkout of the ``gh-pages`` branch to publish."""
    base_url: str = "/"
    """The URL the versioned site is served from, ending in ``/``: switcher entries link to
    ``BASE-URL + VERSION + "/"``. A path (``/project/``) works on any host."""
    pages_branch: str = "gh-pages"
    """The branch the site is published from; the ``docs`` gate reads ``origin/<it>`` (else the
    local branch) to check that every final release tag is frozen there."""
    frozen_since: str = ""
    """The oldest release whose docs must be frozen on the published site (e.g. ``1.0.0``);
    older release tags (from before the project versioned its docs) are not checked. Empty:
    every final release tag."""
    group: str = "docs"
    """The ``[dependency-groups]`` group installed, as the tag declares it, to freeze a version."""

    def validate(self, source: str) -> None:
        """Check the values that the dataclass types cannot express."""
        if not self.base_url.endswith("/"):
            raise ConfigError(
                "tool.mlrelease.docs.base-url",
                "a URL or path ending in '/'",
                repr(self.base_url),
                source=source,
                hint=f"Write base-url = {self.base_url + '/'!r}.",
            )
        for key, value in (
            ("source", self.source),
            ("build-dir", self.build_dir),
            ("site", self.site),
            ("group", self.group),
            ("pages-branch", self.pages_branch),
        ):
            if not value.strip():
                raise ConfigError(
                    f"tool.mlrelease.docs.{key}",
                    "a non-empty string",
                    repr(value),
                    source=source,
                )


TABLES: dict[str, type] = {"docs": DocsConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
