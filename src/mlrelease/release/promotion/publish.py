"""The one publish path: ``release publish`` (and ``release promote --publish``) uploads the
bound files of an RC from the content-addressed store, never from ``dist/`` (invariant (a)).

Planning (pure) decides which bound files the index still lacks, after the gatekeeper's checks
on the world. Each upload then runs at the last moment, on the exact bytes: the store object is
copied into a private folder while it is hashed, checked against the RC's commit (c), the index
is read again and :func:`~.gatekeeper.before_upload` decides; twine sends that copy; the copy
is hashed again, and the index is read once more to prove it holds the bound bytes. Channels:
``release`` (the project's index; the RC's report must pass) and ``rc`` (a test index holding
the RC's bound files, for downstream verification; no verdict yet).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

from mlrelease.config import Config
from mlrelease.edges import proc as processes
from mlrelease.edges.digests import sha256
from mlrelease.edges.faults import fault_env, fault_point
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release.plan import Plan, call_action
from mlrelease.release.promotion import gatekeeper, index, provenance, record, store
from mlrelease.release.promotion.manifest import Entry, Manifest
from mlrelease.release.world.snapshot import World
from mlrelease.wheels.evidence import Evidence

CHANNELS = ("release", "rc")


def upload_command(files: list[Path], repository_url: str) -> list[str]:
    """The twine invocation: the same argv in a dry run and for real. ``--skip-existing`` is
    only for PyPI and TestPyPI (twine refuses it for other indexes)."""
    skip = urlparse(repository_url).hostname in ("upload.pypi.org", "test.pypi.org")
    return processes.python_module(
        "twine",
        "upload",
        "--non-interactive",
        *(["--skip-existing"] if skip else []),
        "--disable-progress-bar",
        "--repository-url",
        repository_url,
        *(str(f) for f in files),
    )


def ordered(files: tuple[Entry, ...]) -> list[Entry]:
    """Wheels first, the sdist last (so no installer falls back to building from the sdist
    while the wheels are still arriving)."""
    return sorted(files, key=lambda e: (e.name.endswith((".tar.gz", ".zip")), e.name))


def plan_publish(
    world: World, config: Config, channel: str, repository_url: str, plan: Plan | None = None
) -> Plan:
    """Upload, from the store, the bound files of ``world.target``'s RC the index lacks."""
    if channel not in CHANNELS:
        raise UserError(f"publish --channel {channel!r}: expected one of {', '.join(CHANNELS)}.")
    names = config.names
    plan = plan or Plan("publish", world.root)
    target, tag, _ = gatekeeper.candidate(world, config, names, "publish")
    rc, commit = str(target.rc), str(tag.commit)
    manifest = gatekeeper.bound(world, rc, commit, "publish")
    facts = world.facts()
    if channel == "release":
        problem = gatekeeper.report_problem(facts.verdict, rc, commit)
        problem = problem or gatekeeper.upstream_problem(world, manifest, final=True)
        if problem:
            raise gatekeeper.Violation(f"publish: {problem}; nothing was published.")
    held = facts.index
    if held is None:
        raise PreconditionError("publish: no index was read (give --repository-url).")
    problem = gatekeeper.index_problem(held, manifest, complete=False)
    if problem:
        raise gatekeeper.Violation(f"publish: {problem}")
    present = {f.filename for f in held.files}
    todo = [e for e in ordered(manifest.files) if e.name not in present]
    done = len(manifest.files) - len(todo)
    if done:
        plan.notes.append(
            f"{held.url} holds {done} of the {len(manifest.files)} files of {rc} (same SHA-256)."
        )
    if not todo and facts.published.get(channel) != repository_url:
        line = f"record {repository_url} as the {channel} channel's index of {rc} (this clone)"
        plan.actions.append(
            call_action("record", line, _record(world.root, rc, channel, repository_url))
        )
    imports = _imports(world, todo)
    if imports:
        line = f"import {', '.join(e.name for e in imports)} from {facts.folder} into the store"
        plan.actions.append(call_action("import", line, _import(world.root, facts.folder, imports)))
    project = config.project_name
    for entry in todo:
        line = f"publish {entry.name} from the store to {repository_url}, behind the gatekeeper"
        send = Upload(world, config, manifest, entry, repository_url, channel, project)
        plan.actions.append(call_action("publish", line, send))
    if not todo:
        plan.notes.append(
            f"the index holds all {len(manifest.files)} files of {rc} (same SHA-256)."
        )
    return plan


def _imports(world: World, todo: list[Entry]) -> list[Entry]:
    """Bound files this clone's store lacks, found with the same SHA-256 among the artifacts
    offered (a fresh clone's downloaded assets); refused when one is nowhere."""
    facts = world.facts()
    offered = {(e.name, e.sha256, e.size) for e in facts.found}
    needed = []
    for entry in todo:
        if facts.stored.get(entry.sha256) == entry.size:
            continue
        if (entry.name, entry.sha256, entry.size) not in offered:
            raise PreconditionError(
                f"publish: {entry.name} ({entry.sha256[:16]}...) is neither in this clone's store "
                f"nor, with that SHA-256, in {facts.folder}; pass --artifacts with the "
                "candidate's files (a file with another SHA-256 is not the bound one)."
            )
        needed.append(entry)
    return needed


def _import(root: Path, folder: str, entries: list[Entry]) -> Callable[[], None]:
    def run() -> None:
        for entry in entries:
            stored = store.put(root, Path(folder) / entry.name)
            if stored != entry:
                raise PreconditionError(
                    f"publish: {folder}/{entry.name} changed while it was imported ("
                    f"{stored.sha256[:16]}..., bound {entry.sha256[:16]}...); nothing was sent."
                )

    return run


def _record(root: Path, rc: str, channel: str, url: str) -> Callable[[], None]:
    return lambda: record.write(root, rc, channel, url)


class Upload:
    """One upload, run at the last moment behind :func:`~.gatekeeper.before_upload`."""

    def __init__(
        self,
        world: World,
        config: Config,
        manifest: Manifest,
        entry: Entry,
        repository_url: str,
        channel: str,
        project: str,
    ) -> None:
        self.world, self.config, self.manifest, self.entry = world, config, manifest, entry
        self.url, self.channel, self.project = repository_url, channel, project

    def __call__(self) -> None:
        entry, version = self.entry, self.world.aimed().version
        with tempfile.TemporaryDirectory(prefix="mlrelease-publish-") as tmp:
            staged = store.stage(self.world.root, entry, Path(tmp))
            recorded = {(d.file, d.member): d.detail for d in self.manifest.accepted}
            found = provenance.findings(
                self.config,
                version,
                self.manifest.commit,
                [(entry.name, staged)],
                whole=False,
                evidence=Evidence(recorded=recorded),
                trusted=self.manifest.reference,
            )
            if found.problems:
                raise gatekeeper.Violation(
                    f"publish: {'; '.join(found.problems)}; nothing was sent."
                )
            held = index.read(self.url, self.project, version, download={entry.name})
            gatekeeper.before_upload(
                self.world, self.manifest, entry, entry.sha256, entry.size, held, self.channel
            )
            record.write(self.world.root, str(self.world.aimed().rc), self.channel, self.url)
            if any(f.filename == entry.name for f in held.files):  # the bound bytes, sent meanwhile
                return
            before = os.stat(staged)
            self._send(staged)
            after, again = os.stat(staged), sha256(staged)
            if (after.st_ino, after.st_mtime_ns, again) != (
                before.st_ino,
                before.st_mtime_ns,
                entry.sha256,
            ):
                raise gatekeeper.Violation(
                    f"publish: {staged} changed while twine sent it; check {self.url} now: it "
                    "may hold bytes that are not the bound ones."
                )
        self._proven()
        fault_point(f"publish:after:{entry.name}")

    def _send(self, staged: Path) -> None:
        argv = upload_command([staged], self.url)
        proc = processes.call(argv, env=fault_env(), capture=False)
        if proc.returncode != 0:
            raise UserError(
                f"twine upload of {staged.name} failed (exit {proc.returncode}). Files the index "
                "already holds are not sent again: fix the cause and run the same command again."
            )

    def _proven(self) -> None:
        """The index holds the bound bytes under the name just sent (read back: downloaded
        from its URL and hashed)."""
        name, version = self.entry.name, self.world.aimed().version
        held = index.read(self.url, self.project, version, download={name})
        mine = [f for f in held.files if f.filename == name]
        wrong = next((f for f in mine if f.sha256 != self.entry.sha256), None)
        if held.error or not mine or wrong is not None:
            shown = held.error or (f"{wrong.sha256[:16]}..." if wrong else "nothing")
            raise gatekeeper.Violation(
                f"publish: after the upload, {held.url} holds {shown} as {self.entry.name}, not "
                f"the bound {self.entry.sha256[:16]}...: invariant (a) is broken; nothing will be "
                "tagged. Find out what the index did with the upload."
            )
