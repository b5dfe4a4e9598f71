"""Package indexes: what a simple index (PEP 503 HTML, PEP 691 JSON) or a find-links folder
holds for a project, and downloading one file with its SHA-256 checked.

The one place mlrelease reads an index over HTTP for distributions (``downstream`` fetches a
consumer's sdist and lists the released versions of the project under test).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from mlrelease.errors import UserError

PYPI_SIMPLE = "https://pypi.org/simple"
_JSON = "application/vnd.pypi.simple.v1+json"
TIMEOUT_S = 60


@dataclass(frozen=True)
class IndexFile:
    """One distribution file of a project on an index or in a folder."""

    filename: str
    url: str
    """``https://...`` or ``file:///...``."""
    sha256: str = ""
    """"" when the index gives none."""
    yanked: bool = False

    @property
    def version(self) -> Version | None:
        """The file's version from its name; None for a name that is no wheel or sdist."""
        try:
            if self.filename.endswith(".whl"):
                return parse_wheel_filename(self.filename)[1]
            return parse_sdist_filename(self.filename)[1]
        except (InvalidSdistFilename, InvalidWheelFilename):
            return None

    @property
    def is_sdist(self) -> bool:
        return self.filename.endswith((".tar.gz", ".zip"))


class _Links(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base
        self.files: list[IndexFile] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        href = found.get("href") if tag == "a" else None
        if not href:
            return
        url, _, fragment = urljoin(self.base, href).partition("#")
        algo, _, digest = fragment.partition("=")
        name = urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]
        yanked = "data-yanked" in found
        self.files.append(IndexFile(name, url, digest if algo == "sha256" else "", yanked))


def _get(url: str) -> tuple[str, str]:
    """(content type, text) of ``url``; raises UserError naming the URL."""
    request = urllib.request.Request(url, headers={"Accept": f"{_JSON}, text/html;q=0.5"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            kind = response.headers.get("Content-Type", "")
            return kind, response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return "", ""
        raise UserError(f"cannot read {url} (HTTP {exc.code}); check the index URL.") from None
    except (urllib.error.URLError, OSError) as exc:
        raise UserError(
            f"cannot read {url} ({exc}); check the index URL and the network."
        ) from None


def project_files(index_url: str, project: str) -> list[IndexFile]:
    """Every file of ``project`` on the simple index at ``index_url`` (empty: none there)."""
    url = index_url.rstrip("/") + "/" + canonicalize_name(project) + "/"
    kind, text = _get(url)
    if not text:
        return []
    if _JSON in kind:
        data = json.loads(text)
        return [
            IndexFile(
                str(f["filename"]),
                urljoin(url, str(f["url"])),
                str(f.get("hashes", {}).get("sha256", "")),
                bool(f.get("yanked")),
            )
            for f in data.get("files", [])
        ]
    parser = _Links(url)
    parser.feed(text)
    return parser.files


def folder_files(folder: Path, project: str) -> list[IndexFile]:
    """The files of ``project`` in a find-links folder (no hashes: they are read when used)."""
    if not folder.is_dir():
        return []
    wanted = canonicalize_name(project)
    found = []
    for path in sorted(folder.iterdir()):
        file = IndexFile(path.name, path.resolve().as_uri())
        if file.version is None:
            continue
        stem = path.name[: -len(".whl")] if path.name.endswith(".whl") else path.name
        if canonicalize_name(stem.split("-")[0]) == wanted:
            found.append(file)
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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(file: IndexFile, folder: Path) -> Path:
    """``file`` into ``folder`` (atomically), its SHA-256 checked when the index gave one."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / file.filename
    if target.is_file() and file.sha256 and sha256(target) == file.sha256:
        return target
    handle, partial = tempfile.mkstemp(dir=folder, prefix=".partial-")
    try:
        with open(handle, "wb") as out:
            if file.url.startswith("file:"):
                with open(Path(urlparse(file.url).path), "rb") as source:
                    shutil.copyfileobj(source, out)
            else:
                with urllib.request.urlopen(file.url, timeout=TIMEOUT_S) as response:
                    shutil.copyfileobj(response, out)
        got = sha256(Path(partial))
        if file.sha256 and got != file.sha256:
            raise UserError(
                f"{file.url}: SHA-256 {got} differs from the index's {file.sha256}; the "
                "download was corrupted or the file was replaced. Nothing was kept."
            )
        Path(partial).replace(target)
        return target
    except (urllib.error.URLError, OSError) as exc:
        raise UserError(f"cannot download {file.url} ({exc}).") from None
    finally:
        Path(partial).unlink(missing_ok=True)
