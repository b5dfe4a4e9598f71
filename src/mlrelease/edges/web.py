"""HTTP: the one module of mlrelease that opens a URL (``tests/unit/test_urls_layout.py`` keeps
it so).

:func:`get` reads a page (the index edge's simple pages, a published docs switcher), and
:func:`copy` streams a file into an open handle (a download). A 404 is an answer the caller
decides on (an index's "no such project"); every other failure is a :class:`~.UserError`
naming the URL, never a traceback.
"""

from __future__ import annotations

import http.client
import shutil
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import BinaryIO

from mlrelease.errors import UserError

TIMEOUT_S = 60
MAX_PAGE = 64 << 20
"""The most bytes :func:`get` reads of one page (a larger answer is refused, not truncated)."""


@dataclass(frozen=True)
class Answer:
    """What a server answered to a GET."""

    url: str
    """The URL asked (before redirects)."""
    status: int
    content_type: str
    """The ``Content-Type`` header's media type, lower-cased, without parameters ("" if none)."""
    body: bytes
    final_url: str = ""
    """Where the answer came from, after redirects: what relative links in it are relative to
    (as installers resolve them)."""

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def checked(url: str) -> str:
    """``url``, when it is an address this module opens: ``http://`` or ``https://``, a host,
    a numeric port if any, no whitespace or control character, and no ``user:password@``
    (an index is read as an anonymous installer reads it, and a secret is never printed);
    otherwise a :class:`~.UserError` naming it (its credentials hidden) and what was expected."""
    shown = _hidden(url)
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise UserError(f"{shown!r}: a URL holds no whitespace or control character.")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError as exc:
        raise UserError(
            f"{shown!r} is not a URL ({exc}); expected http(s)://HOST[:PORT]/..."
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{shown!r}: expected an http:// or https:// address with a host.")
    if parts.username is not None or parts.password is not None:
        raise UserError(
            f"{shown!r}: credentials in a URL are not used (mlrelease reads an index as an "
            "anonymous installer does, and prints the URLs it reads). Give the URL without "
            "user:password@; uploads take TWINE_USERNAME and TWINE_PASSWORD."
        )
    return url


def _hidden(url: str) -> str:
    """``url`` with whatever stands before an ``@`` of its host part replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    if sep and "@" in host:
        host = "***@" + host.rsplit("@", 1)[1]
    return f"{scheme}{sep}{host}{slash}{path}" if sep else url


def get(url: str, *, accept: str = "", timeout: float = TIMEOUT_S) -> Answer:
    """The answer to ``GET url`` (``Accept: accept`` when given); a 404 is returned as such,
    other HTTP errors and network failures raise a :class:`~.UserError` naming the URL."""
    checked(url)
    headers = {"Accept": accept} if accept else {}
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            kind = response.headers.get_content_type() if response.headers else ""
            body = response.read(MAX_PAGE + 1)
            if len(body) > MAX_PAGE:
                raise UserError(f"{url} answered more than {MAX_PAGE >> 20} MiB; not read.")
            return Answer(url, response.status, kind.lower(), body, response.geturl() or url)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return Answer(url, 404, "", b"", exc.geturl() or url)
        raise UserError(
            f"cannot read {url} (HTTP {exc.code} {exc.reason}); check the URL."
        ) from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise UserError(f"cannot read {url} ({reason}); check the URL and the network.") from None


def copy(url: str, out: BinaryIO, *, timeout: float = TIMEOUT_S) -> None:
    """Stream the body of ``GET url`` into ``out``; any failure (a 404 included) raises a
    :class:`~.UserError` naming the URL."""
    checked(url)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            shutil.copyfileobj(response, out)
    except urllib.error.HTTPError as exc:
        raise UserError(f"cannot download {url} (HTTP {exc.code} {exc.reason}).") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise UserError(f"cannot download {url} ({reason}).") from None
