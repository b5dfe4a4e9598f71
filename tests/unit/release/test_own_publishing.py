"""One rule for the project's own publishing workflow, enforced by two verbs (issue 53): a
workflow that publishes every ``v*`` tag to PyPI (tensorflow-onnx's release.yml since
2e4f0716f) would ship a tag RC on a commit carrying the final version as that final version.
``release rc`` refuses the tag; ``release prepare`` refuses the release under tag RCs before
it changes anything; both name the same repair (version bumps, each tagged). Pure: hand-built
worlds."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.release_worlds import CONFIG, branch_world
from helpers.replayed import PYPI_ON_GITHUB_RELEASE, PYPI_ON_V_TAGS

from mlrelease.config import Config
from mlrelease.errors import PreconditionError
from mlrelease.release.config import KEEP_BUMPED, ReleaseConfig
from mlrelease.release.prepare import plan_prepare
from mlrelease.release.publishers import WORKFLOWS
from mlrelease.release.world.snapshot import World

RELEASE_YML = ".github/workflows/release.yml"


def _with_workflow(text: str) -> World:
    """release/1.4 (1.4.0.dev0) whose release.yml is ``text``."""
    snap = branch_world()
    return dataclasses.replace(
        snap,
        listings={("release/1.4", WORKFLOWS): (RELEASE_YML,)},
        files={**snap.files, ("release/1.4", RELEASE_YML): text},
    )


def test_prepare_refuses_a_release_whose_rc_tags_the_workflow_publishes_as_final() -> None:
    with pytest.raises(PreconditionError) as refused:
        plan_prepare(_with_workflow(PYPI_ON_V_TAGS), CONFIG, "1.4.0")
    said = " ".join(str(refused.value).split())
    assert said.startswith(f"prepare: {RELEASE_YML} publishes to PyPI"), said
    assert "pushing v1.4.0-rc1 would publish 1.4.0 as a final release" in said, said
    assert refused.value.repair == KEEP_BUMPED


@pytest.mark.parametrize(
    "config, text",
    [
        (CONFIG.with_table(ReleaseConfig(rc_model="bump", rc_tagged=True)), PYPI_ON_V_TAGS),
        (CONFIG, PYPI_ON_V_TAGS.replace("'v*'", "'v[0-9]+.[0-9]+.[0-9]+'")),  # finals only
        (CONFIG, PYPI_ON_GITHUB_RELEASE),  # sklearn-onnx, onnxmltools: no tag publishes
    ],
    ids=["bumped-rcs", "final-tags-only", "on-github-release"],
)
def test_prepare_goes_on_where_no_rc_tag_of_the_model_is_published(
    config: Config, text: str
) -> None:
    plan = plan_prepare(_with_workflow(text), config, "1.4.0")
    assert "bump" in [a.key for a in plan.actions], plan.actions
