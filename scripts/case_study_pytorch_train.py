"""Replay PyTorch's 2.5.0 train (torch 2.5.0, torchvision 0.20.0, torchaudio 2.5.0) with the train
commands, and write docs/case-studies/pytorch-2.5-train.md.

    python scripts/case_study_pytorch_train.py

The files are stand-ins carrying the real names, versions, tags and ``Requires-Dist`` of every
file PyPI published (docs/case-studies/pytorch-2.5-train-pypi.json, read from PyPI's simple
index and the wheels' METADATA); the repositories are real git repositories adopting mlrelease,
with bare origins; pypiserver on 127.0.0.1 stands in for PyTorch's test channel (the staging
index) and for PyPI. The candidates' files cannot be rebuilt from their commits here, so
``release bind`` (which compares each file with the commit's reference build) and ``release
promote --publish`` are stood in for: the binding written with the manifest module, the files
uploaded with twine, the final tag annotated as ``release promote`` annotates it. Everything the
train decides runs as mlrelease runs it: ``train cut``, the upstream records resolved from the
staging index (:mod:`mlrelease.train.record`), ``train status``, the train's gatekeeper before
each release, ``train matrix``. The page compares the generated matrix with pytorch/vision's
README table and pytorch/pytorch's RELEASE.md, cell by cell with the published files'
``Requires-Dist``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from case_study_pytorch_train_page import compare, page  # noqa: E402
from helpers.index import start, stop  # type: ignore[import-not-found]  # noqa: E402
from helpers.release import GIT_ENV  # type: ignore[import-not-found]  # noqa: E402
from helpers.train_rig import Rig, files, git, push_project, train_toml  # type: ignore[import-not-found]  # noqa: E402
from packaging.utils import parse_wheel_filename  # noqa: E402

from mlrelease.release.promotion.manifest import TRAILER, Entry, Manifest, Upstream  # noqa: E402
from mlrelease.release.world.snapshot import FINAL_MARKER  # noqa: E402
from mlrelease.train import declaration, gatekeeper, gather, metadata, record  # noqa: E402

DATA = ROOT / "docs" / "case-studies" / "pytorch-2.5-train-pypi.json"
PAGE = ROOT / "docs" / "case-studies" / "pytorch-2.5-train.md"
FIGURES = ROOT / "docs" / "case-studies" / "pytorch-2.5-train.json"
MEMBERS = {"torch": "2.5.0", "torchvision": "0.20.0", "torchaudio": "2.5.0"}
GAP = '{ variant = "3.13-*", upstream = "torch", reason = "3.13 is experimental in torch 2.5" }'


def train_file(base: Path, staging: str, release: str, gap: bool) -> str:
    """The train file, the CPython 3.13 gap declared or not."""
    cuda = '{ linux-x86_64 = "cu124" }'
    return str(
        train_toml(
            base,
            "pytorch-2.5",
            MEMBERS,
            staging,
            release,
            "2.5",
            GAP if gap else "",
            upstream="torch",
            accelerators=cuda,
        )
    )


def stand_in(folder: Path, entry: dict[str, Any], rc: str) -> Path:
    """A wheel named as the published file, carrying its METADATA's Name, Version,
    Requires-Python and Requires-Dist (and which candidate made it)."""
    name, version, build, tags = parse_wheel_filename(entry["filename"])
    dist = f"{name}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {entry.get('name', name)}", f"Version: {version}"]
    if entry.get("requires_python"):
        meta.append(f"Requires-Python: {entry['requires_python']}")
    meta += [f"Requires-Dist: {r}" for r in entry.get("requires_dist", [])]
    wheel = ["Wheel-Version: 1.0", "Generator: stand-in", "Root-Is-Purelib: false"]
    if build:
        wheel.append(f"Build: {build[0]}{build[1]}")
    wheel += [f"Tag: {t}" for t in sorted(map(str, tags))]
    members = {
        f"{name}/__init__.py": f"# stand-in of {entry['filename']} ({rc})\n",
        f"{dist}/METADATA": "\n".join(meta) + "\n",
        f"{dist}/WHEEL": "\n".join(wheel) + "\n",
    }
    members[f"{dist}/RECORD"] = "".join(f"{m},,\n" for m in [*members, f"{dist}/RECORD"])
    path = folder / str(entry["filename"])
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in members.items():
            archive.writestr(zipfile.ZipInfo(member, (2024, 10, 17, 0, 0, 0)), text)
    return path


def bind(work: Path, rc: str, paths: list[Path], upstream: tuple[Upstream, ...] = ()) -> Manifest:
    """The binding ``release bind`` would push, written for the stand-in files."""
    from mlrelease.edges.digests import sha256

    commit = git(work, "rev-parse", f"{rc}^{{commit}}")
    entries = tuple(Entry(p.name, p.stat().st_size, sha256(p)) for p in sorted(paths))
    made = Manifest(rc, commit, entries, upstream)
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=work,
        input=made.text(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(work, "push", "-q", "origin", f"{blob}:refs/mlrelease/bound/{rc}/{made.digest}")
    return made


def upload(url: str, paths: list[Path]) -> None:
    env = {**os.environ, "TWINE_USERNAME": "case", "TWINE_PASSWORD": "case"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "twine",
            "upload",
            "--disable-progress-bar",
            "--repository-url",
            url,
            *map(str, paths),
        ],
        env=env,
        check=True,
        capture_output=True,
    )


def built(data: dict[str, Any], name: str, rc: str, folder: Path, late: bool = False) -> list[Path]:
    """The stand-ins of ``name``'s files at release time (``late``: the build-tagged wheels
    uploaded three hours after the release instead)."""
    chosen = [e for e in data["projects"][name]["files"] if ("-1-" in e["filename"]) == late]
    return [stand_in(folder / rc, e, rc) for e in chosen]


class Replay:
    """The train's repositories, indexes and train file, and what each step showed."""

    def __init__(self, base: Path, staging: tuple[str, Path], release: tuple[str, Path]) -> None:
        self.base, (self.staging, self.staging_files), (self.release_url, _) = (
            base,
            staging,
            release,
        )
        self.train = base / "train.toml"
        self.rig = Rig(base, self.staging, self.release_url, self.train)
        self.data = json.loads(DATA.read_text(encoding="utf-8"))
        self.steps: list[dict[str, Any]] = []
        self.store = base / "cache" / "objects.git"

    def world(self) -> Any:
        return gather.read(declaration.load(self.train), self.store)

    def status(self, what: str) -> None:
        out = self.rig.ok(self.base, "train", "status", "--train", str(self.train), "--json")
        rows = {
            m["name"]: {k: m[k] for k in ("rcs", "upstream", "released", "next", "blocks")}
            for m in json.loads(out)["members"]
        }
        self.steps.append({"step": what, "status": rows})

    def setup(self) -> None:
        (self.base / "origins").mkdir(parents=True)
        for name, version in MEMBERS.items():
            dev = version.rsplit(".", 1)[0] + ".0.dev0"
            pin = "" if name == "torch" else "torch==2.5.0"
            texts = files(name, dev, pin, self.staging, self.release_url)
            push_project(self.base / name, self.base / "origins" / f"{name}.git", texts)
        (self.base / "pyproject.toml").write_text(
            '[project]\nname = "pytorch-train"\n\n[tool.mlrelease.train]\n'
            'matrix = "compatibility.md"\ncache-dir = "cache"\n',
            encoding="utf-8",
        )
        self.train.write_text(train_file(self.base, self.staging, self.release_url, False))

    def candidate(self, name: str, rc: str, upstream: bool) -> Manifest:
        """Stand-ins of ``rc`` bound (a member: its upstream resolved from the staging index by
        :func:`mlrelease.train.record.resolve`) and staged, replacing the previous ones."""
        paths = built(self.data, name, rc, self.base / "built" / name)
        records: tuple[Upstream, ...] = ()
        if upstream:
            train = declaration.load(self.train)
            metas = [metadata.read(p) for p in paths]
            records = record.resolve(self.world(), train.member(name), metas)
        made = bind(self.base / name, rc, paths, records)
        for old in self.staging_files.glob(f"{name}-*"):
            old.unlink()  # the test channel's files are replaced by the next candidate's
        upload(self.staging, paths)
        return made

    def tag(self, name: str, *more: str) -> str:
        self.rig.ok(self.base / name, "release", "rc", "--execute", "--push", *more)
        found = git(self.base / name, "tag", "--points-at", "HEAD", "--sort=-v:refname")
        return str(found.splitlines()[0])

    def release_member(self, name: str, manifest: Manifest) -> None:
        """What ``release promote --publish`` does, behind the train's gatekeeper: the files,
        then the final tag naming the manifest."""
        train = declaration.load(self.train)
        gatekeeper.before_release(self.world(), train.member(name), manifest, f"release {name}")
        paths = [self.base / "built" / name / manifest.rc_tag / e.name for e in manifest.files]
        upload(self.release_url, paths)
        final = f"v{MEMBERS[name]}"
        note = f"{MEMBERS[name]} (promoted from {manifest.rc_tag})"
        work = self.base / name
        git(
            work,
            "tag",
            "-a",
            final,
            manifest.commit,
            "-m",
            note,
            "-m",
            FINAL_MARKER,
            "-m",
            f"{TRAILER}: {manifest.digest}",
        )
        git(work, "push", "-q", "origin", f"refs/tags/{final}")

    def refused(self, name: str, manifest: Manifest) -> str:
        train = declaration.load(self.train)
        try:
            gatekeeper.before_release(self.world(), train.member(name), manifest, f"release {name}")
        except gatekeeper.Violation as exc:
            return str(exc)
        raise SystemExit(f"the gatekeeper let {name} be released")

    def run(self) -> dict[str, Any]:
        self.setup()
        self.status("the train declared, nothing cut")
        cut = ("train", "cut", "--train", str(self.train), "--execute", "--push")
        _, out = self.rig.mlr(self.base / "torchvision", *cut)
        early_cut = " ".join(out.split())
        torch = self.base / "torch"
        self.rig.ok(torch, "release", "cut", "--version", "2.5", "--execute", "--push")
        self.rig.ok(torch, "release", "prepare", "--version", "2.5.0", "--execute", "--push")
        made = {"torch": self.candidate("torch", self.tag("torch"), False)}
        self.status("torch v2.5.0-rc1 staged")
        for name in ("torchvision", "torchaudio"):
            work = self.base / name
            self.rig.ok(work, "train", "cut", "--train", str(self.train), "--execute", "--push")
            self.rig.ok(
                work, "release", "prepare", "--version", MEMBERS[name], "--execute", "--push"
            )
            made[name] = self.candidate(name, self.tag(name), True)
        self.status("torchvision and torchaudio bound to torch v2.5.0-rc1 and staged")
        made["torch"] = self.candidate(
            "torch", self.tag("torch", "--rebuild", "--tag", "v2.5.0-rc10"), False
        )
        self.status("torch rebuilt: v2.5.0-rc10 bound and staged")
        stale = self.refused("torchvision", made["torchvision"])
        for name in ("torchvision", "torchaudio"):
            made[name] = self.candidate(name, self.tag(name, "--rebuild"), True)
        self.status(
            "torchvision and torchaudio rebuilt against torch v2.5.0-rc10, bound and staged"
        )
        early = self.refused("torchvision", made["torchvision"])
        self.train.write_text(train_file(self.base, self.staging, self.release_url, True))
        self.status("the train declares the gap: torch's CPython 3.13 wheel")
        for name in MEMBERS:
            self.release_member(name, made[name])
        self.status("released in dependency order")
        for name in ("torchvision", "torchaudio"):
            upload(
                self.release_url,
                built(self.data, name, "late", self.base / "built" / name, late=True),
            )
        self.status("the build-tagged aarch64 wheels uploaded three hours after the release")
        self.rig.ok(self.base, "train", "matrix", "--train", str(self.train), "--execute")
        matrix = (self.base / "compatibility.md").read_text(encoding="utf-8")
        return {
            "torch_released": made["torch"].digest,
            "steps": self.steps,
            "early_cut": early_cut,
            "stale": stale,
            "early": early,
            "matrix": matrix,
            "records": {n: [u.data() for u in m.upstream] for n, m in made.items()},
        }


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="case-study-pytorch-train-"))
    os.environ.update(GIT_ENV)
    os.environ["MLRELEASE_CACHE_DIR"] = str(base / "cache")
    servers = [start(base / "indexes" / name) for name in ("staging", "release")]
    urls = [url for _, url in servers]
    try:
        replay = Replay(
            base / "train",
            (urls[0], base / "indexes" / "staging"),
            (urls[1], base / "indexes" / "release"),
        )
        found = replay.run()
    finally:
        for server, _ in servers:
            stop(server)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    figures = compare(found["matrix"], data)
    figures["bound_to_a_wrong_upstream"] = sum(
        r["manifest"] != found["torch_released"] or r["version"] != MEMBERS["torch"]
        for listed in found["records"].values()
        for r in listed
    )
    figures["foreign"] = found["steps"][-1]["status"]["torchvision"]["released"]

    def masked(text: str) -> str:
        """The run's temporary places named as what they are."""
        for place, name in (
            (str(base / "train"), "TRAIN"),
            (urls[0], "STAGING/"),
            (urls[1], "RELEASE/"),
        ):
            text = text.replace(place, name)
        return text

    figures = json.loads(masked(json.dumps(figures)))
    recorded = json.dumps({**figures, "records": found["records"]}, indent=2)
    FIGURES.write_text(masked(recorded) + "\n", encoding="utf-8")
    PAGE.write_text(masked(page(found, figures)), encoding="utf-8")
    print(json.dumps(figures, indent=2))
    return 0 if figures["cells_equal"] == figures["cells"] else 1


if __name__ == "__main__":
    sys.exit(main())
