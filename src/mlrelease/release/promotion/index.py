"""What the index holds of one project at one version, proven by SHA-256 (the release's reading
of the one index edge, :mod:`mlrelease.edges.index`).

The index's word counts only with a hash: a file listed with a ``sha256`` is taken at that
hash; one listed with ``md5`` or no hash is downloaded and hashed (invariant (a)). Every file of
the project at the version counts, whatever its spelling (:func:`~mlrelease.edges.index.of_release`:
a local label, a build tag, another spelling of the name or of the version), yanked or not: an
installer pinning the version picks it. A page that is not a simple index is an error, never
"no files".
"""

from __future__ import annotations

from packaging.version import Version

from mlrelease.edges import index
from mlrelease.errors import UserError
from mlrelease.release.world import Index


def read(repository_url: str, project: str, version: Version) -> Index:
    """The files of ``project`` at ``version`` on the index ``repository_url`` takes uploads
    at, each with its SHA-256 proven; an index that cannot be read is an :class:`Index` with
    the reason in ``error`` (refused when a decision needs it)."""
    url = index.page_url(index.simple_url(repository_url), project)
    try:
        listed = index.project_page(url, project) or []
        files = [index.hashed(f) for f in listed if f.of_release(project, version)]
    except UserError as exc:
        return Index(url, error=str(exc).rstrip("."), repository=repository_url)
    ordered = tuple(sorted(files, key=lambda f: f.filename))
    return Index(url, ordered, repository=repository_url)
