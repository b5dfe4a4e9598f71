"""What the stand-in actions and commands of the workflow rehearsal do (stdlib only).

GitHub's services cannot be reached here, so each action the workflows use (``actions/checkout``
only where act does not check out the clone itself) is replaced by a composite action under
``tests/workflows/actions/<owner>/<name>/`` that calls one sub-command of this file; ``gh`` is
replaced by ``tests/workflows/bin/gh``. Each does the least that lets the wiring be tested:

- artifacts live in ``$REHEARSAL_ARTIFACTS/<name>/``, one folder per name, so a job that
  downloads a name no job uploaded fails, as on GitHub;
- ``pypa/gh-action-pypi-publish`` uploads with twine to the local index ``$REHEARSAL_INDEX``
  and records the request (files, SHA-256, attestations asked for) in ``$REHEARSAL_RECORD``;
- ``actions/checkout`` of another ref (``gh-pages``) clones it from the bare origin;
- ``attest-build-provenance`` records the subjects' SHA-256; ``gh attestation verify`` checks
  a file against them; ``gh release`` keeps each release's assets in a folder.

Every stand-in appends one JSON line to ``$REHEARSAL_RECORD/standins.jsonl``: the rehearsal
prints them per job.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


class StandInError(Exception):
    """A failure the workflow step reports, as the real action would."""


def _root(variable: str) -> Path:
    value = os.environ.get(variable)
    if not value:
        raise StandInError(f"${variable} is not set: run the stand-ins through the rehearsal")
    path = Path(value)
    path.mkdir(parents=True, exist_ok=True)
    return path


def record(kind: str, **data: object) -> None:
    """Append what a stand-in did to the run's record, with the job it ran in."""
    entry = {"standin": kind, "job": os.environ.get("GITHUB_JOB", ""), **data}
    shown = [data[k] for k in ("note", "name", "names", "subjects", "files") if k in data][:1]
    # on stdout, where act's log keys it by job and matrix entry
    print(f"rehearsal: stood in {kind}: {shown[0] if shown else ''}", flush=True)
    with (_root("REHEARSAL_RECORD") / "standins.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, sort_keys=True) + "\n")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def upload(name: str, path: str, if_no_files_found: str) -> None:
    """actions/upload-artifact: copy the files under ``path`` to the artifact ``name``."""
    store = _root("REHEARSAL_ARTIFACTS") / name
    if store.exists():
        raise StandInError(f"upload-artifact: an artifact named {name!r} already exists")
    sources = [Path(p.strip()) for p in path.splitlines() if p.strip()]
    files = [(s, s.name) for s in sources if s.is_file()]
    for folder in (s for s in sources if s.is_dir()):
        files += [(f, f.relative_to(folder).as_posix()) for f in sorted(folder.rglob("*"))]
    files = [(f, rel) for f, rel in files if f.is_file()]
    if not files:
        message = f"upload-artifact: no files found at {path.strip()!r} for artifact {name!r}"
        if if_no_files_found == "error":
            raise StandInError(message)
        print(f"::warning::{message}")
        return
    for source, relative in files:
        target = store / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    record("upload-artifact", name=name, files=sorted(rel for _, rel in files))


def download(name: str, pattern: str, path: str) -> None:
    """actions/download-artifact: one artifact's files into ``path``, or each artifact matching
    ``pattern`` (all when both are empty) into ``path/<name>/``."""
    store = _root("REHEARSAL_ARTIFACTS")
    target = Path(path or ".")
    if name:
        source = store / name
        if not source.is_dir():
            known = ", ".join(sorted(p.name for p in store.iterdir())) or "none"
            raise StandInError(
                f"download-artifact: Artifact not found: {name!r} (uploaded: {known})"
            )
        shutil.copytree(source, target, dirs_exist_ok=True)
        record("download-artifact", name=name)
        return
    names = sorted(p.name for p in store.iterdir() if fnmatch.fnmatch(p.name, pattern or "*"))
    for each in names:
        shutil.copytree(store / each, target / each, dirs_exist_ok=True)
    record("download-artifact", pattern=pattern, names=names)


def _on_index(index: str, name: str) -> bool:
    """Whether the index already serves the file ``name`` (pypiserver: /packages/<name>)."""
    try:
        urllib.request.urlopen(urllib.request.Request(f"{index}packages/{name}", method="HEAD"))
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False
        raise
    return True


def publish(packages_dir: str, attestations: str, skip_existing: str) -> None:
    """pypa/gh-action-pypi-publish: twine upload to the local index, and the record. twine's
    --skip-existing works with PyPI only, so the files the index has are left out here."""
    folder = Path(packages_dir)
    files = sorted(p for p in folder.iterdir() if p.suffix in (".whl", ".gz"))
    if not files:
        raise StandInError(f"pypi-publish: no distributions in {packages_dir!r}")
    index = os.environ["REHEARSAL_INDEX"]
    there = [p for p in files if skip_existing == "true" and _on_index(index, p.name)]
    send = [p for p in files if p not in there]
    command = [os.environ.get("REHEARSAL_PYTHON", sys.executable), "-m", "twine", "upload"]
    command += ["--repository-url", index, "-u", "x", "-p", "x", "--disable-progress-bar"]
    if send:
        subprocess.run([*command, *map(str, send)], check=True)
    record(
        "pypi-publish",
        files={p.name: sha256(p) for p in files},
        skipped=sorted(p.name for p in there),
        attestations=attestations == "true",
    )


def attest(subject_path: str) -> None:
    """actions/attest-build-provenance: record the subjects' SHA-256 (no Sigstore here)."""
    subjects = [
        Path(p)
        for line in subject_path.splitlines()
        for p in sorted(Path().glob(line.strip()))
        if line.strip()
    ]
    if not subjects:
        raise StandInError(f"attest-build-provenance: no subjects match {subject_path.strip()!r}")
    store = _root("REHEARSAL_ATTESTATIONS")
    for subject in subjects:
        (store / sha256(subject)).write_text(subject.name, encoding="utf-8")
    record("attest-build-provenance", subjects=sorted(p.name for p in subjects))


def checkout(repository: str, ref: str, path: str) -> None:
    """actions/checkout of another ref than the event's (act copies the clone for that one):
    clone ``ref`` of the bare origin into ``path`` of the workspace, its origin the bare one."""
    own = os.environ.get("GITHUB_REPOSITORY", "")
    if repository and repository != own:
        raise StandInError(f"checkout: only this repository ({own}) is here, not {repository!r}")
    origin = _root("REHEARSAL_ORIGIN")
    target = Path(os.environ.get("GITHUB_WORKSPACE", ".")) / path
    if target.exists() and any(target.iterdir()):
        raise StandInError(f"checkout: {target} is not empty")
    command = ["git", "clone", "--quiet", "--no-checkout", str(origin), str(target)]
    for args in (command, ["git", "-C", str(target), "checkout", "--quiet", ref or "HEAD"]):
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode:
            raise StandInError(f"checkout: {' '.join(args)}: {done.stderr.strip()}")
    record("checkout", note=f"{ref or 'HEAD'} of the bare origin into {path or '.'}")


def note(kind: str, text: str) -> None:
    """A stand-in that only reports what it did (setup-python)."""
    record(kind, note=text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="standins")
    sub = parser.add_subparsers(dest="action", required=True)
    up = sub.add_parser("upload")
    up.add_argument("--name", required=True)
    up.add_argument("--path", required=True)
    up.add_argument("--if-no-files-found", default="warn")
    down = sub.add_parser("download")
    down.add_argument("--name", default="")
    down.add_argument("--pattern", default="")
    down.add_argument("--path", default="")
    pub = sub.add_parser("publish")
    pub.add_argument("--packages-dir", default="dist")
    pub.add_argument("--attestations", default="true")
    pub.add_argument("--skip-existing", default="false")
    att = sub.add_parser("attest")
    att.add_argument("--subject-path", required=True)
    out = sub.add_parser("checkout")
    out.add_argument("--repository", default="")
    out.add_argument("--ref", default="")
    out.add_argument("--path", default="")
    said = sub.add_parser("note")
    said.add_argument("kind")
    said.add_argument("text")
    args = vars(parser.parse_args(argv))
    action: dict[str, Callable[..., None]] = {"upload": upload, "download": download}
    action |= {"publish": publish, "attest": attest, "checkout": checkout, "note": note}
    try:
        action[args.pop("action")](**args)
    except StandInError as error:
        print(f"::error::{error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
