"""What the project's commands and gates both call: the generated exit-criteria page and the
regenerated changelog, each a :class:`~mlrelease.edges.files.Generated` file that a command
writes or checks and a gate compares."""

from __future__ import annotations

from collections.abc import Sequence

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.gates import Gate
from mlrelease.project import changelog, exit_criteria


def exit_criteria_page(config: Config, gates: Sequence[Gate]) -> files.Generated:
    """The exit-criteria page of the configured ``gates``, as it should be on disk."""
    page = config.exit_criteria_doc
    return files.Generated(config.path(page), exit_criteria.render(gates), page)


def changelog_file(config: Config, bump: str | None) -> files.Generated:
    """The changelog regenerated from the commits (``bump``: the title of the unreleased
    section, ``auto`` to infer it)."""
    text = changelog.generate(
        config.root,
        config.changelog,
        bump=changelog.bump_tag(bump, config.names.tag_of),
        repository_url=changelog.repository_url(config.pyproject),
        other_changes=config.changelog_other_changes,
        write=False,
    )
    return files.Generated(config.path(config.changelog), text, config.changelog)
