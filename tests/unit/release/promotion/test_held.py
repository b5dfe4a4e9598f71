"""Invariant (a) as installers read the index (#48), on hand-built entries: the gatekeeper's
reading (:mod:`mlrelease.release.promotion.held`) refuses an entry read otherwise than it is
named, a stated hash the bytes do not have, and a metadata file that is not the file's own."""

from __future__ import annotations

import dataclasses

import pytest

from mlrelease.edges.index import IndexFile
from mlrelease.release.promotion import held, manifest
from mlrelease.release.world.snapshot import Index

WHEEL, SDIST = "demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"
BOUND = {WHEEL: "c" * 64, SDIST: "d" * 64}
MADE = manifest.Manifest(
    "v1.4.0-rc1", "a" * 40, tuple(manifest.Entry(n, 1, s) for n, s in BOUND.items())
)
META = "e" * 64
URL = "http://i.test/simple/demo/"


def _entry(name: str, **fields: object) -> IndexFile:
    sha = BOUND.get(name, "f" * 64)
    found = IndexFile(
        name, f"http://i.test/p/{name}", sha, downloaded=True, listed=name, claims=(sha,)
    )
    return dataclasses.replace(found, **fields)  # type: ignore[arg-type]


def _problem(*extra: IndexFile, others: tuple[IndexFile, ...] = (), **wheel: object) -> str | None:
    files = (_entry(WHEEL, **wheel), _entry(SDIST), *extra)
    return held.index_problem(Index(URL, files, others=others), MADE, complete=True)


def test_the_honest_index_passes() -> None:
    assert _problem() is None
    assert _problem(metadata=META, metadata_served=META, metadata_inside=META) is None
    assert _problem(metadata="", metadata_served=META, metadata_inside=META) is None
    assert _problem(hashes=(("md5", "ab"),), digests=(("md5", "ab"),)) is None
    python = {"requires_python": ">= 3.9, <4", "requires_python_inside": "<4,>=3.9"}
    assert _problem(**python) is None  # equal as a SpecifierSet
    assert _problem(requires_python_inside=">=3.9") is None  # none stated: the file's own read


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        (
            {"listed": "demo-1.4.0.asc"},
            f"demo-1.4.0.asc (its URL http://i.test/p/{WHEEL} names {WHEEL}",
        ),
        ({"fragment": "#egg=demo-1.4.0"}, "its URL carries #egg=demo-1.4.0, which is not one hash"),
        ({"claims": ("c" * 64, "9" * 64)}, "the index states 2 SHA-256 for it"),
        ({"claims": ("9" * 64,)}, "the index states SHA-256 9999999999999999... for its bytes"),
        ({"sha256": "9" * 64}, f"{WHEEL} (downloaded and hashed: 9999999999999999..., bound: cccc"),
        (
            {"metadata": META, "metadata_served": META, "metadata_inside": "1" * 64},
            f"http://i.test/p/{WHEEL}.metadata (SHA-256 eeeeeeeeeeeeeeee...) is not {WHEEL}'s own",
        ),
        (
            {"metadata": "2" * 64, "metadata_served": META, "metadata_inside": META},
            "stated 2222222222222222...",
        ),
        ({"downloaded": False}, f"{WHEEL} not downloaded from {URL} and hashed here"),
        (
            {"hashes": (("sha512", "0" * 128),), "digests": (("sha512", "5" * 128),)},
            f"{WHEEL} (the index states sha512 0000000000000000... for it, its downloaded bytes "
            "hash to 5555555555555555...",
        ),
        (
            {"hashes": (("blake9", "0f"),), "digests": (("blake9", ""),)},
            "the index states a blake9 hash for it, an algorithm unknown here",
        ),
        (
            {"requires_python": "<3", "requires_python_inside": ">=3.9"},
            f"{WHEEL} (the index states requires-python <3, its own metadata Requires-Python >=3.9",
        ),
        ({"requires_python": ">=3.9"}, "its own metadata Requires-Python (none)"),
        ({"requires_python": "3.9", "requires_python_inside": ">=3.9"}, "requires-python 3.9,"),
    ],
)
def test_the_bound_wheel_as_installers_read_it(changes: dict[str, object], said: str) -> None:
    assert said in str(_problem(**changes))


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (_entry("demo-1.4.0.asc"), "demo-1.4.0.asc (no distribution file"),
        (_entry(f"{WHEEL}.metadata"), "no distribution file"),
        (_entry("demo-0.9.tar.gz", listed="demo-0.9.asc"), "demo-0.9.asc (its URL"),
        (_entry("x", listed="x", url="http://i.test/p/..%2Fx"), "no distribution file"),
        (_entry("../x.whl", listed="../x.whl"), "names no plain file"),
    ],
)
def test_any_entry_read_otherwise_than_named_is_refused_whatever_its_version(
    entry: IndexFile, said: str
) -> None:
    problem = str(_problem(others=(entry,)))
    assert "lists entries installers read otherwise than they are named" in problem
    assert said in problem and "Nothing was sent" in problem


def test_without_downloads_the_stated_hash_decides_before_an_upload() -> None:
    """Publishing reads the index's claims (the bytes are proven before the final tag)."""
    stated = (_entry(WHEEL, downloaded=False), _entry(SDIST, downloaded=False))
    assert held.index_problem(Index(URL, stated), MADE, complete=False) is None
    other = (_entry(WHEEL, downloaded=False, sha256="9" * 64, claims=("9" * 64,)),)
    assert "its sha256: 9999999999999999" in str(
        held.index_problem(Index(URL, other), MADE, complete=False)
    )
