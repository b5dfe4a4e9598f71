"""What the release commands do, for the CLI (and scripts) to call: the configuration as the command
must read it, then, per verb, the one world read (:mod:`~mlrelease.release.world.reader`) and its
pure planner. The RC and the version are resolved once, by the reader, and passed down in the world.

A planner is chosen by the release's model: ``rc-model = "tag"`` (RCs are tags of the final version)
or ``"bump"`` (RCs are version bumps, :mod:`~mlrelease.release.bump_model`). A third model plugs in
here."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlrelease import version_files
from mlrelease.config import PYPROJECT, TABLE, Config, Loader, find_root
from mlrelease.edges import git, installed
from mlrelease.edges.journal import read_journal
from mlrelease.errors import UserError
from mlrelease.release import asks, bump_model, candidates, cut, picks, prepare
from mlrelease.release.config import ReleaseConfig, series_text, version_model
from mlrelease.release.plan import Plan
from mlrelease.release.promotion import bind, channels, final, promoted, publish
from mlrelease.release.promotion.manifest import Upstream
from mlrelease.release.world import queries, reader

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


def resuming(load_config: Loader) -> Loader:
    """The loader a release command reads its configuration with (the command line hands it to
    :func:`mlrelease.config.of_command`): ``load_config`` (the composition root's), as
    :func:`config_at` reads it: after an interrupted edit of pyproject.toml, HEAD's."""

    def load(
        root: Path | None = None, *, data: Mapping[str, Any] | None = None, source: str = ""
    ) -> Config:
        if data is not None:  # a given text is read as given
            return load_config(root, data=data, source=source)
        return config_at((root or find_root(Path.cwd())).resolve(), load_config)

    return load


def config_at(root: Path, load_config: Loader) -> Config:
    """The configuration; after an interrupted edit of pyproject.toml, the one the edit started
    with (HEAD's), never a file the edit left (an empty one would read as the defaults)."""
    folders = git.folders(root)
    journal = read_journal(root, folders.git_dir) if folders else None
    text = queries.show(root, "HEAD", PYPROJECT) if journal else None
    at_head = git.head_commit(root) if journal else None
    listed = journal.get("files", []) if journal and journal.get("head") == at_head else []
    if text is not None and PYPROJECT in listed:
        head: Config = load_config(root, data=tomllib.loads(text), source=f"HEAD:{PYPROJECT}")
        return head
    loaded: Config = load_config(root)
    return loaded


def bumped(config: Config) -> bool:
    """``rc-model = "bump"``: release candidates are version bumps, no RC tag to promote."""
    return config.table(ReleaseConfig).rc_model == "bump"


def _bumpable(config: Config) -> None:
    """Before any plan of a command that bumps: the version table is one bump-my-version reads
    whole, or the refusal names the key (a branch made, then a failed bump, is a change left)."""
    if not version_model(config).files_carry or not installed.has("bumpversion"):
        return  # nothing to bump, or the bump names the missing extra itself
    folders = git.folders(config.root)
    if folders and read_journal(config.root, folders.git_dir):
        return  # an interrupted run: its recovery reads the files it started with, not these
    if "bumpversion" in config.pyproject.get("tool", {}):
        version_files.readable(config.root, config.pyproject, str(config.pyproject_path))


def cut_plan(
    config: Config,
    version: str,
    from_ref: str | None,
    push: bool,
    params: Mapping[str, str] | None = None,
    upstream: str | None = None,
) -> Plan:
    """``release cut``; ``params`` fill the release-only edits' other placeholders (a train's
    series parameters: ``mlrelease train cut``), ``upstream`` the ``{upstream_series}``
    (``--upstream``)."""
    _bumpable(config)
    world = reader.read(config, asks.Cut(version, from_ref))
    return cut.plan_cut(world, config, version, from_ref, push, params, upstream=upstream)


def prepare_plan(config: Config, version: str, push: bool) -> Plan:
    _bumpable(config)
    world = reader.read(config, asks.Prepare(version))
    return prepare.plan_prepare(world, config, version, push)


def rc_plan(config: Config, tag: str | None, push: bool, rebuild: bool = False) -> Plan:
    if bumped(config):
        if rebuild:
            raise UserError(
                f"rc --rebuild: {TABLE}.release.rc-model is 'bump': each candidate is its own "
                "version bump, so a rebuild is a new bump; omit --rebuild."
            )
        return bump_model.plan_rc_bump(reader.read(config, asks.Bumped()), config, tag, push)
    world = reader.read(config, asks.Candidate(), *_edits_ask(config))
    return candidates.plan_rc(world, config, tag, push, rebuild)


def _edits_ask(config: Config) -> list[reader.Ask]:
    """The release-only edits' files on the checked-out release branch (``rc`` refuses a
    branch that lacks one): read as ``release cut`` of its series reads them."""
    found = config.names.series_of_branch(git.current_branch(config.root) or "")
    return [asks.Cut(series_text(found))] if found else []


def picks_plan(
    config: Config, branch: str | None, push: bool, mark: list[str], reason: str
) -> picks.CherryPicks:
    world = reader.read(config, asks.Picks(branch))
    return picks.plan_picks(world, config, branch, push, mark, reason)


@dataclasses.dataclass(frozen=True)
class RcChoice:
    """Which RC a promotion verb is about, and where its facts come from."""

    rc: str | None = None
    version: str | None = None
    report: Path | None = None
    artifacts: str | None = None


def promote_plan(
    config: Config,
    asked: RcChoice,
    *,
    push: bool,
    publish: bool,
    repository_url: str | None,
    elsewhere: bool = False,
) -> Plan:
    """``release promote``: the final tag (after publishing, with ``publish``), once the index
    the files went to holds them (``elsewhere``: another system publishes)."""
    if bumped(config):  # no RC tag: the final version, bumped and tagged
        if asked.rc is not None or publish:
            raise UserError(
                f"promote: {TABLE}.release.rc-model is 'bump': there is no RC tag to promote and "
                "the final release is built from its own tag; omit --rc and --publish."
            )
        world = reader.read(config, asks.Bumped())
        return bump_model.plan_final(world, config, asked.version, push)
    url = None
    if repository_url or publish:
        url = channels.channel_url(config, "release", repository_url, "promote")
    ask = asks.Release(**dataclasses.asdict(asked), index=url, known_index=True, proven=True)
    world = reader.read(config, ask)
    promoted = final.plan_promote(
        world, config, push=push, publish=publish, repository_url=url, elsewhere=elsewhere
    )
    return promoted.plan


def publish_plan(config: Config, asked: RcChoice, channel: str, repository_url: str | None) -> Plan:
    """``release publish``: the RC's bound files to the release index, or to the RC channel."""
    if channel not in publish.CHANNELS:
        raise UserError(
            f"publish --channel {channel!r}: expected one of {', '.join(publish.CHANNELS)}."
        )
    url = channels.channel_url(config, channel, repository_url, "publish")
    ask = asks.Release(**dataclasses.asdict(asked), index=url, proven=True)
    return publish.plan_publish(reader.read(config, ask), config, channel, url)


def bind_plan(
    config: Config, asked: RcChoice, push: bool, upstream: tuple[Upstream, ...] = ()
) -> Plan:
    """``release bind``: the RC's files (and, for a train member, the upstream candidate they
    were built against: ``mlrelease train bind``) bound to it."""
    world = reader.read(config, asks.Release(**dataclasses.asdict(asked), upstream=upstream))
    return bind.plan_bind(world, config, push, upstream)


def promoted_rc(config: Config, final_tag: str) -> str:
    """The release candidate origin's final tag promoted (:mod:`.promotion.promoted`): the one
    whose files a release workflow downloads and publishes."""
    bump = config.table(ReleaseConfig).rc_model == "bump"
    return promoted.candidate_promoted_by(reader.read(config), config.names, final_tag, bump=bump)
