"""Adopt mlrelease in real ONNX / PyTorch-ecosystem projects and write docs/adoption.md.

Usage: python scripts/adoption_matrix.py [--work build/adoption] [--out docs/adoption.md]
       [--only NAME ...]

For each project below: download its sdist from PyPI at the pinned version (checked against the
pinned SHA-256), unpack it into a new git repository with a bare ``origin``, commit it and tag
the release, then run what a new adopter runs: ``mlrelease init --execute`` (committed as one
change), ``mlrelease verify``, ``release status``, and dry runs of ``bump``, ``release cut`` and
``release checklist``. It checks that nothing but ``pyproject.toml`` changed, and writes one row
per project: what init detected, each command's verdict and time. Exit 0 only when every row is
green. Regenerate the page with ``nox -s adoption``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    sha256: str
    tag: str
    """The release tag the script creates; both spellings (``v1.2.3``, ``1.2.3``) occur, so the
    tag-scheme detector is exercised either way."""


PROJECTS = [
    Project(
        "onnxscript",
        "0.7.2",
        "2c664f6383d10f332a4d47b2876dcab16dba84909fe703656b19abc281fda165",
        "v0.7.2",
    ),
    Project(
        "skl2onnx",
        "1.20.0",
        "c74ea827d92ba186fe659695e8fc989cd97bfc320edce3d32b9936a5878da10a",
        "1.20.0",
    ),
    Project(
        "spox",
        "0.18.2",
        "e1f73429f5b21f297c6660d8a13b2534678139d25237de5c4776c11c60e19613",
        "v0.18.2",
    ),
    Project(
        "tf2onnx",
        "1.17.0",
        "998dc1841d5e2405226d985f28287570569034b7609924a52fb297b42462c1c1",
        "v1.17.0",
    ),
    Project(
        "onnxmltools",
        "1.16.0",
        "cd76e0a7ba6a3c4ca4acf3b4c7973cda6a70f2edc146ab11d4efc3dfbee6805a",
        "1.16.0",
    ),
    Project(
        "onnx2torch",
        "1.5.15",
        "d2a239cf0871cbbeec13d43e2a72ac2f8b3c8dcf80695e4d1040c3deed2b14a2",
        "v1.5.15",
    ),
    Project(
        "onnxoptimizer",
        "0.4.2",
        "dac4a972b5dc80a870b930e85e4b043d090d4546d7878106ef8448e07f94622e",
        "v0.4.2",
    ),
]
"""Pinned sdists. polygraphy and onnx-graphsurgeon publish wheels only, so they are not here."""

PYPI_JSON = "https://pypi.org/pypi/{name}/json"
GIT_ENV = ["-c", "user.name=Adoption", "-c", "user.email=adoption@example.invalid"]


@dataclass
class Step:
    command: str
    code: int
    seconds: float
    output: str

    @property
    def ok(self) -> bool:
        return self.code == 0


@dataclass
class Row:
    project: Project
    detected: dict[str, str] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return (
            not self.error and all(s.ok for s in self.steps) and self.changed == ["pyproject.toml"]
        )


def fetch(project: Project, cache: Path) -> Path:
    """The sdist from PyPI (cached), checked against its pinned SHA-256."""
    cache.mkdir(parents=True, exist_ok=True)
    index = PYPI_JSON.format(name=project.name)
    with urllib.request.urlopen(index, timeout=60) as response:
        data = json.load(response)
    files = [f for f in data["releases"][project.version] if f["packagetype"] == "sdist"]
    if not files:
        raise RuntimeError(f"{project.name} {project.version} has no sdist on PyPI")
    target: Path = cache / str(files[0]["filename"])
    if not target.is_file():
        url = urllib.parse.urljoin(index, files[0]["url"])
        with urllib.request.urlopen(url, timeout=300) as response:
            target.write_bytes(response.read())
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != project.sha256:
        target.unlink()
        raise RuntimeError(f"{target.name}: SHA-256 {digest}, pinned {project.sha256}")
    return target


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *GIT_ENV, *args], cwd=root, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def make_repo(sdist: Path, work: Path, project: Project) -> Path:
    """Unpack the sdist into a fresh repository whose one commit is tagged as the release."""
    base = work / project.name
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    with tarfile.open(sdist) as archive:
        # "data": no links out of the folder, no special files, owner not taken from the archive
        archive.extractall(base, filter="data")
    top: Path = next(p for p in base.iterdir() if p.is_dir())
    repo = base / "repo"
    top.rename(repo)
    origin = base / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"Release {project.version}")
    git(repo, "tag", project.tag)
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main", "--tags")
    return repo


def mlrelease(repo: Path, *args: str) -> Step:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(repo), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )
    return Step(
        "mlrelease " + " ".join(args),
        proc.returncode,
        time.perf_counter() - start,
        proc.stdout + proc.stderr,
    )


def detected(repo: Path) -> dict[str, str]:
    data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    tool = data["tool"]
    ml, bv = tool["mlrelease"], tool.get("bumpversion", {})
    files = [f["filename"] for f in bv.get("files", [])]
    source = "tags (scm)" if ml.get("version-source") == "scm" else ", ".join(files)
    if not source:
        source = "[project] version"
    return {
        "version": f"{bv.get('current_version', '?')} from {source}",
        "tags": ml["release"]["tag"].replace("{major}.{minor}.{patch}", "X.Y.Z")
        + " / "
        + ml["release"]["rc-tag"].replace("{major}.{minor}.{patch}", "X.Y.Z").replace("{rc}", "N"),
        "model": ml["release"]["model"],
        "build": ml["wheels"]["kind"],
        "changelog": ml.get("changelog", "none"),
        "tests": " ".join(ml.get("gate-options", {}).get("tests", {}).get("command", [])) or "none",
        "gates": ", ".join(ml["gates"]),
    }


def adopt(project: Project, work: Path) -> Row:
    row = Row(project)
    try:
        repo = make_repo(fetch(project, work / "sdists"), work, project)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
        row.error = f"setup failed: {exc}"
        return row
    init = mlrelease(repo, "init", "--execute")
    row.steps.append(init)
    if not init.ok:
        return row
    changed = (
        git(repo, "diff", "--name-only")
        + "\n"
        + git(repo, "ls-files", "--others", "--exclude-standard")
    )
    row.changed = sorted(line for line in changed.splitlines() if line)
    row.detected = detected(repo)
    git(repo, "commit", "-q", "-am", "chore: adopt mlrelease")
    data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    version = data["tool"]["bumpversion"]["current_version"]
    gates = data["tool"]["mlrelease"]["gates"]
    major, minor, patch = (int(p) for p in version.split(".")[:3])
    row.steps += [
        # The projects' own test suites need their own dependencies (TensorFlow, scikit-learn,
        # torch...), which are theirs to install; every other proposed gate runs.
        # An sdist has no .gitignore: the reports go outside the repository, so that the tree
        # stays clean for the release verbs after it.
        mlrelease(
            repo,
            "verify",
            "--report-dir",
            str(repo.parent / "reports"),
            *(["--skip", "tests"] if "tests" in gates else []),
        ),
        mlrelease(repo, "release", "status"),
        mlrelease(repo, "bump", "--part", "patch"),
        mlrelease(repo, "release", "cut", "--version", f"{major}.{minor}"),
        mlrelease(repo, "release", "checklist", "--version", f"{major}.{minor}.{patch + 1}"),
    ]
    return row


def verdict(step: Step) -> str:
    return f"{'pass' if step.ok else 'FAIL'} ({step.seconds:.1f} s)"


def render(rows: list[Row]) -> str:
    lines = [
        "# Adoption matrix",
        "",
        "<!-- Generated by `nox -s adoption` (scripts/adoption_matrix.py); "
        "do not edit by hand. -->",
        "",
        "Real ONNX / PyTorch-ecosystem projects, from their PyPI sdists at pinned versions "
        "(SHA-256 checked), each unpacked into a git repository with a bare origin, whose one "
        "commit is tagged as the release (the tag spelling below is the one the script uses). "
        "On each, `mlrelease init --execute` wrote `pyproject.toml` (the only file changed; "
        "committed as one change), then `mlrelease verify --skip tests` ran every proposed gate"
        " but the project's own test suite (it needs the project's own dependencies), followed "
        "by `release status` and dry runs of `bump --part patch`, `release cut` and `release "
        "checklist`.",
        "",
        "## What init detected",
        "",
        "| project | version | tags | model | build | changelog | tests | gates |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        d = r.detected
        lines.append(
            f"| {r.project.name} {r.project.version} | {d.get('version', '-')} | "
            f"{d.get('tags', '-')} | {d.get('model', '-')} | {d.get('build', '-')} | "
            f"{d.get('changelog', '-')} | {d.get('tests', '-')} | {d.get('gates', '-')} |"
        )
    lines += [
        "",
        "## Verdicts and times",
        "",
        "| project | files changed | init | verify | status | bump | cut | checklist "
        "| init + verify | row |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [verdict(s) for s in r.steps] + ["-"] * (6 - len(r.steps))
        both = sum(s.seconds for s in r.steps[:2])
        lines.append(
            f"| {r.project.name} | {', '.join(r.changed) or '-'} | {' | '.join(cells)} | "
            f"{both:.1f} s | {'green' if r.ok else 'RED: ' + (r.error or 'see above')} |"
        )
    lines += [
        "",
        "Times are wall-clock seconds on the machine that ran the session (two shared cores); "
        "each command is a fresh `python -m mlrelease` process, so about 0.5 s of every time is "
        "interpreter start-up and imports. For the native project most of init and verify is "
        "cibuildwheel listing its builds. polygraphy and onnx-graphsurgeon publish wheels only "
        "(no sdist), so they are not in the matrix.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("build/adoption"))
    parser.add_argument("--out", type=Path, default=Path("docs/adoption.md"))
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    args = parser.parse_args(argv)
    chosen = [p for p in PROJECTS if not args.only or p.name in args.only]
    rows = []
    for project in chosen:
        row = adopt(project, args.work.resolve())
        rows.append(row)
        status = "green" if row.ok else "RED"
        print(f"{project.name} {project.version}: {status}", flush=True)
        for step in row.steps:
            print(f"  {verdict(step)} {step.command}")
            if not step.ok:
                print("    " + step.output[-3000:].replace("\n", "\n    "))
        if row.error:
            print(f"  {row.error}")
    if not args.only:
        args.out.write_text(render(rows), encoding="utf-8")
        print(f"Wrote {args.out}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
