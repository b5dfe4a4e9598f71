"""A small HTTP proxy on 127.0.0.1 in front of pypiserver that can answer its simple pages with
something that is not a simple index (an HTML error page with status 200, a ``text/plain``
body, JSON without PEP 691's ``meta``), or with a simple page of its own (PEP 691 JSON, PEP 503
HTML, or each to the client that asks for it): the stand-in for a misconfigured index, a
captive portal, a CDN error page, or a hostile index serving crafted pages, files and redirects
(which pypiserver cannot serve). Everything else (uploads included) is relayed to pypiserver;
the uploads that reached it are counted."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERROR_PAGE = (
    "<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body>"
    "<h1>Service Unavailable</h1><p>The index is under maintenance. "
    '<a href="https://status.example.org/">Status</a></p></body></html>'
)
PAGES = {
    "html-error": ("text/html; charset=utf-8", ERROR_PAGE),
    "html-empty": ("text/html", "<html><head><title>Oops</title></head><body></body></html>"),
    "text": ("text/plain", "upstream connect error or disconnect/reset before headers"),
    "json-no-meta": ("application/vnd.pypi.simple.v1+json", '{"name": "demo", "files": []}'),
}
"""Answers that are not a simple index page, each served with status 200."""


JSON_TYPE = "application/vnd.pypi.simple.v1+json"


@dataclass
class Proxy:
    """The proxy's state: ``mode`` None relays every request; a key of :data:`PAGES`,
    ``"json"`` (``json_page``), ``"html"`` (``html_page``), ``"negotiate"`` (``json_page`` to
    a client accepting PEP 691 JSON, ``html_page`` to one that does not, as an old pip) or
    ``"pep691"`` (upstream's page as PEP 691 JSON, amended: :func:`pep691`) answers GETs under
    ``/simple/`` itself. ``files`` and ``redirects`` answer their paths first."""

    upstream: str
    url: str = ""
    mode: str | None = None
    json_page: str = ""
    html_page: str = ""
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    """path -> (Content-Type, body) answered by the proxy itself (a page, a foreign file)."""
    redirects: dict[str, str] = field(default_factory=dict)
    """path -> the URL a GET of it is redirected to (302 Found)."""
    amend: dict[str, dict[str, object]] = field(default_factory=dict)
    """``"pep691"`` mode: file name -> the fields set on upstream's entry of that name."""
    extra: list[dict[str, object]] = field(default_factory=list)
    """``"pep691"`` mode: PEP 691 entries added to upstream's."""
    uploads: list[str] = field(default_factory=list)
    uploaded: list[str] = field(default_factory=list)
    """The file name of each upload, in order (a name twice: uploaded twice)."""


ANCHOR = re.compile(r'<a href="([^"]+)">([^<]*)</a>')


def pep691(proxy: Proxy, path: str) -> bytes:
    """Upstream's (pypiserver's) HTML page at ``path`` as a PEP 691 page, its entries amended
    and ``extra`` added (``"pep691"`` mode: a hostile index that serves what upstream holds,
    and more)."""
    try:
        with urllib.request.urlopen(proxy.upstream.rstrip("/") + path, timeout=60) as answer:
            html = answer.read().decode()
    except urllib.error.HTTPError:
        html = ""  # no such project upstream: the page lists only the extra entries
    files: list[dict[str, object]] = []
    for href, text in ANCHOR.findall(html):
        algo, _, digest = href.partition("#")[2].partition("=")
        entry = {"filename": text, "url": href, "hashes": {algo: digest} if digest else {}}
        files.append({**entry, **proxy.amend.get(text, {})})
    page = {"meta": {"api-version": "1.1"}, "name": path.strip("/").split("/")[-1]}
    return json.dumps({**page, "files": files + proxy.extra}).encode()


def _page(proxy: Proxy, accept: str) -> tuple[str, str]:
    """(Content-Type, body) of the simple page the proxy answers in its ``mode``."""
    html = ("text/html; charset=utf-8", proxy.html_page)
    if proxy.mode == "json" or (proxy.mode == "negotiate" and JSON_TYPE in accept):
        return JSON_TYPE, proxy.json_page
    if proxy.mode in ("html", "negotiate"):
        return html
    return PAGES[str(proxy.mode)]


def _handler(proxy: Proxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _answer(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _relay(self, method: str, data: bytes | None = None) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if data is None:
                data = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            request = urllib.request.Request(
                proxy.upstream.rstrip("/") + self.path, data=data, headers=headers, method=method
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    status, kind, body = response.status, response.headers, response.read()
            except urllib.error.HTTPError as exc:
                status, kind, body = exc.code, exc.headers, exc.read()
            self._answer(status, kind.get("Content-Type", "text/plain"), body)

        def do_GET(self) -> None:
            if self.path in proxy.redirects:
                self.send_response(302)
                self.send_header("Location", proxy.redirects[self.path])
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif self.path in proxy.files:
                kind, body = proxy.files[self.path]
                self._answer(200, kind, body)
            elif proxy.mode == "pep691" and self.path.startswith("/simple/"):
                self._answer(200, JSON_TYPE, pep691(proxy, self.path))
            elif proxy.mode and self.path.startswith("/simple/"):
                kind, text = _page(proxy, self.headers.get("Accept", ""))
                self._answer(200, kind, text.encode())
            else:
                self._relay("GET")

        def do_POST(self) -> None:
            proxy.uploads.append(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length) if length else b""
            found = re.search(rb'name="content"; filename="([^"]+)"', data)
            if found:
                proxy.uploaded.append(found[1].decode())
            self._relay("POST", data)

    return Handler


@contextmanager
def proxied(upstream: str) -> Iterator[Proxy]:
    """A proxy in front of the index at ``upstream`` (its upload URL); yields its state, whose
    ``url`` is the proxy's upload URL."""
    proxy = Proxy(upstream)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
