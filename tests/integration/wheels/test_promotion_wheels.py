"""`wheels promote`: a release candidate's files verified against SHA256SUMS and named with the
final version. It uploads nothing: publishing is `release publish`'s, the one publish path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.index import serve
from helpers.wheels import FINAL, RC, Built

from mlrelease import cli
from mlrelease.registry import load_config
from mlrelease.wheels import artifacts, promote
from mlrelease.wheels.project import Project, from_config


def project_at(root: Path) -> Project:
    return from_config(load_config(root))


@pytest.fixture
def release(built: Built, tmp_path: Path) -> Path:
    """The RC's assets as the release workflow downloads them."""
    folder = tmp_path / "release"
    shutil.copytree(built.dist, folder)
    return folder


def _promote(built: Built, folder: Path, *extra: str) -> int:
    return cli.main(
        [
            "wheels",
            "promote",
            "--project",
            str(built.repo),
            "--artifacts",
            str(folder),
            "--version",
            FINAL,
            *extra,
        ]
    )


@pytest.mark.slow
def test_dry_run_verifies_the_files_and_uploads_nothing(
    built: Built, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _promote(built, release) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert f"2 artifacts of mlrelease {FINAL} verified against SHA256SUMS" in err
    assert "Verified; nothing uploaded (publishing is `mlrelease release publish`)" in err
    promotion = promote.prepare(project_at(built.repo), release, version=FINAL)
    assert promotion.ok and sorted(p.name for p in promotion.files) == [
        f"mlrelease-{FINAL}-py3-none-any.whl",
        f"mlrelease-{FINAL}.tar.gz",
    ]


@pytest.mark.slow
def test_tampered_artifact_fails_naming_it(
    built: Built, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = release / f"mlrelease-{FINAL}-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    assert _promote(built, release, "--execute") == 1
    err = capsys.readouterr().err
    assert f"{wheel.name}: SHA-256 differs from SHA256SUMS (tampered or corrupted)" in err
    assert "Nothing was uploaded." in err


@pytest.mark.slow
def test_missing_and_extra_files_fail_naming_them(
    built: Built, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (release / f"mlrelease-{FINAL}.tar.gz").unlink()
    (release / "notes.txt").write_text("not an artifact\n")
    assert _promote(built, release) == 1
    err = capsys.readouterr().err
    assert f"mlrelease-{FINAL}.tar.gz: listed in SHA256SUMS but missing" in err
    assert "notes.txt: present in" in err and "not listed in SHA256SUMS (extra)" in err
    assert "no sdist among the artifacts" in err


@pytest.mark.slow
def test_rc_named_artifact_is_refused(
    built: Built, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = release / f"mlrelease-{FINAL}-py3-none-any.whl"
    wheel.rename(release / f"mlrelease-{RC}-py3-none-any.whl")
    artifacts.write_sums(release)  # consistent sums: only the name is wrong
    assert _promote(built, release) == 1
    assert (
        f"mlrelease-{RC}-py3-none-any.whl: version in the file name is `{RC}`, expected `{FINAL}`"
    ) in capsys.readouterr().err


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """pypiserver on 127.0.0.1 (no authentication): the upload target of the tests."""
    packages = tmp_path / "index"
    with serve(packages) as url:
        yield url, packages


@pytest.mark.slow
def test_execute_is_refused_and_the_index_gets_nothing(
    built: Built,
    release: Path,
    index: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One publish path (docs/release/invariants.md): release files reach an index only through
    `release publish`, from the store, against the manifest bound to the RC. `wheels promote`
    verifies; with --execute it refuses, even with files that match their SHA256SUMS."""
    url, packages = index
    monkeypatch.setenv("TWINE_USERNAME", "test")
    monkeypatch.setenv("TWINE_PASSWORD", "test")
    assert _promote(built, release, "--repository-url", url, "--execute") != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "mlrelease release publish --rc vX.Y.Z-rcN --execute" in err, err
    assert "Nothing was uploaded." in err
    assert list(packages.iterdir()) == []
