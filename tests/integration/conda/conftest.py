"""Fixtures of the conda tests: the demo project with two real releases bound and promoted
(1.4.0, then 1.5.0, whose metadata adds a dependency, loosens a pin and moves its train
sibling), a fresh copy per test, and the feedstock of 1.4.0 in either shape."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.feedstock import make_feedstock, sdist_sha256
from helpers.release import FILES, GIT_ENV, Repo, push_demo, run_mlrelease

from mlrelease.cli import main

DEPENDENCIES = {
    "1.4.0": ["numpy>=1.22,<2", "protobuf>=4.25.1", "torch==2.12.0"],
    "1.5.0": ["numpy>=1.22", "protobuf>=4.25.1", "typing_extensions>=4.7.1", "torch==2.13.0"],
}
"""What each release's wheel requires: 1.5.0 adds typing_extensions, drops numpy's upper bound
and moves to the next torch."""

RUN_140 = ["numpy >=1.22,<2", "protobuf >=4.25.1", "pytorch >=2.12,<2.13"]
"""The run requirements the feedstock of 1.4.0 carries (it followed the metadata)."""


def _deps(version: str) -> str:
    return "dependencies = [" + ", ".join(f'"{d}"' for d in DEPENDENCIES[version]) + "]\n"


def _release(repo: Repo, series: str, version: str) -> None:
    """Cut, prepare, tag, build, bind and promote ``version`` (the RC's files, no rebuild)."""
    rc = f"v{version}-rc1"
    for args in (
        ("release", "cut", "--version", series, "--execute", "--push"),
        ("release", "prepare", "--version", version, "--execute", "--push"),
        ("release", "rc", "--execute", "--push"),
    ):
        proc = run_mlrelease(repo, *args)
        assert proc.returncode == 0, proc.stderr
    repo.build()
    for args in (
        ("release", "bind", "--rc", rc, "--execute", "--push"),
        ("verify",),
        ("release", "promote", "--rc", rc, "--published-elsewhere", "--execute", "--push"),
    ):
        proc = run_mlrelease(repo, *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.rmtree(repo.path / "dist")


@pytest.fixture(scope="session")
def _released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("conda-released")
    files = dict(FILES)
    files["pyproject.toml"] = files["pyproject.toml"].replace(
        'requires-python = ">=3.9"\n', 'requires-python = ">=3.9"\n' + _deps("1.4.0")
    )
    push_demo(base, files)
    repo = Repo(base / "work", base / "origin.git")
    _with_env(GIT_ENV, lambda: _two_releases(repo))
    return base


def _with_env(env: dict[str, str], body: Callable[[], None]) -> None:
    import os

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        body()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _two_releases(repo: Repo) -> None:
    _release(repo, "1.4", "1.4.0")
    repo.git("switch", "-q", "main")
    text = (repo.path / "pyproject.toml").read_text(encoding="utf-8")
    repo.commit_file("pyproject.toml", text.replace(_deps("1.4.0"), _deps("1.5.0")), "feat: deps")
    repo.commit_file(
        "src/demo/core.py", "def answer() -> int:\n    return 43\n", "feat: a new answer"
    )
    repo.git("push", "-q", "origin", "main")
    _release(repo, "1.5", "1.5.0")


@pytest.fixture
def released(_released: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A fresh copy of the released demo (work tree with its store, bare origin)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    shutil.copytree(_released, tmp_path / "r", symlinks=True)
    work, origin = tmp_path / "r" / "work", tmp_path / "r" / "origin.git"
    subprocess.run(["git", "remote", "set-url", "origin", str(origin)], cwd=work, check=True)
    return Repo(work, origin)


@pytest.fixture
def stock(released: Repo, tmp_path: Path) -> Callable[..., Path]:
    """``stock(shape, run=..., conda=...)``: the feedstock of demo 1.4.0 in ``shape``, and the
    project's ``[tool.mlrelease.conda]`` pointed at its clone (``conda``: more keys)."""

    def make(
        shape: str,
        run: list[str] | None = None,
        conda: str = "",
        extra: dict[str, str] | None = None,
        patched: bool = True,
    ) -> Path:
        sha = sdist_sha256(released, "1.4.0")
        runs = RUN_140 if run is None else run
        path = make_feedstock(tmp_path / "fs", shape, "1.4.0", sha, runs, extra, patched=patched)
        pyproject = released.path / "pyproject.toml"
        table = f'\n[tool.mlrelease.conda]\nfeedstock = "{path.as_posix()}"\n{conda}'
        text = pyproject.read_text(encoding="utf-8").replace(
            'gates = ["git_state", "changelog"]', 'gates = ["git_state", "changelog", "conda"]'
        )
        pyproject.write_text(text + table, encoding="utf-8")
        return path

    return make


@pytest.fixture
def conda(
    released: Repo, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[..., tuple[int, str, str]]]:
    """``mlrelease --root <released> conda ARGS`` in-process: (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--root", str(released.path), "conda", *args])
        out, err = capsys.readouterr()
        sys.stdout.write(out)
        sys.stderr.write(err)
        return code, out, " ".join(err.split())

    yield run
