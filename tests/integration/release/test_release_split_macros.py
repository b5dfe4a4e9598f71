"""Torch-TensorRT's C++ version macros (``cpp/include/torch_tensorrt/macros.h``): the version
split into one ``#define`` per part, found by ``init``, checked by the ``versions`` gate and
moved by ``release cut`` and ``bump`` through bump-my-version's own part templates, on a
repository shaped like Torch-TensorRT (:mod:`helpers.torch_family`, a bare origin)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.projects.tag_model import TENSORRT
from helpers.release import GIT_ENV, Repo, run_mlrelease
from helpers.repo import Run, in_process
from helpers.torch_family import adopt, push_torch_family

MACROS = "cpp/include/torch_tensorrt/macros.h"

HEADER = """\
#pragma once

// Does this need to be gaurded or something?
#define XSTR(x) #x
#define STR(x) XSTR(x)

#define TORCH_TENSORRT_MAJOR_VERSION 2
#define TORCH_TENSORRT_MINOR_VERSION {minor}
#define TORCH_TENSORRT_PATCH_VERSION 0
#define TORCH_TENSORRT_VERSION      \\
  STR(TORCH_TENSORRT_MAJOR_VERSION) \\
  "." STR(TORCH_TENSORRT_MINOR_VERSION) "." STR(TORCH_TENSORRT_PATCH_VERSION)

// A vendored library's own version: another package's, never bumped.
#define NVINFER_MAJOR 10
#define NVINFER_MINOR 9
#define NVINFER_PATCH 0
"""
"""The real file's version lines (pytorch/TensorRT at 2.14's development), and TensorRT's
own split version beside them."""


def _header(minor: int) -> str:
    return HEADER.replace("{minor}", str(minor))


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


@pytest.fixture
def tensorrt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """release/2.13 whose macros say 2.13.0; main at 2.14.0a0 whose macros say 2.14.0."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path, {**TENSORRT, MACROS: _header(13)})
    repo.commit_file(MACROS, _header(14), "upgrade torch-tensorrt from 2.13 to 2.14 on main")
    repo.git("push", "-q", "origin", "main")
    yield repo


def _said(done_out: str, done_err: str) -> str:
    return " ".join((done_out + done_err).split())


def test_init_proposes_each_part_macro_with_its_part(tensorrt: Repo) -> None:
    done = run_mlrelease(tensorrt, "init")
    assert done.returncode == 0, done.stderr
    out, said = done.stdout, _said(done.stdout, done.stderr)
    for part in ("major", "minor", "patch"):
        name = f"TORCH_TENSORRT_{part.upper()}_VERSION"
        assert f'search = "#define {name} {{current_{part}}}"' in out, out
        assert f'replace = "#define {name} {{new_{part}}}"' in out, out
    assert out.count(f'filename = "{MACROS}"') == 3, out
    assert (
        f"{MACROS}:7 splits the version into macros TORCH_TENSORRT_{{MAJOR,MINOR,PATCH}}_VERSION"
        in said
    )
    assert f"{MACROS}:15: split version macros NVINFER_{{MAJOR,MINOR,PATCH}} say 10.9.0" in said
    assert "NVINFER_MAJOR {current_major}" not in out


def test_cut_and_bump_move_the_macros_and_the_gate_names_a_stale_one(
    tensorrt: Repo, run: Run
) -> None:
    repo = tensorrt
    adopt(repo, run)
    code, out, err = run(repo.path, "verify", "--only", "versions")
    assert code == 0, out + err
    code, out, err = run(repo.path, "release", "cut", "--version", "2.14", "--execute")
    assert code == 0, out + err
    assert repo.git("show", f"main:{MACROS}") == _header(15).rstrip("\n")
    assert repo.git("show", f"release/2.14:{MACROS}") == _header(14).rstrip("\n")
    repo.git("switch", "-q", "main")
    (repo.path / MACROS).write_text(_header(14), encoding="utf-8")  # not moved with main
    repo.git("commit", "-q", "-am", "revert the macros by mistake")
    code, out, err = run(repo.path, "verify", "--only", "versions")
    said = _said(out, err)
    assert code != 0, said
    assert f"{MACROS}" in said and "line 8: found `14`, expected `15` ({current_minor})" in said
    repo.git("reset", "-q", "--hard", "HEAD~1")
    code, out, err = run(repo.path, "bump", "--part", "major", "--execute")
    assert code == 0, out + err
    text = (repo.path / MACROS).read_text(encoding="utf-8")
    assert "MAJOR_VERSION 3\n" in text and "MINOR_VERSION 0\n" in text, text
    assert "PATCH_VERSION 0\n" in text and "#define NVINFER_MINOR 9\n" in text, text
    code, out, err = run(repo.path, "verify", "--only", "versions")
    assert code == 0, out + err
