"""The project's own workflows against a release candidate (pure: decided on a
:class:`~.world.snapshot.World`): a tag that one of them would publish to the release index as
a final release is refused (tensorflow-onnx publishes every ``v*`` tag to PyPI, so
``v1.17.0rc1`` on a commit carrying ``1.17.0`` would ship ``1.17.0``), and the repair named is
the model under which the workflow publishes each RC as the pre-release it is: version bumps,
each tagged (``rc-model = "bump"``, ``rc-tagged = true``).

One rule, two verbs: ``release rc`` refuses the tag it was about to make, and ``release
prepare`` (under ``rc-model = "tag"``) refuses the release whose every candidate tag would be
so published, before it changes anything: the checklist's first step, not its RC step, says
that the model does not fit."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.errors import PreconditionError
from mlrelease.release import publishers
from mlrelease.release.config import KEEP_BUMPED, TABLE, ReleaseConfig, version_model
from mlrelease.release.world.snapshot import World


def publisher_of(world: World, config: Config, ref: str, name: str) -> publishers.Publisher | None:
    """The workflow at ``ref`` that publishes the tag ``name`` to the release index as the
    version its commit carries (under ``version-source = "files"``: the build takes the files'
    version; under ``tag`` and ``scm`` the tag's, an RC version), or None."""
    if version_model(config).source != "files":
        return None
    listed = world.files_matching(ref, publishers.WORKFLOWS)
    texts = {p: world.file_at(ref, p) or "" for p in listed}
    index = config.table(ReleaseConfig).index
    for found in publishers.read(texts):
        final = publishers.same_index(found.index, index) or found.index == publishers.PYPI
        if final and found.on_tag(name):
            return found
    return None


def refuse(world: World, config: Config, version: Version, name: str) -> None:
    """``release rc``: refuse the RC tag ``name`` at HEAD when a workflow there publishes it to
    the release index while the files carry the final ``version``."""
    head = world.head
    found = publisher_of(world, config, head, name) if head is not None else None
    if found is not None:
        raise PreconditionError(
            f"rc: {found.said()}: pushing {name} on a commit carrying {version} would "
            f"publish {version} as a final release. {BUMPS}, then re-run "
            f"(release rc sets {version}rc1, and run again tags that commit {name}, which the "
            f"workflow publishes as the pre-release {version}rc1); {OR_FILTER} Nothing was "
            "tagged.",
            repair=KEEP_BUMPED,
        )


def refuse_release(world: World, config: Config, branch: str, version: Version) -> None:
    """``release prepare`` under ``rc-model = "tag"``: refuse the release when the workflow at
    ``branch`` would publish its first RC tag as the final ``version`` (the tag model's every
    candidate is such a tag on a commit carrying ``version``), with the same repair as rc's."""
    if config.table(ReleaseConfig).rc_model == "bump":
        return
    name = config.names.rc_tag_for(version, config.table(ReleaseConfig).rc_first)
    found = publisher_of(world, config, branch, name)
    if found is not None:
        raise PreconditionError(
            f'prepare: {found.said()}: under {TABLE}.rc-model = "tag" each release candidate '
            f"of {version} is a tag on a commit carrying {version}, and pushing {name} would "
            f"publish {version} as a final release. {BUMPS}, then re-run "
            f"(prepare sets {version}; `mlrelease release rc --execute --push` then commits "
            f"{version}rc1, and run again tags it {name}, which the workflow publishes as the "
            f"pre-release {version}rc1); {OR_FILTER} Nothing was changed.",
            repair=KEEP_BUMPED,
        )


BUMPS = (
    f'Make release candidates version bumps, each tagged: set {TABLE}.rc-model = "bump" and '
    "rc-tagged = true"
)
OR_FILTER = "or have the workflow publish final tags only (e.g. tags: ['v[0-9]+.[0-9]+.[0-9]+'])."
