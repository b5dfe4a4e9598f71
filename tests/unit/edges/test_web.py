"""Every address the web edge is handed gets a verdict (an adversary given the docs crashed
``release promote`` and ``publish`` with ``--repository-url http://[::1``, a port that is not
a number, a trailing newline, and an index page linking to such addresses), and a secret in a
URL is never printed."""

from __future__ import annotations

import pytest

from mlrelease.edges import index, simple_pages, web
from mlrelease.errors import UserError


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1", "is not a URL"),
        ("http://127.0.0.1:abc/", "is not a URL"),
        ("http://127.0.0.1:8080/\n", "no whitespace or control character"),
        ("ftp://example.org/", "http:// or https://"),
        ("http:///simple/", "with a host"),
        ("http://user:s3cret@127.0.0.1:8080/", "credentials in a URL are not used"),
    ],
)
def test_an_address_the_edge_cannot_open_is_refused_by_name(url: str, said: str) -> None:
    with pytest.raises(UserError, match=said) as refused:
        web.checked(url)
    assert "s3cret" not in str(refused.value)
    with pytest.raises(UserError):
        web.get(url)
    with pytest.raises(UserError):
        index.simple_url(url)


def test_a_good_address_passes() -> None:
    assert web.checked("https://test.pypi.org/legacy/") == "https://test.pypi.org/legacy/"
    assert web.checked("http://[::1]:8080/") == "http://[::1]:8080/"


def test_an_index_page_linking_to_no_url_is_no_index() -> None:
    page = '<a href="http://[::1/demo-1.4.0-py3-none-any.whl">demo-1.4.0-py3-none-any.whl</a>'
    with pytest.raises(UserError, match="a link that is not a URL"):
        simple_pages.from_html(
            "http://127.0.0.1/simple/demo/", "http://127.0.0.1/simple/demo/", page
        )
