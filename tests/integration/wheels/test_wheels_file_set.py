"""Issue 44: the release's file set is declared once (``[tool.mlrelease.wheels.files]``),
proposed by ``mlrelease init --index`` from the newest release's files on the index, and checked
as a set. torchao (an x86_64 abi3 wheel beside a ``py3-none-any`` wheel, no sdist, no aarch64)
and Torch-TensorRT (12 wheels, no sdist) release with the set init proposes, and are refused
when a declared file is missing. The index is pypiserver on 127.0.0.1 holding wheels named as
on PyPI (stand-in bytes: PyPI itself cannot be reached from the tests)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.dist import make_dist
from helpers.index import serve
from helpers.projects.tag_model import AO, TENSORRT
from helpers.release import GIT_ENV
from helpers.torch_family import _start

from mlrelease.cli import main
from mlrelease.wheels.artifacts import write_sums

TORCHAO = [
    "torchao-0.18.0-cp39-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
    "torchao-0.18.0-py3-none-any.whl",
]
TORCHAO_OLDER = ["torchao-0.17.0-cp39-abi3-manylinux_2_28_aarch64.whl", "torchao-0.17.0.tar.gz"]
TENSORRT_WHEELS = [
    f"torch_tensorrt-2.13.0-cp3{m}-cp3{m}-{platform}.whl"
    for m in (10, 11, 12, 13)
    for platform in ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64")
]
TORCH = [f"demo-2.5.0-cp3{m}-cp3{m}-manylinux_2_28_x86_64.whl" for m in (9, 10, 11, 12)]
TORCH_PYPROJECT = """\
[project]
name = "demo"
version = "2.5.0"
requires-python = ">=3.8"
classifiers = [
  "Programming Language :: Python :: 3.9",
  "Programming Language :: Python :: 3.10",
  "Programming Language :: Python :: 3.11",
  "Programming Language :: Python :: 3.12",
]
"""


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def _files(folder: Path, names: list[str]) -> Path:
    """Real wheels and sdists (stand-in bytes) under ``names`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder.parent / f"{folder.name}-source"
    (source / "src/demo").mkdir(parents=True, exist_ok=True)
    (source / "src/demo/__init__.py").write_text("")
    for name in names:
        if name.endswith(".tar.gz"):
            version = name[: -len(".tar.gz")].rsplit("-", 1)[1]
            made = make_dist(source, source / "out", version, name="demo")[1]
        else:
            _, version, tag = name[: -len(".whl")].split("-", 2)
            made = make_dist(source, source / "out", version, name="demo", tag=tag)[0]
        shutil.copy(made, folder / name)
    for path in folder.iterdir():
        if path.name == "SHA256SUMS":
            path.unlink()
    return folder


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """pypiserver on 127.0.0.1: (its simple URL, the folder of the files it serves)."""
    with serve(tmp_path / "index") as url:
        yield url.rstrip("/") + "/simple/", tmp_path / "index"


def _adopt(work: Path, simple: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``git commit`` of ``work``, then ``mlrelease init --execute --index``; its output."""
    capsys.readouterr()
    code = main(["--root", str(work), "init", "--execute", "--index", simple])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    return " ".join((out + err).split())


def _promote(
    work: Path, folder: Path, version: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    write_sums(folder)
    capsys.readouterr()
    args = ["wheels", "promote", "--artifacts", str(folder), "--version", version]
    code = main(["--root", str(work), *args])
    out, err = capsys.readouterr()
    return code, " ".join((out + err).split())


def test_torchao_releases_with_the_set_init_proposes(
    tmp_path: Path, index: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    simple, held = index
    _files(held, TORCHAO + TORCHAO_OLDER)
    setup = AO["setup.py"].replace('"demo"', '"torchao"')
    work, _ = _start(tmp_path / "ao", {**AO, "setup.py": setup})
    said = _adopt(work, simple, capsys)
    text = (work / "pyproject.toml").read_text()
    assert "[tool.mlrelease.wheels.files]" in text and "torchao 0.18.0" in said, text
    assert "sdist = false" in text and "pure = true" in text
    assert 'platforms = ["manylinux_x86_64"]' in text, text
    dist = _files(tmp_path / "assets", TORCHAO)
    code, out = _promote(work, dist, "0.18.0", capsys)
    assert code == 0, out
    (dist / TORCHAO[1]).unlink()
    code, out = _promote(work, dist, "0.18.0", capsys)
    assert code != 0 and "py3-none-any" in out, out


def test_torch_tensorrt_releases_with_the_set_init_proposes(
    tmp_path: Path, index: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    simple, held = index
    _files(held, TENSORRT_WHEELS)
    work, _ = _start(tmp_path / "trt", TENSORRT)
    _adopt(work, simple, capsys)
    text = (work / "pyproject.toml").read_text()
    assert 'pythons = ["3.10", "3.11", "3.12", "3.13"]' in text and "sdist = false" in text, text
    dist = _files(tmp_path / "assets", TENSORRT_WHEELS)
    code, out = _promote(work, dist, "2.13.0", capsys)
    assert code == 0, out
    (dist / "torch_tensorrt-2.13.0-cp311-cp311-win_amd64.whl").unlink()
    code, out = _promote(work, dist, "2.13.0", capsys)
    assert code != 0 and "cp311-win_amd64" in out, out


def test_requires_python_that_no_wheel_serves_is_refused(
    tmp_path: Path, index: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The torch 2.5.0 incident: requires-python >=3.8, no cp38 wheel, no sdist. The set says
    no sdist; pip on 3.8 would find nothing it can install. Refused unless declared (init
    proposes the declaration, with the advice to raise requires-python)."""
    simple, held = index
    _files(held, TORCH)
    files = {"pyproject.toml": TORCH_PYPROJECT, "demo/__init__.py": ""}
    work, _ = _start(tmp_path / "torch", files)
    said = _adopt(work, simple, capsys)
    text = (work / "pyproject.toml").read_text()
    assert 'unserved-pythons = ["3.8"]' in text and "raise requires-python" in said, said
    dist = _files(tmp_path / "assets", TORCH)
    assert _promote(work, dist, "2.5.0", capsys)[0] == 0  # declared: passes
    (work / "pyproject.toml").write_text(text.replace('unserved-pythons = ["3.8"]\n', ""))
    code, out = _promote(work, dist, "2.5.0", capsys)
    assert code != 0 and "requires-python '>=3.8' allows CPython 3.8" in out, out
    assert "manylinux_x86_64" in out
