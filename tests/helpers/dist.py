"""Builds for the release tests. :func:`build_dist`: the real build of a work tree (pypa/build),
what a maintainer's ``dist/`` holds; run as a script by the checklist: ``python3 dist.py ROOT
FOLDER VERSION``. :func:`make_dist`: a stand-in wheel and sdist made from ``src/<name>`` (stdlib
only, deterministic), for files that no commit builds (crafted, foreign, another version's)."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

STAMP = (2020, 1, 1, 0, 0, 0)


def _zip_add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, STAMP)
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def make_dist(
    root: Path,
    folder: Path,
    version: str,
    name: str = "demo",
    readme: str | None = None,
    tag: str = "py3-none-any",
) -> list[Path]:
    """Build ``folder/{name}-{version}-{tag}.whl`` and the sdist from ``root``'s
    ``src/{name}`` files, and write ``folder/SHA256SUMS``; returns the two files. ``readme``:
    a Markdown long description in the metadata (what ``twine check --strict`` asks for);
    ``tag``: the wheel's tag (a platform tag stands in for a native build's wheel)."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = sorted((root / "src" / name).glob("*.py"))
    text = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    if readme is not None:
        text += f"Description-Content-Type: text/markdown\n\n{readme}\n"
    metadata = text.encode()
    info = f"{name}-{version}.dist-info"
    wheel = folder / f"{name}-{version}-{tag}.whl"
    files = {f"{name}/{p.name}": p.read_bytes() for p in sources}
    files[f"{info}/METADATA"] = metadata
    purelib = "true" if tag == "py3-none-any" else "false"
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: {purelib}\nTag: {tag}\n"
    ).encode()
    record = "".join(
        f"{n},sha256={hashlib.sha256(d).hexdigest()},{len(d)}\n" for n, d in files.items()
    )
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    with zipfile.ZipFile(wheel, "w") as archive:
        for member, data in files.items():
            _zip_add(archive, member, data)
    sdist = folder / f"{name}-{version}.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        entries = {
            "PKG-INFO": metadata,
            **{f"src/{name}/{p.name}": p.read_bytes() for p in sources},
        }
        for member, data in entries.items():
            entry = tarfile.TarInfo(f"{name}-{version}/{member}")
            entry.size, entry.mtime, entry.mode = len(data), 1577836800, 0o644
            archive.addfile(entry, io.BytesIO(data))
    import gzip

    sdist.write_bytes(gzip.compress(raw.getvalue(), mtime=0))
    built = [wheel, sdist]
    sums = "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
        for p in sorted(built, key=lambda p: p.name)
    )
    (folder / "SHA256SUMS").write_text(sums, encoding="utf-8")
    return built


def build_dist(root: Path, folder: Path, *options: str) -> list[Path]:
    """The real build of ``root``'s work tree (pypa/build: the sdist, then the wheel from it;
    ``--sdist --wheel``: both from the tree) into ``folder``, with ``SHA256SUMS``; returns the
    two files."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "build", *options, "--installer", "uv", "-o", str(folder)]
    proc = subprocess.run([*command, str(root)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"python -m build {root}: {proc.stdout[-2000:]}{proc.stderr}")
    built = sorted(p for p in folder.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in built)
    (folder / "SHA256SUMS").write_text(sums, encoding="utf-8")
    return built


if __name__ == "__main__":
    build_dist(Path(sys.argv[1]), Path(sys.argv[1]) / sys.argv[2])
