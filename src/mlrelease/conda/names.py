"""PyPI names to conda-forge names (pure data, read once).

The mapping is the one conda-forge's tools keep: regro's PyPI-to-conda name table
(cf-graph-countyfair, the autotick bot's ``mapping_source: regro-bot`` entries plus grayskull's
``static`` ones), as the ``conda-pypi`` package ships it (``grayskull_pypi_mapping.json``,
12,000+ names, read offline from the installed package). A name it does not list keeps its
spelling, lower case with ``_`` as ``-`` (conda-pypi's rule), and :func:`conda_name` says so.
"""

from __future__ import annotations

from functools import cache

from packaging.utils import canonicalize_name

from mlrelease.edges import installed

MAPPING = "conda-pypi's grayskull_pypi_mapping.json (regro cf-graph-countyfair + grayskull)"
"""Where the names come from, for the pages that print it."""


@cache
def _table() -> dict[str, dict[str, str]]:
    installed.require("conda_pypi", extra="conda")
    from conda_pypi import name_mapping

    return dict(name_mapping.grayskull_pypi_mapping)


def conda_name(pypi_name: str) -> tuple[str, bool]:
    """(the conda-forge name of PyPI's ``pypi_name``, whether the mapping lists it)."""
    entry = _table().get(canonicalize_name(pypi_name))
    if entry is not None:
        return str(entry["conda_name"]), True
    return pypi_name.strip().lower().replace("_", "-"), False


def same_package(conda: str, pypi_name: str) -> bool:
    """Whether the conda name ``conda`` is what ``pypi_name`` maps to (``typing_extensions``
    and ``typing-extensions`` are one name on conda-forge's side too)."""
    mapped, _ = conda_name(pypi_name)
    return _norm(conda) == _norm(mapped)


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")
