"""A release train of three real repositories: an upstream (``torchlet``, shaped like torch) and
two members (``visionlet``, ``audiolet``) pinning it, each adopting mlrelease, each with a bare
origin, a maintainer's clone and a colleague's clone; pypiserver on 127.0.0.1 as the staging
and release indexes (the release one behind a proxy that counts the uploads by file name);
the train file beside the clones. Everything runs as users run it: the mlrelease CLI, pypa/build,
twine."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.dist import build_dist
from helpers.error_index import Proxy
from helpers.projects.train_member import files
from helpers.release import GIT_ENV
from mlrelease.cli import main
from mlrelease.release.promotion.manifest import Entry, Manifest, named_digest

if TYPE_CHECKING:
    from mlrelease.release.promotion.manifest import Verdict

UPSTREAM, VISION, AUDIO = "torchlet", "visionlet", "audiolet"
SERIES = {UPSTREAM: "2.5", VISION: "0.20", AUDIO: "2.5"}
VERSIONS = {UPSTREAM: "2.5.0", VISION: "0.20.0", AUDIO: "2.5.0"}


def git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, text=True
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} in {cwd}: {proc.stderr}")
    return proc.stdout.strip()


def push_project(work: Path, origin: Path, texts: dict[str, str]) -> None:
    """``texts`` committed on main in ``work`` and pushed to a new bare ``origin``."""
    for name, text in texts.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", f"feat: first version of {work.name}")
    git(work.parent, "init", "-q", "--bare", "-b", "main", str(origin))
    git(work, "remote", "add", "origin", str(origin))
    git(work, "push", "-q", "origin", "main")


def train_toml(
    base: Path,
    name: str,
    versions: dict[str, str],
    staging: str,
    release: str,
    series: str = "2.5",
    gaps: str = "",
    upstream: str = UPSTREAM,
    accelerators: str = "",
) -> str:
    """The train file: the upstream and the members pinning it exactly (``accelerators``: each
    member's table of them)."""
    up = versions[upstream]
    lines = [
        f'name = "{name}"',
        f'staging-index = "{staging}"',
        f'release-index = "{release}"',
        "",
        "[series]",
        f'upstream_series = "{series}"',
    ]
    for member, version in versions.items():
        lines += [
            "",
            "[[members]]",
            f'name = "{member}"',
            f'origin = "{(base / "origins" / f"{member}.git").as_posix()}"',
            f'version = "{version}"',
        ]
        if accelerators:
            lines.append(f"accelerators = {accelerators}")
        if member != upstream:
            lines.append(f'upstream = ["{upstream} =={up}"]')
            lines.append(f"gaps = [{gaps}]")
    return "\n".join(lines) + "\n"


@dataclass
class Rig:
    """The train's repositories and indexes; ``mlr`` runs mlrelease as each maintainer."""

    base: Path
    staging: str
    release: str
    train: Path
    log: list[str] = field(default_factory=list)

    def work(self, name: str) -> Path:
        return self.base / name

    def origin(self, name: str) -> Path:
        return self.base / "origins" / f"{name}.git"

    def colleague(self, name: str) -> Path:
        """A colleague's clone of ``name``'s origin (made on first use, then fetched)."""
        path = self.base / "colleagues" / name
        if not path.exists():
            git(self.base, "clone", "-q", str(self.origin(name)), str(path))
        git(path, "fetch", "-q", "--tags", "origin")
        return path

    def mlr(
        self, where: Path, *args: str, kill: str | None = None, record: Path | None = None
    ) -> tuple[int, str]:
        """``mlrelease --root WHERE ARGS``: in this process, or killed at ``kill`` in a child
        (``record``: the file the child's fault points are written to)."""
        if kill is None:
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = main(["--root", str(where), *args])
            text = out.getvalue()
        else:
            env = {k: v for k, v in os.environ.items() if not k.startswith("MLRELEASE_FAULT")}
            done = subprocess.run(
                [sys.executable, "-m", "mlrelease", "--root", str(where), *args],
                cwd=where,
                env={**env, "MLRELEASE_FAULT": kill, "MLRELEASE_FAULT_RECORD": str(record or "")},
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            code, text = done.returncode, done.stdout + done.stderr
        self.log.append(f"{where.name}: mlrelease {' '.join(args)} (kill {kill}) -> {code}")
        assert "Traceback" not in text, text
        return code, text

    def ok(self, where: Path, *args: str) -> str:
        code, out = self.mlr(where, *args)
        assert code == 0, f"mlrelease {' '.join(args)} in {where.name}: {out}"
        return out

    def candidate(self, name: str, version: str) -> str:
        """Cut (``train cut`` for a member), prepare and tag the first candidate of
        ``version``; returns its tag."""
        work = self.work(name)
        series = ".".join(version.split(".")[:2])
        if name == UPSTREAM:
            self.ok(work, "release", "cut", "--version", series, "--execute", "--push")
        else:
            self.ok(work, "train", "cut", "--train", str(self.train), "--execute", "--push")
        self.ok(work, "release", "prepare", "--version", version, "--execute", "--push")
        return self.tag(name)

    def tag(self, name: str, *more: str) -> str:
        """Tag the next candidate on the checked-out branch (``more``: ``--rebuild``)."""
        self.ok(self.work(name), "release", "rc", "--execute", "--push", *more)
        found = git(self.work(name), "tag", "--points-at", "HEAD", "--sort=-v:refname", "v*-rc*")
        return found.splitlines()[0]

    def bind(self, name: str, rc: str, *, kill: str | None = None) -> tuple[int, str]:
        """Build ``rc``'s files (pypa/build) and bind them (a member: ``train bind``), then
        verify; the clone is left on its branch."""
        work = self.work(name)
        branch = git(work, "symbolic-ref", "--short", "HEAD")
        git(work, "switch", "-q", "--detach", rc)
        shutil.rmtree(work / "dist", ignore_errors=True)
        build_dist(work, work / "dist")
        verb = ["release", "bind"]
        if name != UPSTREAM:
            verb = ["train", "bind", "--train", str(self.train)]
        code, out = self.mlr(work, *verb, "--rc", rc, "--execute", "--push", kill=kill)
        if code == 0:
            self.ok(work, "verify")
        git(work, "switch", "-q", branch)
        return code, out

    def stage(self, name: str, rc: str) -> None:
        self.ok(self.work(name), "release", "publish", "--rc", rc, "--channel", "rc", "--execute")

    def status(self) -> dict[str, dict[str, object]]:
        import json

        out = self.ok(self.base, "train", "status", "--train", str(self.train), "--json")
        return {m["name"]: m for m in json.loads(out)["members"]}


def make_rig(
    base: Path,
    staging: str,
    release: str,
    name: str = "pytorch-2.5",
    versions: dict[str, str] = VERSIONS,
    pins: dict[str, str] | None = None,
) -> Rig:
    """The repositories of ``versions`` (the three, by default) on main, their main carrying
    the series' first ``.dev0`` version, nothing released, pushed; and the train file. A member
    pins the upstream at the train's version, or at ``pins[member]``."""
    (base / "origins").mkdir(parents=True)
    for member, version in versions.items():
        pinned = (pins or {}).get(member, versions[UPSTREAM])
        requires = "" if member == UPSTREAM else f"{UPSTREAM}=={pinned}"
        dev = ".".join(version.split(".")[:2]) + ".0.dev0"
        texts = files(member, dev, requires, staging, release, upstream=UPSTREAM)
        push_project(base / member, base / "origins" / f"{member}.git", texts)
    (base / "pyproject.toml").write_text(
        '[project]\nname = "pytorch-train"\n\n[tool.mlrelease.train]\nfile = "train.toml"\n',
        encoding="utf-8",
    )
    train = base / "train.toml"
    series = ".".join(versions[UPSTREAM].split(".")[:2])
    text = train_toml(base, name, versions, staging, release, series)
    train.write_text(text, encoding="utf-8")
    return Rig(base, staging, release, train)


@dataclass
class Indexes:
    """The two indexes and the folders their files live in."""

    staging: str
    staging_files: Path
    release: Proxy
    release_files: Path

    def empty(self) -> None:
        for folder in (self.staging_files, self.release_files):
            for path in folder.iterdir():
                path.unlink()
        self.release.uploaded.clear()


def stage_all(rig: Rig) -> dict[str, str]:
    """Every member's first candidate: cut (a member after its upstream is staged), tagged,
    built, bound (a member: ``train bind``), verified and staged; member -> RC tag."""
    made = {}
    for name in (UPSTREAM, VISION, AUDIO):
        rc = rig.candidate(name, VERSIONS[name])
        code, out = rig.bind(name, rc)
        assert code == 0, out
        rig.stage(name, rc)
        made[name] = rc
    return made


TRAIN = {UPSTREAM: (), VISION: (UPSTREAM,), AUDIO: (UPSTREAM,)}
"""Each member's upstreams."""
FINALS = {name: f"v{version}" for name, version in VERSIONS.items()}


def _bound(origin: Path, rc: str) -> Manifest | None:
    found = git(origin, "for-each-ref", "--format=%(objectname)", f"refs/mlrelease/bound/{rc}")
    blobs = found.splitlines()
    return Manifest.parse(git(origin, "cat-file", "blob", blobs[0]), rc) if blobs else None


def promoted(rig: Rig, name: str) -> Manifest | None:
    """The manifest ``name``'s final tag names on its origin (None: no final tag)."""
    origin = rig.origin(name)
    message = git(origin, "tag", "-l", "--format=%(contents)", FINALS[name])
    digest = named_digest(message) if message else None
    for rc in git(origin, "tag", "--list", f"{FINALS[name]}-rc*").splitlines():
        manifest = _bound(origin, rc)
        if manifest is not None and manifest.digest == digest:
            return manifest
    return None


def violations(rig: Rig, indexes: Indexes) -> list[str]:
    """The train invariants, judged from outside: no file uploaded twice, no member public
    (a file on the release index) while an upstream is not released (its final tag and every
    bound file), no released member bound to another upstream candidate than the one its
    upstream released."""
    sent = indexes.release.uploaded
    found = [f"{n} uploaded {sent.count(n)} times" for n in sorted(set(sent)) if sent.count(n) > 1]
    held = {p.name for p in indexes.release_files.iterdir()}
    for name, ups in TRAIN.items():
        public = any(h.startswith(f"{name}-") for h in held)
        for up in ups:
            manifest = promoted(rig, up)
            released = manifest is not None and {e.name for e in manifest.files} <= held
            if public and not released:
                found.append(f"{name} is public while {up} is not released")
        mine = promoted(rig, name)
        for record in mine.upstream if mine else ():
            theirs = promoted(rig, record.project)
            if theirs is None or theirs.digest != record.manifest:
                found.append(
                    f"{name} was released bound to {record.rc_tag}, not what {record.project} "
                    "released"
                )
            if not tested_on(mine.files if mine else (), record.tests, record.files):
                found.append(f"{name} was released untested against {record.rc_tag}")
    return found


def tested_on(mine: tuple[Entry, ...], tests: Verdict | None, upstream: tuple[Entry, ...]) -> bool:
    """Whether ``tests`` passed on one of the files ``mine`` against one of ``upstream``."""
    return (
        tests is not None
        and tests.verdict == "passed"
        and (tests.member_file, tests.member_sha256) in {(e.name, e.sha256) for e in mine}
        and (tests.upstream_file, tests.upstream_sha256) in {(e.name, e.sha256) for e in upstream}
    )


def break_upstream_api(rig: Rig, indexes: Indexes) -> str:
    """A new upstream candidate whose API breaks its members (``answer()`` renamed), tagged on
    its release branch, bound and staged in place of the previous candidate's files (the test
    channel's owner replaces them: same version, other bytes); returns its tag."""
    work = rig.work(UPSTREAM)
    (work / "src" / UPSTREAM / "core.py").write_text(
        "def answer_v2() -> int:\n    return 42\n", encoding="utf-8"
    )
    git(work, "commit", "-qam", "feat!: answer() is answer_v2() now")
    git(work, "push", "-q", "origin", f"release/{SERIES[UPSTREAM]}")
    rc = rig.tag(UPSTREAM)
    code, out = rig.bind(UPSTREAM, rc)
    assert code == 0, out
    for old in indexes.staging_files.glob(f"{UPSTREAM}-{VERSIONS[UPSTREAM]}*"):
        old.unlink()
    rig.stage(UPSTREAM, rc)
    return rc


def patch_release(work: Path, branch: str, earlier: tuple[str, ...], module: str) -> None:
    """Earlier releases of ``branch`` (their final tags, pushed) and a fix after them: the
    branch is ready for its next patch release."""
    for tag in earlier:
        git(work, "tag", tag)
        git(work, "push", "-q", "origin", tag)
    (work / "src" / module / "core.py").write_text("def answer() -> int:\n    return 43\n")
    git(work, "commit", "-qam", "fix: the answer of the patch release")
    git(work, "push", "-q", "origin", branch)


def earlier_release(indexes: Indexes, base: Path, version: str) -> Path:
    """The upstream's previous final release, made before the train (its wheel and sdist built
    from the upstream's first files at ``version``, ``answer()`` in its API) and put on the
    release index; returns its wheel."""
    work = base / f"{UPSTREAM}-{version}"
    for name, text in files(UPSTREAM, version, "", "", "", upstream=UPSTREAM).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    built = build_dist(work, base / f"{UPSTREAM}-{version}-dist")
    for path in built:
        shutil.copy2(path, indexes.release_files / path.name)
    return next(p for p in built if p.name.endswith(".whl"))


def bound_manifest(origin: Path, rc: str) -> Manifest:
    """The manifest ``rc`` is bound to on ``origin``."""
    (line,) = git(
        origin, "for-each-ref", "--format=%(objectname)", f"refs/mlrelease/bound/{rc}"
    ).splitlines()
    return Manifest.parse(git(origin, "cat-file", "blob", line), rc)


@dataclass
class Staged:
    """A copy of the staged train and of the indexes' files, restored into ``base``."""

    base: Path
    template: Path
    indexes: Indexes
    rcs: dict[str, str]

    def restore(self) -> Rig:
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.copytree(self.template / "world", self.base, symlinks=True)
        self.indexes.empty()
        for name, folder in (
            ("staging", self.indexes.staging_files),
            ("release", self.indexes.release_files),
        ):
            for path in (self.template / name).iterdir():
                shutil.copy2(path, folder / path.name)
        cache = Path(os.environ["MLRELEASE_CACHE_DIR"]) / "train" / "promotions"
        shutil.rmtree(cache, ignore_errors=True)
        idx = self.indexes
        return Rig(self.base, idx.staging, idx.release.url, self.base / "train.toml")
