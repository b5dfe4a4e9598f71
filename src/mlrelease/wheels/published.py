"""What a package index already holds: file names and SHA-256 from its simple API (PEP 503
hash fragments), so publishing is idempotent by asking the index, not a local record."""

from __future__ import annotations

import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

from packaging.utils import canonicalize_name

from mlrelease.errors import PreconditionError
from mlrelease.wheels import artifacts

_UPLOAD_TO_SIMPLE = {
    "upload.pypi.org": "https://pypi.org/simple/",
    "test.pypi.org": "https://test.pypi.org/simple/",
}


def simple_url(repository_url: str) -> str:
    """The simple index of an upload URL (PyPI's, TestPyPI's, or ``URL/simple/`` for a
    pypiserver-style index that takes uploads at its root)."""
    host = urlparse(repository_url).hostname or ""
    if host in _UPLOAD_TO_SIMPLE:
        return _UPLOAD_TO_SIMPLE[host]
    return repository_url.rstrip("/") + "/simple/"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href") if tag == "a" else None
        if not href:
            return
        url, _, fragment = href.partition("#")
        name = url.rstrip("/").rsplit("/", 1)[-1]
        algo, _, digest = fragment.partition("=")
        self.files[name] = digest if algo == "sha256" else ""


def index_files(repository_url: str, project: str) -> dict[str, str]:
    """File name -> SHA-256 ("" when the index gives none) of ``project`` on the index."""
    url = simple_url(repository_url) + canonicalize_name(project) + "/"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            text = response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return {}
        raise PreconditionError(
            f"cannot read {url} (HTTP {exc.code}): publishing checks the index first so that "
            "nothing is published twice; fix the index URL or the connection and re-run."
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        raise PreconditionError(
            f"cannot read {url} ({exc}): publishing checks the index first so that nothing is "
            "published twice; fix the index URL or the connection and re-run."
        ) from None
    parser = _Links()
    parser.feed(text)
    return parser.files


def split(wanted: dict[str, str], present: dict[str, str]) -> tuple[list[str], list[str]]:
    """(files still to upload, files the index holds with other content) of ``wanted``
    (name -> SHA-256)."""
    missing = sorted(n for n in wanted if n not in present)
    differ = sorted(n for n in wanted if present.get(n) and present[n] != wanted[n])
    return missing, differ


def pending(files: list[Path], repository_url: str, project: str) -> list[Path]:
    """``files`` the index lacks, in order; refuses when it holds one with other content."""
    wanted = {p.name: artifacts.sha256(p) for p in files}
    missing, differ = split(wanted, index_files(repository_url, project))
    if differ:
        raise PreconditionError(
            f"{simple_url(repository_url)} already holds {', '.join(differ)} with other content; "
            "nothing was uploaded. Find out who published them before going on."
        )
    return [p for p in files if p.name in missing]
