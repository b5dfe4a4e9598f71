"""Whether a train member's upstream record is current (pure; train invariant T3): the one
judgment ``release bind``, ``publish`` and ``promote`` apply to a manifest that records an upstream
(:class:`~.manifest.Upstream`, written by ``mlrelease train bind``), over the upstream's origin
as read for the command (:class:`~mlrelease.release.world.snapshot.UpstreamOrigin`).

A record is current while its RC is bound on the upstream's origin to exactly the recorded
manifest, that manifest lists exactly the recorded files and the commit the RC tag points at,
and the RC is the newest release candidate of its version there, or the one the upstream's
final tag promoted (the tag's annotation names the manifest). With ``final`` (publishing to
the release index, the final tag) only the latter will do: a member is released after its
upstream, never before.
"""

from __future__ import annotations

from mlrelease.errors import UserError
from mlrelease.naming import Names
from mlrelease.release.promotion.manifest import Manifest, Upstream, named_digest
from mlrelease.release.world.snapshot import FINAL_MARKER, Refs, UpstreamOrigin


def _names(record: Upstream) -> Names | None:
    try:
        source = f"the upstream record of {record.project}"
        return Names.compile(source, tag=record.tags[0], rc_tag=record.tags[1])
    except UserError:
        return None


def _bound(record: Upstream, refs: Refs, origin: UpstreamOrigin) -> str | None:
    """Why the RC is not bound on the origin to the recorded manifest and files."""
    where = f"{record.project}'s origin ({record.origin})"
    rc = record.rc_tag
    if rc not in refs.tags:
        return f"{where} has no tag {rc}: the upstream candidate was deleted"
    bindings = refs.bindings.get(rc, {})
    if record.manifest not in bindings:
        others = ", ".join(d[:16] + "..." for d in sorted(bindings)) or "no manifest"
        return (
            f"{where} binds {rc} to {others}, not to the recorded manifest "
            f"{record.manifest[:16]}...: the upstream candidate was rebuilt or re-bound"
        )
    if len(bindings) > 1:
        return f"{where} binds {rc} to {len(bindings)} manifests; a candidate is bound once"
    digest, text = origin.blobs.get(bindings[record.manifest], ("", ""))
    if digest != record.manifest:
        return f"{where}: the manifest bound to {rc} does not hash to its name (replaced)"
    try:
        bound = Manifest.parse(text, f"{rc}'s manifest")
    except UserError as exc:
        return str(exc).rstrip(".")
    if set(bound.files) != set(record.files):
        return f"{where}: the manifest bound to {rc} lists other files than the recorded ones"
    if refs.tags[rc].commit != bound.commit:
        return (
            f"{where} has {rc} at {str(refs.tags[rc].commit)[:12]}, not at {bound.commit[:12]} "
            "where its files were built: the tag was moved"
        )
    return None


def _current(record: Upstream, refs: Refs, names: Names, final: bool) -> str | None:
    """Why the RC is neither the newest candidate of its version nor the one the final tag
    promoted (with ``final``: not promoted yet)."""
    where = f"{record.project}'s origin ({record.origin})"
    parsed = names.parse_tag(record.rc_tag)
    if parsed is None or parsed[1] is None:
        return f"{record.rc_tag} is not a release-candidate tag of {record.tags[1]!r}"
    version = parsed[0]
    final_tag = refs.tags.get(names.final_tag(version))
    if final_tag is not None:
        promoted = final_tag.made_by(FINAL_MARKER)
        if promoted and named_digest(final_tag.message) == record.manifest:
            return None
        return (
            f"{where} released {record.project} {version} as {final_tag.name}, which does not "
            f"name the manifest of {record.rc_tag} ({record.manifest[:16]}...): the member was "
            "built against a candidate that was not released"
        )
    if final:
        return (
            f"{record.project} {version} is not released yet ({where} has no final tag "
            f"{names.final_tag(version)}): a train member is released after its upstream"
        )
    newer = sorted(
        (found[1], tag)
        for tag in refs.tags
        if (found := names.parse_tag(tag)) and found[0] == version and found[1] is not None
    )
    if newer and newer[-1][1] != record.rc_tag:
        return (
            f"{where} has a newer candidate, {newer[-1][1]}, than the recorded {record.rc_tag}: "
            "build and test the member against it, tag a new candidate and bind it"
        )
    return None


def problem(record: Upstream, origin: UpstreamOrigin | None, *, final: bool) -> str | None:
    """Why ``record`` is not current on its upstream's origin (``final``: not released); None
    when it is."""
    if origin is None or origin.refs is None:
        why = origin.error if origin and origin.error else "it was not read"
        return f"{record.project}'s origin ({record.origin}) could not be read ({why})"
    names = _names(record)
    if names is None:
        return f"the upstream record of {record.project} names malformed tag templates"
    return _bound(record, origin.refs, origin) or _current(record, origin.refs, names, final)
