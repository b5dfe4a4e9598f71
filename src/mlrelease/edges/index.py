"""Package indexes: the one reader of simple index pages (PEP 691 JSON, preferred, or PEP 503
HTML) and find-links folders, the one notion of "a file of this release", and downloads with
their SHA-256 checked.

A project page is read as installers get it: the page a client preferring PEP 691 JSON gets,
and, when that is JSON, the page a client asking for HTML only gets (pip before 22.2); its
entries are parsed as installers read them (:mod:`mlrelease.edges.simple_pages`). Every page is
validated before a file of it counts: an answer that is not a simple index page (an HTML error
page answering 200, a ``text/plain`` body, JSON without PEP 691's ``meta.api-version`` and
``files``) is a :class:`NotAnIndex` naming the URL and what was found, never "the index holds
nothing"; only a 404 means "no such project".
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlparse

from packaging.utils import canonicalize_name

from mlrelease.edges import web
from mlrelease.edges.digests import sha256
from mlrelease.edges.distnames import distribution, is_distribution, of_release
from mlrelease.edges.simple_pages import (
    HTML_TYPES,
    JSON_TYPE,
    IndexFile,
    NotAnIndex,
    from_html,
    from_json,
    not_index,
)
from mlrelease.errors import UserError

__all__ = ["IndexFile", "NotAnIndex", "distribution", "is_distribution", "of_release"]

PYPI_SIMPLE = "https://pypi.org/simple"
ACCEPT = f"{JSON_TYPE}, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"
HTML_ONLY = "text/html"
"""What an installer that predates PEP 691 asks for."""
_UPLOAD_TO_SIMPLE = {
    "upload.pypi.org": "https://pypi.org/simple/",
    "test.pypi.org": "https://test.pypi.org/simple/",
}


def simple_url(repository_url: str) -> str:
    """The simple index of an upload URL (PyPI's, TestPyPI's, or ``URL/simple/`` for a
    pypiserver-style index that takes uploads at its root)."""
    host = urlparse(web.checked(repository_url)).hostname or ""
    if host in _UPLOAD_TO_SIMPLE:
        return _UPLOAD_TO_SIMPLE[host]
    return repository_url.rstrip("/") + "/simple/"


def page_url(index_url: str, project: str) -> str:
    """The project page of ``project`` on the simple index at ``index_url``."""
    return index_url.rstrip("/") + "/" + canonicalize_name(project) + "/"


def _page(url: str, project: str, accept: str) -> tuple[str, list[IndexFile]] | None:
    """(the media type, the entries) of the page at ``url`` asked for with ``accept``; links
    are resolved against where the page was found, after redirects (as installers do)."""
    answer = web.get(url, accept=accept)
    if answer.status == 404:
        return None
    kind, base = answer.content_type, answer.final_url or url
    if kind in (JSON_TYPE, "application/json"):
        return kind, from_json(url, base, answer.body, project)
    if kind in HTML_TYPES:
        return kind, from_html(url, base, answer.text)
    shown = answer.body[:80].decode("utf-8", errors="replace")
    raise not_index(url, f"{kind or 'no Content-Type'} ({shown!r})")


def project_page(url: str, project: str) -> list[IndexFile] | None:
    """Every entry of the project page at ``url`` as installers get it (None: 404, no such
    project): the page a client preferring PEP 691 JSON gets (pip, uv) and, when that is JSON,
    the page a client asking for HTML only gets (pip before 22.2), which may differ. A page
    that is not a simple index raises :class:`NotAnIndex`."""
    first = _page(url, project, ACCEPT)
    if first is None:
        return None
    kind, files = first
    if kind in HTML_TYPES:
        return files
    second = _page(url, project, HTML_ONLY)
    return list(dict.fromkeys(files + (second[1] if second else [])))


def project_files(index_url: str, project: str) -> list[IndexFile]:
    """Every file of ``project`` on the simple index at ``index_url`` (empty: no such
    project, a 404)."""
    return project_page(page_url(index_url, project), project) or []


def folder_files(folder: Path, project: str) -> list[IndexFile]:
    """The files of ``project`` in a find-links folder (no hashes: they are read when used)."""
    if not folder.is_dir():
        return []
    wanted = canonicalize_name(project)
    found = []
    for path in sorted(folder.iterdir()):
        parsed = distribution(path.name, project)
        if parsed is not None and parsed[0] == wanted:
            found.append(IndexFile(path.name, path.resolve().as_uri()))
    return found


def files(
    project: str, *, index_url: str = "", find_links: tuple[str, ...] = ()
) -> list[IndexFile]:
    """Files of ``project`` in the find-links folders, then on the index (when given)."""
    found: list[IndexFile] = []
    for link in find_links:
        parsed = urlparse(link)
        if parsed.scheme in ("http", "https"):
            continue  # a find-links page: the index below is asked instead
        found += folder_files(Path(parsed.path if parsed.scheme == "file" else link), project)
    if index_url:
        found += project_files(index_url, project)
    return found


def hashed(file: IndexFile) -> IndexFile:
    """``file`` with its SHA-256 proven: the index's own, else downloaded and hashed here."""
    if file.sha256:
        return file
    with tempfile.TemporaryDirectory(prefix="mlrelease-hash-") as tmp:
        got = download(file, Path(tmp))
        return replace(file, sha256=sha256(got), downloaded=True)


def _plain(file: IndexFile) -> str:
    """The entry's name as a file name in a folder, refused when it is none (its URL's path
    ends in ``%2F..``: it would be written elsewhere)."""
    name = file.filename
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise UserError(
            f"{file.url} names no plain file ({name!r} once percent-decoded); not downloaded. "
            "The index's entry is wrong: tell its owner."
        )
    return name


def download(file: IndexFile, folder: Path) -> Path:
    """``file`` into ``folder`` (atomically, under its name), its SHA-256 checked when the
    index gave one."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / _plain(file)
    if target.is_file() and file.sha256 and sha256(target) == file.sha256:
        return target
    handle, partial = tempfile.mkstemp(dir=folder, prefix=".partial-")
    try:
        with open(handle, "wb") as out:
            if file.url.startswith("file:"):
                with open(Path(urlparse(file.url).path), "rb") as source:
                    shutil.copyfileobj(source, out)
            else:
                web.copy(file.url, out)
        got = sha256(Path(partial))
        if file.sha256 and got != file.sha256:
            raise UserError(
                f"{file.url}: SHA-256 {got} differs from the index's {file.sha256}; the "
                "download was corrupted or the file was replaced. Nothing was kept."
            )
        Path(partial).replace(target)
        return target
    except OSError as exc:
        raise UserError(f"cannot download {file.url} ({exc}).") from None
    finally:
        Path(partial).unlink(missing_ok=True)


def metadata_file(file: IndexFile) -> bytes:
    """The bytes of the PEP 658 metadata file ``file``'s entry advertises (its URL +
    ``.metadata``, what pip resolves with before it downloads the file); an advertised file
    the index does not serve is an error naming it."""
    url = f"{file.url}.metadata"
    answer = web.get(url)
    if answer.status == 404:
        raise UserError(
            f"{url}: the index advertises {file.filename}'s metadata file (PEP 658) and answers "
            "404 for it; installers that read it fail. Tell the index's owner."
        )
    return answer.body
