"""Simple index pages parsed as installers read them (#48): an entry's name is its URL's (pip
reads a file's name and version there), resolved where pip resolves it; what the entry states
of itself is kept beside it. Real pages from pypiserver and a hostile index are read in
tests/integration/release/invariants/test_a_index_as_installers.py."""

from __future__ import annotations

import json
import re

import pytest

from mlrelease.edges.simple_pages import NotAnIndex, from_html, from_json

PAGE = "http://i.test/simple/demo/"
WHEEL = "demo-1.4.0-py3-none-any.whl"
TAGGED = "demo-1.4.0-1-py3-none-any.whl"
SHA, OTHER = "a" * 64, "b" * 64


def _json(*files: dict[str, object]) -> bytes:
    return json.dumps({"meta": {"api-version": "1.1"}, "name": "demo", "files": files}).encode()


def test_a_json_entry_is_named_by_its_url_and_keeps_the_name_it_states() -> None:
    entry = {"filename": "demo-1.4.0.asc", "url": f"/f/{TAGGED}", "hashes": {"sha256": SHA}}
    (found,) = from_json(PAGE, PAGE, _json(entry), "demo")
    assert (found.filename, found.listed) == (TAGGED, "demo-1.4.0.asc")
    assert found.url == f"http://i.test/f/{TAGGED}" and found.claims == (SHA,)


def test_relative_urls_resolve_where_the_page_was_found() -> None:
    """After a redirect, links are relative to the page's final URL (as pip resolves them)."""
    entry = {"filename": WHEEL, "url": f"../../packages/{WHEEL}", "hashes": {}}
    moved = "http://i.test/mirror/simple/demo/"
    (found,) = from_json(PAGE, moved, _json(entry), "demo")
    assert found.url == f"http://i.test/mirror/packages/{WHEEL}"


def test_every_sha256_stated_is_a_claim_and_two_leave_none_taken() -> None:
    """PEP 691 ``hashes`` and the URL's ``#sha256=`` (which pip prefers) disagreeing: no
    stated hash is taken, both are kept."""
    url = f"/f/{WHEEL}#sha256={OTHER.upper()}"
    (found,) = from_json(
        PAGE, PAGE, _json({"filename": WHEEL, "url": url, "hashes": {"sha256": SHA}}), "demo"
    )
    assert found.claims == (SHA, OTHER) and found.sha256 == "" and found.fragment == ""
    assert found.url == f"http://i.test/f/{WHEEL}"


@pytest.mark.parametrize(
    ("href", "odd"),
    [
        (f"/f/{WHEEL}#md5=abc", ""),
        (f"/f/{WHEEL}#blake9=abc", ""),
        ("/f/payload.tar.gz#egg=demo-1.4.0", "#egg=demo-1.4.0"),
        ("/f/payload.tar.gz?x=1&egg=demo-1.4.0", "?x=1&egg=demo-1.4.0"),
        (f"/f/{WHEEL}#sha256={SHA}&subdirectory=evil", f"#sha256={SHA}&subdirectory=evil"),
    ],
)
def test_what_pip_reads_beside_the_path_is_kept(href: str, odd: str) -> None:
    (found,) = from_html(PAGE, PAGE, f'<a href="{href}">x</a>')
    assert found.fragment == odd


def test_an_html_base_sends_every_link_where_pip_resolves_it() -> None:
    page = (
        '<html><head><base href="http://elsewhere.test/files/"></head><body>'
        f'<a href="{WHEEL}#sha256={SHA}" data-yanked="">{WHEEL}</a></body></html>'
    )
    (found,) = from_html(PAGE, PAGE, page)
    assert found.url == f"http://elsewhere.test/files/{WHEEL}" and found.yanked
    assert (found.listed, found.claims, found.sha256) == (WHEEL, (SHA,), SHA)


def test_a_link_is_named_by_its_percent_decoded_path() -> None:
    page = '<a href="/p/demo-1.4.0%2Bevil-py3-none-any.whl"> the wheel </a>'
    (found,) = from_html(PAGE, PAGE, page)
    assert found.filename == "demo-1.4.0+evil-py3-none-any.whl" and found.listed == "the wheel"


@pytest.mark.parametrize(
    ("attrs", "metadata"),
    [
        ("", None),
        ('data-core-metadata="true"', ""),
        (f'data-core-metadata="sha256={SHA.upper()}"', SHA),
        (f'data-dist-info-metadata="sha256={SHA}"', SHA),
        ('data-dist-info-metadata="false"', ""),  # pip reads any value but "true" this way
        (f'data-core-metadata="sha256={SHA}" data-dist-info-metadata="true"', SHA),
    ],
)
def test_an_advertised_metadata_file_is_read_as_pip_reads_it(
    attrs: str, metadata: str | None
) -> None:
    (found,) = from_html(PAGE, PAGE, f'<a href="/p/{WHEEL}" {attrs}>{WHEEL}</a>')
    assert found.metadata == metadata


@pytest.mark.parametrize(
    ("fields", "metadata"),
    [
        ({}, None),
        ({"core-metadata": False}, None),
        ({"core-metadata": True}, ""),
        ({"dist-info-metadata": {"sha256": SHA}}, SHA),
        ({"core-metadata": {"md5": "x"}}, ""),
    ],
)
def test_json_metadata_is_read_as_pip_reads_it(
    fields: dict[str, object], metadata: str | None
) -> None:
    entry = {"filename": WHEEL, "url": WHEEL, "hashes": {}, **fields}
    (found,) = from_json(PAGE, PAGE, _json(entry), "demo")
    assert found.metadata == metadata


def test_html_pages_linking_to_anything_but_distributions_are_no_index() -> None:
    with pytest.raises(NotAnIndex, match=re.escape("linking to 'demo-1.4.0.asc'")):
        from_html(PAGE, PAGE, f'<a href="/p/{WHEEL}">{WHEEL}</a><a href="demo-1.4.0.asc">s</a>')


def test_every_other_hash_and_the_requires_python_stated_are_kept() -> None:
    """#48: a ``#sha512=`` (pip checks it) and PEP 691's other ``hashes`` keys, any algorithm,
    and the Python each entry says its file requires (pip chooses files by it)."""
    html = (
        f'<a href="/p/{WHEEL}#sha512=ABC" data-requires-python="&lt;3">{WHEEL}</a>'
        f'<a href="/p/demo-1.4.0.tar.gz#blake9=0f">demo-1.4.0.tar.gz</a>'
    )
    wheel, sdist = from_html(PAGE, PAGE, html)
    assert wheel.hashes == (("sha512", "abc"),) and wheel.requires_python == "<3"
    assert sdist.hashes == (("blake9", "0f"),) and sdist.requires_python is None
    assert wheel.fragment == sdist.fragment == ""
    entry = {
        "filename": WHEEL,
        "url": WHEEL,
        "hashes": {"sha256": SHA, "MD5": "AB"},
        "requires-python": ">=3.9",
    }
    (found,) = from_json(PAGE, PAGE, _json(entry), "demo")
    assert found.claims == (SHA,) and found.hashes == (("md5", "ab"),)
    assert found.requires_python == ">=3.9"


def test_a_distribution_name_in_upper_case_is_an_entry_to_name() -> None:
    """pypiserver lists ``DEMO-1.4.0.TAR.GZ``: an entry (the gatekeeper names it), not a page
    that is no index."""
    (found,) = from_html(PAGE, PAGE, '<a href="/p/DEMO-1.4.0.TAR.GZ">DEMO-1.4.0.TAR.GZ</a>')
    assert found.filename == "DEMO-1.4.0.TAR.GZ"
