"""The artifact manifest of a release candidate (pure): file names, sizes and SHA-256 of its
wheels and sdist, and the commit they were built from.

``release bind`` stores it as a blob under ``refs/mlrelease/bound/<rc>/<sha256 of the
manifest>`` and pushes that ref: the name is the content's hash, so any clone detects a forced
update (invariant (d)). ``release promote`` writes the manifest's SHA-256 into the final tag's
annotation. A train member's manifest also records the upstream files it was built and tested
against (:class:`Upstream`, train invariant T3) and the verdict of its own tests run against
them (:class:`Verdict`, train invariant T6); a manifest without them hashes as before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from typing import Any

from mlrelease.errors import UserError
from mlrelease.wheels.differences import CLASSES, Difference

SCHEMA = 1
TRAILER = "Mlrelease-Manifest-SHA256"
"""The final tag's annotation line naming the manifest it was promoted with."""


@dataclass(frozen=True)
class Entry:
    """One file: its name, size and SHA-256."""

    name: str
    size: int
    sha256: str


def _entries(files: tuple[Entry, ...]) -> list[dict[str, Any]]:
    return [{"name": e.name, "size": e.size, "sha256": e.sha256} for e in files]


def _parse_entries(listed: Any) -> tuple[Entry, ...]:
    return tuple(Entry(str(f["name"]), int(f["size"]), str(f["sha256"])) for f in listed)


PASSED, FAILED, NOT_RUN = "passed", "failed", "not run"
"""The verdicts of a member's tests against an upstream candidate (:class:`Verdict`)."""


@dataclass(frozen=True)
class Verdict:
    """A train member's own tests run against an upstream candidate (``mlrelease train bind``,
    through the downstream feature's paired run): the exact files installed, the upstream's
    previous release they were compared with (or why none was), and the verdict. Only facts
    that the same question answers the same way again are kept: the manifest is bound once."""

    verdict: str
    """:data:`PASSED`, :data:`FAILED` or :data:`NOT_RUN`."""
    upstream_file: str
    """The upstream candidate's wheel installed (one of :attr:`Upstream.files`)."""
    upstream_sha256: str
    member_file: str
    """The member's own wheel installed (one of its bound files)."""
    member_sha256: str
    baseline: str
    """The upstream's previous final release the same tests ran against (``torch 2.4.1``);
    empty when no comparison was possible (:attr:`note` says why)."""
    python: str
    tests: int
    """How many tests ran against the candidate."""
    note: str = ""
    failing: tuple[str, ...] = ()
    """The tests that failed against the candidate (and, compared, passed against the
    baseline, confirmed by re-runs), each with the first line of its failure."""
    why: str = ""
    """Why the tests did not run (:data:`NOT_RUN`)."""

    def data(self) -> dict[str, Any]:
        found = {k: v for k, v in vars(self).items() if k != "failing"}
        return {**found, "failing": list(self.failing)}

    @classmethod
    def parse(cls, data: Any) -> Verdict:
        texts = {f.name: str(data[f.name]) for f in fields(cls) if f.type == "str"}
        return cls(**texts, tests=int(data["tests"]), failing=tuple(map(str, data["failing"])))


@dataclass(frozen=True)
class Upstream:
    """The upstream release candidate a train member was built and tested against: its files
    as the staging index served them (by SHA-256), the RC whose bound manifest lists exactly
    those files, and where to check that it is still the upstream's current candidate
    (:mod:`.upstream`)."""

    project: str
    version: str
    rc_tag: str
    manifest: str
    """The SHA-256 of the upstream's manifest bound to ``rc_tag``."""
    origin: str
    """The upstream's origin (a git URL): its RC tags, bindings and final tag decide."""
    index: str
    """The staging index the files were read from."""
    tags: tuple[str, str]
    """The upstream's final and RC tag templates (``v{major}.{minor}.{patch}``, ...)."""
    files: tuple[Entry, ...]
    tests: Verdict | None = None
    """The member's tests run against these files; None: bound without them."""

    def data(self) -> dict[str, Any]:
        fields = ("project", "version", "rc_tag", "manifest", "origin", "index")
        found: dict[str, Any] = {k: getattr(self, k) for k in fields}
        if self.tests is not None:
            found["tests"] = self.tests.data()
        return {**found, "tags": list(self.tags), "files": _entries(self.files)}

    @classmethod
    def parse(cls, data: Any) -> Upstream:
        final, rc = (str(t) for t in data["tags"])
        return cls(
            project=str(data["project"]),
            version=str(data["version"]),
            rc_tag=str(data["rc_tag"]),
            manifest=str(data["manifest"]),
            origin=str(data["origin"]),
            index=str(data["index"]),
            tags=(final, rc),
            files=_parse_entries(data["files"]),
            tests=Verdict.parse(data["tests"]) if "tests" in data else None,
        )


@dataclass(frozen=True)
class Manifest:
    """What a release candidate built, and from which commit (and, for a train member,
    against which upstream files)."""

    rc_tag: str
    commit: str
    files: tuple[Entry, ...]
    upstream: tuple[Upstream, ...] = ()
    accepted: tuple[Difference, ...] = ()
    """Members that differ from the reference build by a class the project accepts: what bind
    did not compare byte for byte, and on what evidence (publish reads it)."""
    reference: str = ""
    """The digest of the reference build of the commit the files were compared with: the
    reference cache is read only when it holds that."""

    def text(self) -> str:
        """Canonical JSON: the same manifest always hashes the same."""
        data: dict[str, Any] = {
            "schema_version": SCHEMA,
            "rc_tag": self.rc_tag,
            "commit": self.commit,
            "files": _entries(self.files),
        }
        if self.upstream:
            data["upstream"] = [u.data() for u in self.upstream]
        if self.accepted:
            data["accepted"] = [
                {"file": d.file, "member": d.member, "class": d.kind, "detail": d.detail}
                for d in self.accepted
            ]
        if self.reference:
            data["reference"] = self.reference
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    @property
    def digest(self) -> str:
        return sha256_text(self.text())

    def entry(self, name: str) -> Entry | None:
        return next((e for e in self.files if e.name == name), None)

    @classmethod
    def parse(cls, text: str, source: str) -> Manifest:
        """A manifest from its JSON; a :class:`UserError` naming ``source`` for anything else."""
        try:
            data: Any = json.loads(text)
            if not isinstance(data, dict) or data.get("schema_version") != SCHEMA:
                raise ValueError(f"expected an object with schema_version {SCHEMA}")
            files = _parse_entries(data["files"])
            upstream = tuple(Upstream.parse(u) for u in data.get("upstream", []))
            accepted = tuple(
                Difference(str(d["file"]), str(d["member"]), str(d["class"]), str(d["detail"]))
                for d in data.get("accepted", [])
            )
            if any(d.kind not in CLASSES for d in accepted):
                raise ValueError(f"an accepted difference of no known class ({', '.join(CLASSES)})")
            reference = str(data.get("reference", ""))
            rc, commit = str(data["rc_tag"]), str(data["commit"])
            return cls(rc, commit, files, upstream, accepted, reference)
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(
                f"{source}: not an mlrelease artifact manifest ({exc}). Bind the candidate's "
                "artifacts again with `mlrelease release bind`."
            ) from None


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def named_digest(annotation: str) -> str | None:
    """The manifest SHA-256 a final tag's annotation names (``TRAILER: <hex>``), if any."""
    for line in annotation.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == TRAILER and value.strip():
            return value.strip()
    return None


def compare(manifest: Manifest, found: tuple[Entry, ...]) -> list[str]:
    """How the files found differ from the manifest (empty when they are exactly its files)."""
    listed = {e.name: e for e in manifest.files}
    present = {e.name: e for e in found}
    problems = []
    for name in sorted(set(listed) | set(present)):
        want, have = listed.get(name), present.get(name)
        if have is None:
            problems.append(f"{name}: in the manifest of {manifest.rc_tag} but missing")
        elif want is None:
            problems.append(f"{name}: not in the manifest of {manifest.rc_tag} (extra file)")
        elif (want.size, want.sha256) != (have.size, have.sha256):
            problems.append(
                f"{name}: SHA-256 {have.sha256[:16]}... ({have.size} bytes), but {manifest.rc_tag} "
                f"built {want.sha256[:16]}... ({want.size} bytes): rebuilt or tampered"
            )
    return problems
