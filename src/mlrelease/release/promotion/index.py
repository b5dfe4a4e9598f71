"""What a package index holds of one project at one version, proven by SHA-256 (the edge to
indexes: PyPI, TestPyPI, a pypiserver).

The index's word counts only with a hash: a file its simple page (PEP 503) lists with a
``sha256`` fragment is taken at that hash; one listed with ``md5`` or no hash is downloaded and
hashed here (invariant (a)). Every file of the project at the version counts, whatever its
name: a build-tagged wheel or a ``.zip`` sdist someone else uploaded is one installers pick.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urljoin, urlparse

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from mlrelease.release.world import Index, IndexFile

_UPLOAD_TO_SIMPLE = {
    "upload.pypi.org": "https://pypi.org/simple/",
    "test.pypi.org": "https://test.pypi.org/simple/",
}
TIMEOUT = 60


def simple_url(repository_url: str) -> str:
    """The simple index of an upload URL (PyPI's, TestPyPI's, or ``URL/simple/`` for a
    pypiserver-style index that takes uploads at its root)."""
    host = urlparse(repository_url).hostname or ""
    if host in _UPLOAD_TO_SIMPLE:
        return _UPLOAD_TO_SIMPLE[host]
    return repository_url.rstrip("/") + "/simple/"


def page_url(repository_url: str, project: str) -> str:
    return simple_url(repository_url) + canonicalize_name(project) + "/"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []
        """(file name, URL without fragment, fragment)."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href") if tag == "a" else None
        if href:
            url, _, fragment = href.partition("#")
            self.links.append((url.rstrip("/").rsplit("/", 1)[-1], url, fragment))


def of_release(name: str, project: str, version: Version) -> bool:
    """Whether the file ``name`` is a distribution of ``project`` at ``version`` (any kind,
    any build tag; a name that does not parse counts when it starts like one)."""
    canonical = canonicalize_name(project)
    try:
        if name.endswith(".whl"):
            dist, found, _, _ = parse_wheel_filename(name)
            return bool(dist == canonical and found == version)
        if name.endswith((".tar.gz", ".zip")):
            dist, found = parse_sdist_filename(name)
            return bool(dist == canonical and found == version)
    except (InvalidWheelFilename, InvalidSdistFilename):
        pass
    head = name.lower().replace("_", "-").replace(".", "-")
    return head.startswith(f"{canonical}-{str(version).replace('.', '-')}")


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        data: bytes = response.read()
        return data


def read(repository_url: str, project: str, version: Version) -> Index:
    """The files of ``project`` at ``version`` on the index, each with its SHA-256 proven; an
    index that cannot be read is an :class:`Index` with the reason in ``error``."""
    url = page_url(repository_url, project)
    try:
        page = _fetch(url).decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return Index(url)
        return Index(url, error=f"cannot read {url} (HTTP {exc.code})")
    except (urllib.error.URLError, OSError) as exc:
        return Index(url, error=f"cannot read {url} ({exc})")
    parser = _Links()
    parser.feed(page)
    files = []
    for name, link, fragment in parser.links:
        if not of_release(name, project, version):
            continue
        algo, _, digest = fragment.partition("=")
        if algo == "sha256" and len(digest) == 64:
            files.append(IndexFile(name, digest.lower()))
            continue
        try:
            data = _fetch(urljoin(url, link))
        except (urllib.error.URLError, OSError) as exc:
            return Index(url, error=f"cannot download {name} from {url} to hash it ({exc})")
        files.append(IndexFile(name, hashlib.sha256(data).hexdigest(), downloaded=True))
    return Index(url, tuple(sorted(files, key=lambda f: f.name)))
