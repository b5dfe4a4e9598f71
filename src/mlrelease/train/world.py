"""The train world: one snapshot of every member's origin and of what the staging and release
indexes hold of it (pure: :mod:`mlrelease.train.gather` fills it, the status, the gatekeeper and the
promotion planner decide on it and never ask git or an index).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from mlrelease.errors import UserError
from mlrelease.naming import Names
from mlrelease.release.promotion.manifest import Manifest, named_digest
from mlrelease.release.world.snapshot import FINAL_MARKER, Index, Refs, Tag, UpstreamOrigin
from mlrelease.train.declaration import Member, Train


@dataclass(frozen=True)
class MemberWorld:
    """One member as read: its origin's refs of the train's version, the manifests bound to
    its candidates, and the files of that version on the staging and release indexes."""

    member: Member
    refs: Refs | None = None
    names: Names | None = None
    blobs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """blob SHA -> (the SHA-256 of its bytes, its text) of the manifests its origin binds."""
    staged: Index | None = None
    released: Index | None = None
    error: str | None = None
    """Why its origin (or its configuration there) could not be read."""

    @property
    def version(self) -> Version:
        return Version(self.member.version)

    def rcs(self) -> list[str]:
        """Its origin's RC tags of the version, oldest first."""
        if self.refs is None or self.names is None:
            return []
        found = []
        for name in self.refs.tags:
            parsed = self.names.parse_tag(name)
            if parsed and parsed[0] == self.version and parsed[1] is not None:
                found.append((parsed[1], name))
        return [name for _, name in sorted(found)]

    def newest_rc(self) -> str | None:
        found = self.rcs()
        return found[-1] if found else None

    def branch(self) -> str | None:
        """The release branch of the version, as the member names it."""
        if self.names is None:
            return None
        return self.names.branch_for((self.version.major, self.version.minor), self.version.micro)

    def cut(self) -> bool:
        branch = self.branch()
        return bool(self.refs and branch and branch in self.refs.heads)

    def final(self) -> Tag | None:
        if self.refs is None or self.names is None:
            return None
        return self.refs.tags.get(self.names.final_tag(self.version))

    def manifest(self, rc: str) -> tuple[Manifest | None, str | None]:
        """(the manifest bound to ``rc`` on origin, why there is none or it is not trusted)."""
        bound = self.refs.bindings.get(rc, {}) if self.refs else {}
        if not bound:
            return None, f"{rc} is not bound on origin"
        if len(bound) > 1:
            return None, f"origin binds {rc} to {len(bound)} manifests"
        ((digest, blob),) = bound.items()
        found, text = self.blobs.get(blob, ("", ""))
        if found != digest:
            return None, f"the binding of {rc} does not hash to its name (replaced)"
        try:
            return Manifest.parse(text, f"{rc}'s manifest"), None
        except UserError as exc:
            return None, str(exc)

    def promoted(self) -> Manifest | None:
        """The manifest origin's final tag names, when ``release promote`` made it."""
        final = self.final()
        if final is None or not final.made_by(FINAL_MARKER):
            return None
        digest = named_digest(final.message)
        for rc in self.rcs():
            manifest, _ = self.manifest(rc)
            if manifest is not None and manifest.digest == digest:
                return manifest
        return None

    def origin(self) -> UpstreamOrigin:
        """Its origin as a member's upstream record is judged against."""
        return UpstreamOrigin(self.member.origin, self.refs, self.blobs, self.error)


@dataclass(frozen=True)
class TrainWorld:
    """Every member of the train, read once per command."""

    train: Train
    members: Mapping[str, MemberWorld]
    """Member key (canonical name) -> what was read."""
    store: Path | None = None
    """The repository the members' objects were fetched into."""

    def of(self, member: Member) -> MemberWorld:
        return self.members[member.key]

    def upstreams(self, member: Member) -> list[MemberWorld]:
        return [self.of(u) for u in self.train.upstreams(member)]
