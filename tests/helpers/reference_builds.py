"""Projects and doctored builds for the reference tests (issues 44, 48): variants of the demo
project (native with ``csrc/``, a package vendored through a submodule, torch's ``version.py``),
wheels and sdists changed member by member (their RECORD kept true), and the release steps up
to an RC. Real repositories (a bare origin and a clone), real builds (pypa/build, gcc)."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from base64 import urlsafe_b64encode
from collections.abc import Callable
from pathlib import Path

from helpers.dist import build_dist
from helpers.release import FILES, GIT_ENV, Repo, push_demo, run_mlrelease
from mlrelease.wheels.artifacts import write_sums

RC = "v1.4.0-rc1"
WHEEL = "demo-1.4.0-py3-none-any.whl"
SDIST = "demo-1.4.0.tar.gz"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
CP = f"cp{sys.version_info.major}{sys.version_info.minor}"
NATIVE_WHEEL = f"demo-1.4.0-{CP}-{CP}-linux_x86_64.whl"

Members = dict[str, bytes]


def git_env(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)


def smudge_from_environment(monkeypatch, command: str) -> None:  # type: ignore[no-untyped-def]
    """A smudge filter ``fix`` running ``command``, set as CI passes credentials: through
    ``GIT_CONFIG_COUNT`` and its numbered keys, which the git edge keeps."""
    for key, value in {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "filter.fix.smudge",
        "GIT_CONFIG_VALUE_0": command,
    }.items():
        monkeypatch.setenv(key, value)


def project(base: Path, *changes: Callable[[dict[str, str]], None]) -> Repo:
    """The demo project changed by ``changes`` (its files by path), pushed to a bare origin."""
    files = dict(FILES)
    for change in changes:
        change(files)
    base.mkdir(parents=True)
    work = push_demo(base, files)
    return Repo(work, base / "origin.git")


def run(repo: Repo, *args: str) -> tuple[int, str]:
    """``mlrelease --root REPO ARGS`` in a child process: (exit code, its output on one line)."""
    proc = run_mlrelease(repo, *args)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())


def commit(repo: Repo, message: str) -> None:
    repo.git("add", "-A", ".")
    repo.git("commit", "-q", "--allow-empty", "-m", message)


def to_rc(
    repo: Repo,
    fix: Callable[[Path], None] | None = None,
    stale: str = "",
    options: tuple[str, ...] = (),
) -> None:
    """Cut and prepare 1.4.0; build it into ``stale`` (the previous build, pypa/build with
    ``options``) when given; apply
    ``fix`` to the work tree and commit it on the release branch; tag the RC there."""
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
    ):
        code, out = run(repo, "release", *args)
        assert code == 0, out
    if stale:
        build_dist(repo.path, repo.path / stale, *options)
    if fix is not None:
        fix(repo.path)
        commit(repo, "fix: the RC's fix")
        repo.git("push", "-q", "origin", "release/1.4")
    code, out = run(repo, "release", "rc", "--execute", "--push")
    assert code == 0, out


def bind(repo: Repo) -> tuple[int, str]:
    return run(repo, "release", "bind", "--rc", RC, "--execute", "--push")


def refused(repo: Repo, *words: str) -> str:
    """bind refuses, naming ``words``; origin binds nothing."""
    code, out = bind(repo)
    assert code == 1, out
    for word in words:
        assert word in out, out
    assert repo.origin_git("for-each-ref", "refs/mlrelease") == "", out
    return out


def bound(repo: Repo) -> tuple[str, dict[str, object]]:
    """bind binds; (its output, the manifest origin holds)."""
    code, out = bind(repo)
    assert code == 0, out
    listed = repo.origin_git("for-each-ref", "--format=%(objectname)", "refs/mlrelease")
    assert listed, out
    return out, json.loads(repo.origin_git("cat-file", "blob", listed.splitlines()[0]))


def mixed_dist(repo: Repo, wheel_from: str, sdist_from: str, wheel: str = WHEEL) -> None:
    """dist/: the wheel of one build beside the sdist of another (the wheel jobs ran before
    the fix, the sdist job after)."""
    dist = repo.path / "dist"
    dist.mkdir()
    shutil.copy(repo.path / wheel_from / wheel, dist)
    shutil.copy(repo.path / sdist_from / SDIST, dist)
    write_sums(dist)


def read_wheel(wheel: Path) -> Members:
    with zipfile.ZipFile(wheel) as archive:
        return {i.filename: archive.read(i) for i in archive.infolist()}


def rewrite_wheel(wheel: Path, change: Callable[[Members], None], name: str = "") -> Path:
    """Change the members of ``wheel`` (a dict name -> bytes), write its RECORD anew (true),
    and save it as ``name`` beside it (default: in place)."""
    members = read_wheel(wheel)
    change(members)
    record = next(m for m in members if m.endswith(".dist-info/RECORD"))
    rows = []
    for member, data in members.items():
        if member != record:
            digest = urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{member},sha256={digest},{len(data)}\n")
    members[record] = ("".join(rows) + f"{record},,\n").encode()
    target = wheel.with_name(name) if name else wheel
    if name:
        wheel.unlink()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(zipfile.ZipInfo(member, (2020, 2, 2, 0, 0, 0)), data)
    write_sums(target.parent)
    return target


def rewrite_sdist(sdist: Path, member: str, change: Callable[[str], str]) -> None:
    """Change ``member`` of the ``sdist`` (every other member as it was)."""
    raw = io.BytesIO()
    with tarfile.open(sdist) as source, tarfile.open(fileobj=raw, mode="w:gz") as target:
        for info in source.getmembers():
            handle = source.extractfile(info) if info.isfile() else None
            data = handle.read() if handle else b""
            if info.name == member:
                data = change(data.decode()).encode()
                info.size = len(data)
            target.addfile(info, io.BytesIO(data) if handle else None)
    sdist.write_bytes(raw.getvalue())
    write_sums(sdist.parent)


def shared_object(
    folder: Path, name: str = "evil", body: str = "int evil(void) { return 1; }"
) -> bytes:
    """The bytes of a real shared object, compiled here with gcc."""
    folder.mkdir(parents=True, exist_ok=True)
    source, out = folder / f"{name}.c", folder / f"{name}.so"
    source.write_text(body + "\n", encoding="utf-8")
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(out), str(source)], check=True, capture_output=True
    )
    return out.read_bytes()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- project variants --------------------------------------------------------------------

SETUPTOOLS = 'requires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"'
HATCHLING = 'requires = ["hatchling"]\nbuild-backend = "hatchling.build"'
NATIVE_WHEELS = f"""[tool.mlrelease.wheels]
kind = "native"

[tool.mlrelease.wheels.files]
sdist = true
platforms = ["linux_x86_64"]
pythons = ["{PYTHON}"]
"""
SETUPTOOLS_TABLES = """
[tool.setuptools]
package-dir = {"" = "src"}
packages = ["demo"]
"""
EXTENSION_C = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "impl.h"

static PyObject *answer(PyObject *self, PyObject *args) {
    return PyLong_FromLong(demo_answer());
}

static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, "The answer."}, {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
"""


def native(files: dict[str, str], accept: str = "") -> None:
    """The demo as a native project: a C extension ``demo._speedups`` whose implementation
    lives outside the package (``csrc/``), built by setuptools; ``accept``: lines of
    ``[tool.mlrelease.wheels.accept]``."""
    text = files["pyproject.toml"].replace(HATCHLING, SETUPTOOLS)
    text = text.replace('requires-python = ">=3.9"', f'requires-python = ">={PYTHON}"')
    wheels = NATIVE_WHEELS + (f"\n[tool.mlrelease.wheels.accept]\n{accept}\n" if accept else "")
    files["pyproject.toml"] = text.replace('[tool.mlrelease.wheels]\nkind = "pure"\n', wheels)
    files["pyproject.toml"] += SETUPTOOLS_TABLES
    files["setup.py"] = (
        "from setuptools import Extension, setup\n\n"
        'setup(ext_modules=[Extension("demo._speedups", ["src/demo/_speedups.c", '
        '"csrc/impl.c"], include_dirs=["csrc"])])\n'
    )
    files["MANIFEST.in"] = "include csrc/*.h\n"
    files[".gitignore"] += "*.egg-info/\n"
    files["csrc/impl.h"] = "int demo_answer(void);\n"
    files["csrc/impl.c"] = '#include "impl.h"\n\nint demo_answer(void) { return 42; }\n'
    files["src/demo/_speedups.c"] = EXTENSION_C
