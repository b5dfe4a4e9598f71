"""The newcomer's pages name the features the package has: exactly the features layer.

``docs/architecture.md`` and ``CONTRIBUTING.md`` each list the features in one sentence that
begins "The features are"; the backticked names of that sentence must be exactly the features
of :data:`mlrelease.registry.FEATURES` (the module map does the same for modules:
``tests/unit/test_architecture_map.py``). A feature added to the registry and not to a page,
or one a page still names after it is gone, fails here.
"""

from __future__ import annotations

import re

import pytest
from helpers import REPO_ROOT

from mlrelease import registry

PAGES = ("docs/architecture.md", "CONTRIBUTING.md")
SENTENCE = re.compile(r"The features are (.*?)\.(?:\s|$)", re.DOTALL)


def features() -> set[str]:
    """The features, as the registry declares them."""
    return {feature.name for feature in registry.FEATURES}


def named(text: str, page: str) -> set[str]:
    """The backticked names of the page's "The features are ..." sentence."""
    found = SENTENCE.findall(text)
    assert len(found) == 1, f'{page}: expected one sentence "The features are ...", found {found}'
    return set(re.findall(r"`([\w.]+)`", found[0]))


@pytest.mark.parametrize("page", PAGES)
def test_each_page_lists_exactly_the_declared_features(page: str) -> None:
    listed = named((REPO_ROOT / page).read_text(encoding="utf-8"), page)
    declared = features()
    assert (sorted(declared - listed), sorted(listed - declared)) == ([], []), (
        f"{page}: the features sentence lacks the first list and names the second, which "
        "src/mlrelease/registry.py does not declare; make the sentence say what FEATURES says"
    )


def test_a_page_missing_a_feature_is_found() -> None:
    page = (REPO_ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    stale = page.replace(" and `downstream`", "")
    assert stale != page
    assert features() - named(stale, "stale") == {"downstream"}
