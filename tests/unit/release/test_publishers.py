"""The project's own publish machinery, read from its workflows (issue 53): what each
publishing job uploads where, and on which tag, branch or release it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.replayed import PYPI_ON_GITHUB_RELEASE, PYPI_ON_V_TAGS

from mlrelease.release import expressions, publishers

REPO = Path(__file__).resolve().parents[3]


def test_a_v_star_tag_workflow_publishes_every_rc_tag_to_pypi() -> None:
    """tensorflow-onnx: the publish job runs on pushed tags starting with ``v``."""
    (found,) = publishers.read({".github/workflows/release.yml": PYPI_ON_V_TAGS})
    assert (found.index, found.how, found.tags) == (
        publishers.PYPI,
        "pypa/gh-action-pypi-publish",
        ("v*",),
    )
    assert found.on_tag("v1.17.0rc1") and found.on_tag("v1.17.0")
    assert not found.on_branch("main")  # its `if:` keeps branch pushes out
    said = ".github/workflows/release.yml publishes to PyPI (pypa/gh-action-pypi-publish)"
    assert found.said() == said + " on tags v*"


def test_a_github_release_workflow_publishes_on_the_release_only() -> None:
    """sklearn-onnx: a published GitHub release uploads to PyPI."""
    (found,) = publishers.read({".github/workflows/release.yml": PYPI_ON_GITHUB_RELEASE})
    assert found.on_release and not found.on_tag("1.20.0rc1") and not found.on_branch("main")


def test_this_repositorys_release_workflow_publishes_final_tags_only() -> None:
    """The publish job needs `verify`, which runs for tags without ``-rc``."""
    found = publishers.on_disk(REPO)
    assert [p.workflow for p in found] == [".github/workflows/release.yml"]
    (release,) = found
    assert release.on_tag("v1.4.0") and not release.on_tag("v1.4.0-rc2")
    assert release.skip_existing  # after the checklist's own publish step, it adds nothing
    assert release.trigger() == "on tags v[0-9]+.[0-9]+.[0-9]+"  # the RC filter never publishes


def test_twine_to_the_test_index_and_a_branch_push() -> None:
    workflow = (
        "on:\n  push:\n    branches: [main]\njobs:\n  up:\n    runs-on: x\n    steps:\n"
        "      - run: twine upload -r testpypi dist/*\n"
    )
    (found,) = publishers.read({"w.yml": workflow})
    assert found.index == publishers.TEST_PYPI and found.on_branch("main")
    assert not found.on_tag("v1.0.0")


@pytest.mark.parametrize(
    ("condition", "ref", "expected"),
    [
        (
            "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')",
            "refs/tags/v1.0.0",
            True,
        ),
        (
            "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')",
            "refs/heads/main",
            False,
        ),
        ("${{ !contains(github.ref_name, '-rc') }}", "refs/tags/v1.0.0-rc1", False),
        ("${{ !contains(github.ref_name, '-rc') }}", "refs/tags/v1.0.0", True),
        (
            "github.repository == 'onnx/onnx' && startsWith(github.ref, 'refs/tags/')",
            "refs/tags/v1",
            None,
        ),
        (
            "github.repository == 'x/y' || startsWith(github.ref, 'refs/tags/')",
            "refs/tags/v1",
            True,
        ),
        ("always()", "refs/heads/main", True),
        ("contains(github.ref, 'rc') ||", "refs/heads/main", None),
    ],
)
def test_conditions_are_evaluated_for_the_event(
    condition: str, ref: str, expected: bool | None
) -> None:
    assert expressions.evaluate(condition, expressions.push_of(ref)) is expected
