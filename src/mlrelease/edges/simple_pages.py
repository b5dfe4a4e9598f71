"""Simple index pages parsed as installers read them (pure): PEP 691 JSON and PEP 503 HTML
project pages into :class:`IndexFile` entries, validated (:mod:`mlrelease.edges.index` reads
them over HTTP and re-exports both types).

An entry is what an installer makes of it: its name is the last segment of its URL's path,
percent-decoded, resolved against where the page was found (after redirects) or an HTML page's
``<base href>``, as pip does; beside it, what the entry states of itself (the PEP 691
``filename``, the link's text: uv reads that name), every SHA-256 it states (``hashes``, and a
``#sha256=`` anywhere in the URL, which pip prefers), every other hash it states (any other key
of ``hashes``, a URL's ``#<algorithm>=``: installers check each they know), the Python it says
the file requires (``data-requires-python``, ``requires-python``: pip chooses files by it), a
fragment or query pip would read as the file's identity (``#egg=``), the PEP 658/714 metadata
file it advertises, and whether it is yanked. A link whose name is a distribution file's only
when lower-cased (``DEMO-1.4.0.TAR.GZ``) is an entry, for the caller to name. Deciding what is
acceptable is the caller's (the release gatekeeper).

What a valid page is (docs/release/invariants.md, "What mlrelease assumes of the index"):

- JSON (``application/vnd.pypi.simple.v1+json``): an object with ``meta.api-version`` 1.x, the
  project's ``name`` and a ``files`` list whose entries have a ``filename``, a ``url`` and a
  ``hashes`` object;
- HTML (``text/html``): a page declaring PEP 629's ``pypi:repository-version`` 1.x (it may list
  no file), or, without it (pypiserver 2.x serves none), a page of at least one link whose every
  link is a distribution file (wheel, sdist or a legacy format).

Yanked files (``data-yanked``, JSON ``yanked``) are read, not dropped: an installer still
picks a yanked file for an exact pin, so a yanked foreign file of a release is still foreign.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

from packaging.utils import canonicalize_name

from mlrelease.edges.distnames import distribution, is_distribution, of_release
from mlrelease.errors import UserError

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPES = ("text/html", "application/vnd.pypi.simple.v1+html")


class NotAnIndex(UserError):
    """A server answered 200 with something that is not a simple index page."""


@dataclass(frozen=True)
class IndexFile:
    """One distribution file of a project on an index or in a folder (the one type), read as
    installers read it: its name is the last segment of its URL's path (pip names a file, and
    reads its project and version, from there), what the entry says of itself beside it."""

    filename: str
    """The name installers read: the URL path's last segment, percent-decoded."""
    url: str
    """``https://...`` or ``file:///...``, without its fragment."""
    sha256: str = ""
    """"" when the index gives none, or gives two (see :func:`hashed`)."""
    yanked: bool = False
    downloaded: bool = False
    """The SHA-256 was computed here, from the bytes at ``url``."""
    listed: str = ""
    """The name the entry states (PEP 691 ``filename``, a PEP 503 link's text): uv reads that
    one; "" for a folder's file."""
    claims: tuple[str, ...] = ()
    """Every SHA-256 the entry states (PEP 691 ``hashes``, the URL's ``#sha256=``, which pip
    prefers): installers check the file against each."""
    fragment: str = ""
    """The URL's fragment when it is not one hash (pip reads a name and version from
    ``#egg=``); "" otherwise."""
    metadata: str | None = None
    """The PEP 658 metadata file (``url`` + ``.metadata``) the entry advertises (what pip
    resolves with before it downloads the file): its stated SHA-256, "" when it states none;
    None when it advertises none."""
    metadata_served: str = ""
    """The SHA-256 of the metadata file downloaded here ("" when not downloaded)."""
    metadata_inside: str = ""
    """The SHA-256 of the file's own ``METADATA`` (``PKG-INFO``), read from its downloaded
    bytes ("" when not read, or absent)."""
    hashes: tuple[tuple[str, str], ...] = ()
    """Every other hash the entry states, (algorithm, hex digest) in lower case: PEP 691
    ``hashes`` but its ``sha256``, a URL's ``#<algorithm>=`` (pip reads md5 to sha512 anywhere
    in the URL); an algorithm unknown here is kept, for the caller to refuse."""
    requires_python: str | None = None
    """The ``Requires-Python`` the index states for the file (PEP 503
    ``data-requires-python``, PEP 691 ``requires-python``); None when it states none."""
    digests: tuple[tuple[str, str], ...] = ()
    """The downloaded bytes' digest by each algorithm of :attr:`hashes` ("" for an algorithm
    unknown here); () when not downloaded."""
    requires_python_inside: str | None = None
    """The file's own metadata ``Requires-Python``, read from its downloaded bytes (None when
    absent or not downloaded)."""

    @property
    def version(self) -> Any:
        """The file's :class:`~packaging.version.Version` from its name (None: not a wheel or
        sdist name)."""
        found = distribution(self.filename)
        return found[1] if found else None

    @property
    def is_sdist(self) -> bool:
        return self.filename.endswith((".tar.gz", ".zip"))

    def of_release(self, project: str, version: Any) -> bool:
        return of_release(self.filename, project, version)

    def names_release(self, project: str, version: Any) -> bool:
        """Whether installers read this entry as a file of the release, by its URL (pip) or by
        the name it states (uv)."""
        return self.of_release(project, version) or of_release(self.listed, project, version)


_SHA256 = re.compile(r"[#&]sha256=([^&#]*)")
"""A SHA-256 pip reads from a URL (its fragment, or its query: pip searches the whole URL)."""
_ONE_HASH = re.compile(r"([A-Za-z0-9_]+)=([0-9a-fA-F]*)")
"""A fragment that states one hash (by any algorithm: one unknown here is refused later)."""
_PIP_HASHES = re.compile(r"[#&](md5|sha1|sha224|sha384|sha512)=([^&#]*)")
"""The other hashes pip reads from anywhere in a URL."""
_IDENTITY = re.compile(r"[#&](?:egg|subdirectory)=")
"""What pip reads beside a URL's path as what the file is (``#egg=name-version``)."""


def _odd(url: str, fragment: str) -> str:
    """What a link carries beside its path and one hash: a fragment that is not one hash, or
    a query pip reads as the file's identity ("" when none)."""
    if fragment and not _ONE_HASH.fullmatch(fragment):
        return f"#{fragment}"
    query = urlparse(url).query
    return f"?{query}" if _IDENTITY.search(f"?{query}") else ""


@dataclass(frozen=True)
class _Stated:
    """What an entry states of its file beside its URL."""

    listed: str
    sha256: tuple[str, ...] = ()
    hashes: tuple[tuple[str, str], ...] = ()
    yanked: bool = False
    metadata: str | None = None
    requires_python: str | None = None


def _other_hashes(full: str, fragment: str, stated: _Stated) -> tuple[tuple[str, str], ...]:
    """Every hash but SHA-256 stated for the file: by the entry, anywhere in its URL (pip's),
    and by its fragment (any algorithm)."""
    found = [*stated.hashes, *((a, d.lower()) for a, d in _PIP_HASHES.findall(full))]
    one = _ONE_HASH.fullmatch(fragment)
    if one:
        found.append((one[1].lower(), one[2].lower()))
    return tuple(dict.fromkeys(h for h in found if h[0] != "sha256"))


def _entry(base: str, href: str, stated: _Stated) -> IndexFile:
    """An entry as installers read it: ``href`` resolved against ``base``, its name from the
    URL's path (percent-decoded, as pip does), every hash stated for it."""
    try:
        full = urljoin(base, href)
        url, _, fragment = full.partition("#")
        name = unquote(urlparse(url).path.rstrip("/").rsplit("/", 1)[-1])
    except ValueError as exc:  # an address no installer can open (http://[::1/...)
        raise not_index(base, f"a link that is not a URL ({href!r}: {exc})") from None
    claims = tuple(dict.fromkeys([*stated.sha256, *(c.lower() for c in _SHA256.findall(full))]))
    return IndexFile(
        name,
        url,
        claims[0] if len(claims) == 1 else "",
        stated.yanked,
        listed=stated.listed,
        claims=claims,
        fragment=_odd(url, fragment),
        metadata=stated.metadata,
        hashes=_other_hashes(full, fragment, stated),
        requires_python=stated.requires_python or None,
    )


class _Page(HTMLParser):
    """The links of a PEP 503 page, each with its attributes and text, and its ``<base>``."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[tuple[dict[str, str | None], str]] = []
        self.base: str | None = None
        self.repository_version: str | None = None
        self.title = ""
        self._in_title = False
        self._open: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and found.get("name") == "pypi:repository-version":
            self.repository_version = found.get("content") or ""
        if tag == "base" and self.base is None and found.get("href") is not None:
            self.base = found["href"]  # pip resolves every link against the first one
        self._in_title = tag == "title"
        if tag == "a":
            self._end_anchor()
            self._open, self._text = found, []

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False
        if tag == "a":
            self._end_anchor()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data.strip()
        if self._open is not None:
            self._text.append(data)

    def _end_anchor(self) -> None:
        if self._open is not None:
            self.anchors.append((self._open, "".join(self._text).strip()))
            self._open = None

    def close(self) -> None:
        super().close()
        self._end_anchor()


def _html_metadata(attrs: dict[str, str | None]) -> str | None:
    """The metadata file a link advertises, read as pip reads it (PEP 714, then PEP 658)."""
    value = attrs.get("data-core-metadata")
    value = attrs.get("data-dist-info-metadata") if value is None else value
    if value is None:
        return None
    algo, sep, digest = value.partition("=")
    return digest.lower() if sep and algo == "sha256" else ""


def _json_metadata(item: dict[str, Any]) -> str | None:
    """The metadata file a PEP 691 entry advertises, read as pip reads it."""
    value = item.get("core-metadata")
    value = item.get("dist-info-metadata") if value is None else value
    if isinstance(value, dict):
        return str(value.get("sha256", "")).lower()
    return "" if value else None


def _major_1(version: object) -> bool:
    return isinstance(version, str) and version.split(".")[0] == "1"


def not_index(url: str, found: str) -> NotAnIndex:
    return NotAnIndex(
        f"{url} answered 200 with {found}: not a simple index page (PEP 503 HTML or PEP 691 "
        "JSON), so what the index holds is unknown (it is not taken as 'no files'). Check the "
        "index URL (its simple index, not a web page or an upload endpoint) and the server."
    )


def from_html(url: str, base: str, text: str) -> list[IndexFile]:
    page = _Page()
    page.feed(text)
    page.close()
    base = urljoin(base, page.base) if page.base else base
    files: list[IndexFile] = []
    others: list[str] = []
    """Links that are no distribution file."""
    for attrs, listed in page.anchors:
        href = attrs.get("href")
        stated = _Stated(
            listed,
            yanked="data-yanked" in attrs,
            metadata=_html_metadata(attrs),
            requires_python=attrs.get("data-requires-python"),
        )
        found = href and _entry(base, href, stated)
        if not found or not is_distribution(found.filename.lower()):
            others.append(href or "(a link without href)")
        else:
            files.append(found)
    title = f" titled {page.title[:80]!r}" if page.title else ""
    declared = page.repository_version
    if declared is not None and not _major_1(declared):
        raise not_index(url, f"an HTML page of pypi:repository-version {declared!r} (1.x read)")
    if others:
        shown = ", ".join(repr(o[:80]) for o in others[:3])
        raise not_index(url, f"an HTML page{title} linking to {shown}, no distribution files")
    if declared is None and not files:
        raise not_index(
            url, f"an HTML page{title} that lists no file and declares no pypi:repository-version"
        )
    return files


def _json_file(url: str, base: str, item: object) -> IndexFile:
    if not isinstance(item, dict) or not all(
        isinstance(item.get(k), t) for k, t in (("filename", str), ("url", str), ("hashes", dict))
    ):
        shown = str(item)[:120]
        raise not_index(url, f"PEP 691 JSON whose file entry {shown!r} lacks filename/url/hashes")
    hashes = {str(k).lower(): str(v).lower() for k, v in item["hashes"].items()}
    sha = hashes.pop("sha256", "")
    python = item.get("requires-python")
    stated = _Stated(
        item["filename"],
        (sha,) if sha else (),
        tuple(hashes.items()),
        bool(item.get("yanked", False)),
        _json_metadata(item),
        None if python is None else str(python),
    )
    return _entry(base, item["url"], stated)


def from_json(url: str, base: str, body: bytes, project: str) -> list[IndexFile]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise not_index(url, f"{JSON_TYPE} that does not parse ({exc})") from None
    meta = data.get("meta") if isinstance(data, dict) else None
    version = meta.get("api-version") if isinstance(meta, dict) else None
    if not _major_1(version) or not isinstance(data.get("files"), list):
        shown = body[:120].decode("utf-8", errors="replace")
        raise not_index(url, f"JSON without PEP 691's meta.api-version 1.x and files ({shown!r})")
    name = data.get("name")
    if isinstance(name, str) and canonicalize_name(name) != canonicalize_name(project):
        raise not_index(url, f"the PEP 691 page of another project ({name!r})")
    return [_json_file(url, base, item) for item in data["files"]]
