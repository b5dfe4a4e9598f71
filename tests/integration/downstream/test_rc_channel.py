"""The RC channel end to end: the release checklist's ``rc-channel`` step publishes the RC's
bound files to a test index (pypiserver on 127.0.0.1 standing in for TestPyPI), and
``mlrelease downstream run --candidate VERSION`` reads the candidate from that index. The
consumers test exactly the bytes the RC binds, and the bytes that will be promoted.

The project is the release tests' demo project (a real git repository with a bare origin: cut,
prepare, rc, build, bind), renamed ``mlrdsx_demo`` so no index but ours holds it. Its RC
changes ``answer()`` from 42 to 43; the baseline (1.3.0) and the consumer (a real sdist with
its tests, built with uv) sit in a find-links folder; pytest comes from PyPI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import downstream as planted
from helpers.dist import build_dist, make_dist
from helpers.index import serve
from helpers.invariants import bound_files, hashes
from helpers.release import FILES, GIT_ENV, Repo

from mlrelease.cli import main
from mlrelease.release.checklist.steps import DEFAULT_CHECKLIST

NAME = "mlrdsx_demo"
RC = "v1.4.0-rc1"
USER_TESTS = {
    "{module}/__init__.py": "import mlrdsx_demo.core\n",
    "tests/test_answer.py": "from mlrdsx_demo.core import answer\n\n\n"
    "def test_the_answer():\n    assert answer() == 42\n\n\n"
    "def test_it_is_a_number():\n    assert isinstance(answer(), int)\n",
}


def _downstream_table(url: str, links: Path, cache: Path) -> str:
    return f"""
[tool.mlrelease.downstream]
candidate-index = "{url}simple/"
find-links = ["{links.as_posix()}"]
baseline = "1.3.0"
cache-dir = "{cache.as_posix()}"

[[tool.mlrelease.downstream.consumers]]
name = "user"
requirement = "mlrdsx-demo-user"
owner = "@demo-user-dev"
time-budget-s = 300
"""


def _project(work: Path, url: str, links: Path, cache: Path) -> None:
    for name, text in FILES.items():
        text = text.replace("demo", NAME)
        if name == "pyproject.toml":
            text = text.replace(
                "[tool.mlrelease.release]\n", f'[tool.mlrelease.release]\nrc-index = "{url}"\n'
            ).replace('"changelog"]', '"changelog", "downstream"]')
            text += _downstream_table(url, links, cache)
        path = work / name.replace("demo", NAME)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (work / "src" / NAME / "core.py").write_text("def answer() -> int:\n    return 43\n")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def channel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """The RC channel: pypiserver on 127.0.0.1 (its upload URL, the folder of its files)."""
    monkeypatch.setenv("TWINE_USERNAME", "test")
    monkeypatch.setenv("TWINE_PASSWORD", "test")
    with serve(tmp_path / "channel") as url:
        yield url, tmp_path / "channel"


@pytest.fixture
def project(tmp_path: Path, channel: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The demo project on main with a bare origin; the baseline 1.3.0 (``answer()`` is 42)
    and the consumer in a find-links folder."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    links, src = tmp_path / "links", tmp_path / "src"
    (src / NAME).mkdir(parents=True)
    (src / NAME / "__init__.py").write_text('__version__ = "1.3.0"\n')
    (src / NAME / "core.py").write_text("def answer() -> int:\n    return 42\n")
    make_dist(src.parent, links, "1.3.0", name=NAME)
    (links / "SHA256SUMS").unlink()
    user = planted._project(src.parent / "user", "mlrdsx-demo-user", "1.0.0", ["mlrdsx-demo"],
                            USER_TESTS)  # fmt: skip
    planted.build(user, links)
    work, origin = tmp_path / "work", tmp_path / "origin.git"
    _project(work, channel[0], links, tmp_path / "cache")
    _git(work, "init", "-q", "-b", "main")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "feat: first version of the demo")
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "-q", "origin", "main")
    return Repo(work, origin)


def mlrelease(repo: Repo, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--root", str(repo.path), *args])
    out, err = capsys.readouterr()
    sys.stderr.write(out + err)
    return code, " ".join((out + err).split())


def rc_channel_step() -> list[str]:
    """The default checklist's ``rc-channel`` step, its placeholders filled."""
    step = next(s for s in DEFAULT_CHECKLIST if s.id == "rc-channel")
    argv = [a.format(rc_tag=RC) for a in step.run]
    assert argv[:2] == ["mlrelease", "release"]
    return argv[1:]


def test_consumers_test_the_bound_bytes_from_the_rc_channel(
    project: Repo, channel: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, held = channel
    for args in (
        ("release", "cut", "--version", "1.4", "--execute", "--push"),
        ("release", "prepare", "--version", "1.4.0", "--execute", "--push"),
        ("release", "rc", "--execute", "--push"),
    ):
        code, said = mlrelease(project, *args, capsys=capsys)
        assert code == 0, said
    build_dist(project.path, project.path / "dist")
    code, said = mlrelease(project, "release", "bind", "--rc", RC, "--execute", "--push",
                           capsys=capsys)  # fmt: skip
    assert code == 0, said
    ids = [s.id for s in DEFAULT_CHECKLIST]
    assert ids.index("bind") < ids.index("rc-channel") < ids.index("rc-verify")

    core = project.path / "src" / NAME / "core.py"
    core.write_text("def answer() -> int:\n    return 44\n")  # dist/ rebuilt from another tree
    shutil.rmtree(project.path / "dist")
    build_dist(project.path, project.path / "dist")
    project.git("checkout", "--", core.relative_to(project.path).as_posix())

    code, said = mlrelease(project, *rc_channel_step(), capsys=capsys)
    assert code == 0, said
    bound = bound_files(project, RC)
    assert hashes(held) == bound  # the channel holds exactly the bound files

    code, said = mlrelease(project, "downstream", "run", "--candidate", "1.4.0", capsys=capsys)
    assert code == 1, said  # the RC's answer() is 43: the consumer's test regressed
    run = json.loads((project.path / "build/downstream/results.json").read_text())
    assert run["candidate"] == f"{NAME} 1.4.0 (from {url}simple/)"
    wheel = f"{NAME}-1.4.0-py3-none-any.whl"
    assert run["candidate_identity"] == [f"{wheel} {bound[wheel]}"]
    (user,) = run["results"]
    assert user["status"] == "compared", user
    verdicts = {v["nodeid"]: v["verdict"] for v in user["verdicts"]}
    assert verdicts["tests/test_answer.py::test_the_answer"] == "regressed", verdicts
    (regressed,) = (v for v in user["verdicts"] if v["verdict"] == "regressed")
    assert "assert 43 == 42" in regressed["message"]  # the bound RC's answer, not dist/'s 44
    assert verdicts["tests/test_answer.py::test_it_is_a_number"] == "passed", verdicts
