"""The project's own workflows against a release candidate (pure: decided on a
:class:`~.world.snapshot.World`): ``release rc`` refuses a tag that one of them would publish to the
release index as a final release (tensorflow-onnx publishes every ``v*`` tag to PyPI, so
``v1.17.0rc1`` on a commit carrying ``1.17.0`` would ship ``1.17.0``), and names as its repair
the model under which the workflow publishes each RC as the pre-release it is: version bumps,
each tagged (``rc-model = "bump"``, ``rc-tagged = true``)."""

from __future__ import annotations

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.errors import PreconditionError
from mlrelease.release import publishers
from mlrelease.release.config import KEEP_BUMPED, TABLE, ReleaseConfig, version_model
from mlrelease.release.world.snapshot import World


def refuse(world: World, config: Config, version: Version, name: str) -> None:
    """Refuse the RC tag ``name`` when a workflow at HEAD publishes it to the release index
    while the files carry the final ``version`` (under ``version-source = "files"``: the
    build takes the files' version; under ``tag`` and ``scm`` the tag's, an RC version)."""
    head = world.head
    if version_model(config).source != "files" or head is None:
        return
    texts = {
        p: world.file_at(head, p) or "" for p in world.files_matching(head, publishers.WORKFLOWS)
    }
    index = config.table(ReleaseConfig).index
    for found in publishers.read(texts):
        final = publishers.same_index(found.index, index) or found.index == publishers.PYPI
        if final and found.on_tag(name):
            raise PreconditionError(
                f"rc: {found.said()}: pushing {name} on a commit carrying {version} would "
                f"publish {version} as a final release. Make release candidates version bumps, "
                f'each tagged: set {TABLE}.rc-model = "bump" and rc-tagged = true, then '
                f"re-run (release rc sets {version}rc1, and run again tags that commit "
                f"{name}, which the workflow publishes as the pre-release {version}rc1); or "
                "have the "
                "workflow publish final tags only (e.g. tags: ['v[0-9]+.[0-9]+.[0-9]+']). "
                "Nothing was tagged.",
                repair=KEEP_BUMPED,
            )
