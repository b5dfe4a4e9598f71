"""A Hypothesis strategy of canonical PEP 440 versions, shared by the property tests of init's
bump-my-version configuration (unit) and of the ``versions`` gate's scan (adoption)."""

from __future__ import annotations

import re
from typing import Any

from bumpversion.versioning.models import VersionComponentSpec
from bumpversion.versioning.version_config import VersionConfig
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy
from packaging.version import Version


def pep440_versions(largest: int = 10_000) -> SearchStrategy[str]:
    """Canonical PEP 440 versions of three release numbers (``str(Version(...))``), with any
    pre-release (``a``, ``b``, ``rc``), post-release and dev-release parts, numbers up to
    ``largest``."""
    numbers = st.integers(min_value=0, max_value=largest)
    return st.builds(
        lambda release, pre, post, dev: str(
            Version(
                ".".join(map(str, release))
                + (f"{pre[0]}{pre[1]}" if pre else "")
                + (f".post{post}" if post is not None else "")
                + (f".dev{dev}" if dev is not None else "")
            )
        ),
        st.tuples(numbers, numbers, numbers),
        st.none() | st.tuples(st.sampled_from(["a", "b", "rc"]), numbers),
        st.none() | numbers,
        st.none() | numbers,
    )


def bumpversion_config(table: dict[str, Any]) -> VersionConfig:
    """bump-my-version's reading of a ``[tool.bumpversion]`` table (init's proposal): a spec
    for every named group of ``parse``."""
    parts = {name: VersionComponentSpec() for name in re.findall(r"\?P<(\w+)>", table["parse"])}
    for name, spec in table.get("parts", {}).items():
        parts[name] = VersionComponentSpec(**spec)
    return VersionConfig(
        parse=table["parse"],
        serialize=tuple(table["serialize"]),
        search="{current_version}",
        replace="{new_version}",
        part_configs=parts,
    )
