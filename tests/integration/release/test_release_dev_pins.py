"""``release rc`` refuses a pin on a nightly (development) build wherever the project declares
dependencies: pyproject.toml, ``requirements*.txt`` files in any folder and setup.py's literal
lists, read from the commit to be tagged; ``release status`` flags the same, by the same rule."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.projects.tag_model import TENSORRT, TENSORRT_SETUP
from helpers.release import Repo
from helpers.repo import Run, in_process
from test_release_pytorch_practice import _on_branch, _said, _unreleased

REQUIREMENTS = """\
# test dependencies, from the nightly index
--extra-index-url https://download.pytorch.org/whl/nightly/cu130
-r base-requirements.txt
numpy>=1.26  # released
torchvision==0.29.0.dev20261101 ; python_version >= "3.10" \\
    --hash=sha256:0123456789abcdef
"""

SETUP = TENSORRT_SETUP.replace(
    "    version=__version__,\n",
    "    version=__version__,\n    install_requires=DEPS,\n"
    '    extras_require={"quant": ["nvidia-modelopt>=0.30"]},\n',
).replace("setup(\n", 'DEPS = [\n    "packaging",\n    "torch>=2.14.0.dev0",\n]\n\nsetup(\n')


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


@pytest.fixture
def tensorrt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """Torch-TensorRT's shape (setup.py, no [project] table), 2.13 before its final."""
    yield _unreleased(tmp_path, monkeypatch, TENSORRT)


def _commit(repo: Repo, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo.path / name).parent.mkdir(parents=True, exist_ok=True)
        (repo.path / name).write_text(text, encoding="utf-8")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", message)


def test_rc_refuses_nightly_pins_in_requirements_and_setup_py(tensorrt: Repo, run: Run) -> None:
    _on_branch(tensorrt, run)
    files = {"tests/py/requirements.txt": REQUIREMENTS, "setup.py": SETUP}
    _commit(tensorrt, files, "fix: the converter, tested on the nightly (#4391)")
    code, out, err = run(tensorrt.path, "release", "rc", "--execute")
    said = _said(out, err)
    assert code != 0 and "rc: release/2.13 pins development (nightly) builds" in said, said
    assert "setup.py:8 (install_requires): torch>=2.14.0.dev0: pin torch on a released" in said
    assert "tests/py/requirements.txt:5 (requirement): torchvision==0.29.0.dev20261101" in said
    assert "e.g. torchvision>=0.29.0rc1" in said, said
    assert "numpy" not in said and "nvidia-modelopt" not in said, said  # released pins pass
    assert "v2.13.0-rc4" not in tensorrt.git("tag", "-l")
    code, out, err = run(tensorrt.path, "release", "status", "--json")
    assert code == 0, err
    flagged = json.loads(out)["next"]["rc"]  # status says what rc would refuse, by one rule
    assert flagged.startswith("refused: rc: release/2.13 pins development"), flagged
    assert "tests/py/requirements.txt:5" in flagged and "setup.py:8" in flagged, flagged
    released = {
        "tests/py/requirements.txt": REQUIREMENTS.replace("0.29.0.dev20261101", "0.29.0"),
        "setup.py": SETUP.replace("2.14.0.dev0", "2.14.0rc1"),
    }
    _commit(tensorrt, released, "fix: pin released builds")
    code, out, err = run(tensorrt.path, "release", "rc")
    assert code == 0 and "git tag -a v2.13.0-rc4" in _said(out, err), out + err


def test_pins_are_read_from_the_commit_not_the_working_tree(tensorrt: Repo, run: Run) -> None:
    """A git-ignored local requirements file is no part of the candidate: it is not refused."""
    _on_branch(tensorrt, run)
    _commit(tensorrt, {".gitignore": TENSORRT[".gitignore"] + "local-requirements.txt\n"}, "chore")
    (tensorrt.path / "local-requirements.txt").write_text("torch==2.14.0.dev20261101\n")
    code, out, err = run(tensorrt.path, "release", "rc")
    assert code == 0 and "git tag -a v2.13.0-rc4" in _said(out, err), out + err
