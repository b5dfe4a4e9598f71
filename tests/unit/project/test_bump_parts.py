"""What ``--part`` gives a version (:func:`mlrelease.project.bump.next_version`, which
:func:`~mlrelease.project.bump.plan` uses for every part bump): over any PEP 440 version and
every part, a refusal (exit 2, naming the version, the part and what to use instead) or a valid
PEP 440 version, greater than the current one and in its development-marker style, which init's
own ``[tool.bumpversion]`` configuration writes exactly. Before, ``--part pre`` on ``0.19.0``
gave ``0.19.0final1`` (ao, executorch) and ``--part minor`` on ``0.12.0a0`` gave
``0.13.0.dev0`` under the files model (torchdata), while ``release cut`` moved main to
``0.13.0a0``. The same property through ``plan`` on real files:
tests/integration/project/test_bump_planner.py."""

from __future__ import annotations

from typing import Any

import pytest
import tomllib
from bumpversion.versioning.version_config import VersionConfig
from helpers.pep440 import bumpversion_config, pep440_versions
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from mlrelease import versions
from mlrelease.errors import UserError
from mlrelease.init import detect, propose
from mlrelease.init.snapshot import Snapshot
from mlrelease.project import bump


def _init_config() -> VersionConfig:
    """bump-my-version's reading of the ``[tool.bumpversion]`` table init proposes."""
    texts = {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0.0"\n'}
    found = detect.detect(Snapshot(files=sorted(texts), texts=texts, tags=[], branches=["main"]))
    table: dict[str, Any] = tomllib.loads(propose.propose(found, {}).text)["tool"]["bumpversion"]
    return bumpversion_config(table)


INIT = _init_config()


def _style(version: Version) -> tuple[bool, bool]:
    """Where the development marker sits: a pre-release segment, a development segment."""
    return version.pre is not None, version.dev is not None


@given(pep440_versions(), st.sampled_from(bump.PARTS))
def test_a_part_bump_refuses_or_gives_a_greater_version_of_the_same_style(
    current: str, part: str
) -> None:
    was = Version(current)
    try:
        new = bump.next_version(was, part)
    except UserError as exc:
        assert exc.exit_code == 2
        assert f"--part {part} cannot bump {current}" in str(exc)
        assert "`--part " in str(exc) and "`--to " in str(exc)  # what to use instead
        # Only a part with nothing of the same style to move is refused.
        assert part == "stage" or (part == "pre" and was.pre is None and was.dev is None)
        return
    assert Version(str(new)) == new and new > was
    assert _style(new) == _style(was)
    if part != "stage":
        assert new.pre is None or new.pre[0] == was.pre[0]  # type: ignore[index]  # a0 stays a0
    parsed = INIT.parse(str(new))  # init's configuration writes it exactly, canonical
    assert parsed is not None and INIT.serialize(parsed, {}) == str(new)


@given(pep440_versions(largest=50), st.sampled_from(["files", "tag"]), st.booleans())
def test_main_moves_on_after_a_cut_as_a_minor_bump_moves_it(
    current: str, source: str, untagged: bool
) -> None:
    """``release cut`` and ``bump --part minor`` give main the same version: one rule."""
    was = Version(current)
    model = versions.VersionModel(source, untagged=untagged)  # type: ignore[arg-type]
    if model.development(was):  # else cut refuses first: main carries no development version
        moved = model.next_development(was, was.major, was.minor)
        assert moved == str(bump.next_version(was, "minor"))


@pytest.mark.parametrize(
    ("current", "part", "new"),
    [
        ("0.12.0a0", "minor", "0.13.0a0"),  # torchdata's main (files model)
        ("0.19.0", "minor", "0.20.0"),  # ao's and executorch's main: bare stays bare
        ("0.19.0", "patch", "0.19.1"),
        ("2.14.0a0", "major", "3.0.0a0"),
        ("2.14.0a0", "pre", "2.14.0a1"),
        ("2.14.0a0", "stage", "2.14.0b0"),
        ("1.4.0.dev3", "patch", "1.4.1.dev0"),
        ("1.4.0.dev3", "pre", "1.4.0.dev4"),
        ("1.4.0rc1", "pre", "1.4.0rc2"),
        ("1.4.0a1.dev2", "pre", "1.4.0a2.dev0"),
        ("1.4.0.post1", "minor", "1.5.0"),
        ("1.4", "minor", "1.5"),  # as many release numbers as the version has
        ("1.4", "patch", "1.4.1"),
        ("1!1.4.0a0", "minor", "1!1.5.0a0"),
    ],
)
def test_the_next_version_of_each_part(current: str, part: str, new: str) -> None:
    assert str(bump.next_version(Version(current), part)) == new


@pytest.mark.parametrize(
    ("current", "part", "says"),
    [
        # ao's main: 0.19.0 -> 0.19.0final1 before
        ("0.19.0", "pre", "`--part minor` (0.20.0) or `--part patch` (0.19.1), or `--to 0.20.0a0`"),
        ("0.19.0", "stage", "no pre-release stage to advance"),
        ("1.4.0rc2", "stage", "The release is `--to 1.4.0`; the next candidate is `--part pre` "),
        ("1.4.0.dev3", "stage", "`--part pre` (1.4.0.dev4), or `--to 1.4.0a0`"),
    ],
)
def test_a_part_with_no_version_of_the_same_style_is_refused(
    current: str, part: str, says: str
) -> None:
    with pytest.raises(UserError) as caught:
        bump.next_version(Version(current), part)
    assert f"bump: --part {part} cannot bump {current}" in str(caught.value)
    assert says in str(caught.value)
    assert caught.value.exit_code == 2
