"""A small HTTP proxy on 127.0.0.1 in front of pypiserver that can answer its simple pages with
something that is not a simple index (an HTML error page with status 200, a ``text/plain``
body, JSON without PEP 691's ``meta``), or with a PEP 691 JSON page of its own: the stand-in for
a misconfigured index, a captive portal or a CDN error page. Everything else (uploads included)
is relayed to pypiserver; the uploads that reached it are counted."""

from __future__ import annotations

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


@dataclass
class Proxy:
    """The proxy's state: ``mode`` None relays every request; a key of :data:`PAGES` (or
    ``"json"`` with ``json_page``) answers GETs under ``/simple/`` itself."""

    upstream: str
    url: str = ""
    mode: str | None = None
    json_page: str = ""
    uploads: list[str] = field(default_factory=list)
    uploaded: list[str] = field(default_factory=list)
    """The file name of each upload, in order (a name twice: uploaded twice)."""


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
            if proxy.mode and self.path.startswith("/simple/"):
                if proxy.mode == "json":
                    kind, text = "application/vnd.pypi.simple.v1+json", proxy.json_page
                else:
                    kind, text = PAGES[proxy.mode]
                self._answer(200, kind, text.encode())
                return
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
