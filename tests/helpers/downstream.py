"""Planted packages for the downstream tests, built for real (``uv build``: a wheel and an
sdist from a setuptools project) into find-links folders.

- ``mlrdsx-onnxlib``: the project under test, a small library that makes an ONNX model.
  1.0.0 (the baseline) makes ``Add``; 1.1.0 (the candidate) makes ``Sub``: a behaviour change
  its consumers' tests catch.
- ``mlrdsx-consumer``: a consumer whose released sdist carries its tests: one stable, one that
  checks the model's values (it regresses on 1.1.0), and one flaky test that fails the first
  time it runs anywhere and passes after (its state file is named in the sdist).
- ``mlrdsx-pinned``: a consumer that pins ``mlrdsx-onnxlib<1.1``: it cannot be installed
  with the candidate.

The names are this repository's own (``mlrdsx``): no index holds them, so the resolver takes
them from the find-links folders only; onnx, numpy and pytest come from the index.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from helpers.projects import single_gate
from mlrelease.downstream.config import Consumer, DownstreamConfig
from mlrelease.downstream.envs import uv_binary

LIB = "mlrdsx-onnxlib"
CONSUMER = "mlrdsx-consumer"
PINNED = "mlrdsx-pinned"
HANGS = "mlrdsx-hangs"

_LIB_CODE = '''
import onnx
from onnx import TensorProto, helper

OP = "{op}"


def build():
    """A model adding (1.0.0) or subtracting (1.1.0) its two inputs."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])
    node = helper.make_node(OP, ["x", "y"], ["z"])
    graph = helper.make_graph([node], "g", [x, y], [z])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
'''

_CONSUMER_TESTS = {
    "tests/test_stable.py": """
import mlrdsx_consumer


def test_version():
    assert mlrdsx_consumer.VERSION == "1.0.0"
""",
    "tests/test_behaviour.py": """
import numpy as np
from onnx.reference import ReferenceEvaluator

import mlrdsx_consumer


def test_model_adds():
    x = np.array([1.0, 2.0], dtype=np.float32)
    (z,) = ReferenceEvaluator(mlrdsx_consumer.model()).run(None, {"x": x, "y": x})
    assert z.tolist() == [2.0, 4.0], f"the model computed {z.tolist()}"
""",
    "tests/test_flaky.py": """
import os
from pathlib import Path


def test_sometimes():
    state = Path(__file__).with_name("flaky_state.txt").read_text().strip()
    try:
        os.close(os.open(state, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    raise AssertionError("flaky: fails the first time it runs anywhere")
""",
}


def _project(
    folder: Path, name: str, version: str, requires: list[str], files: dict[str, str]
) -> Path:
    root = folder / f"{name}-{version}-src"
    shutil.rmtree(root, ignore_errors=True)
    module = name.replace("-", "_")
    (root / module).mkdir(parents=True)
    for relative, text in files.items():
        path = root / relative.replace("{module}", module)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip(), encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{name}"\nversion = "{version}"\n'
        f"dependencies = {requires!r}\n".replace("'", '"')
        + '[tool.setuptools]\npackages = ["'
        + module
        + '"]\n',
        encoding="utf-8",
    )
    (root / "MANIFEST.in").write_text("graft tests\n", encoding="utf-8")
    return root


def build(root: Path, out: Path) -> list[Path]:
    """A wheel and an sdist of the project at ``root`` into ``out`` (uv build, for real)."""
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [uv_binary(), "build", "--quiet", "--no-config", "--out-dir", str(out), str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return sorted(out.iterdir())


def lib(folder: Path, version: str, op: str, out: Path) -> list[Path]:
    files = {"{module}/__init__.py": _LIB_CODE.format(op=op)}
    return build(_project(folder, LIB, version, ["onnx>=1.15", "numpy"], files), out)


def consumer(folder: Path, state: Path, out: Path) -> list[Path]:
    files = {
        "{module}/__init__.py": 'import mlrdsx_onnxlib\n\nVERSION = "1.0.0"\n\n\n'
        "def model():\n    return mlrdsx_onnxlib.build()\n",
        **_CONSUMER_TESTS,
        "tests/flaky_state.txt": f"{state}\n",
    }
    return build(_project(folder, CONSUMER, "1.0.0", [LIB, "numpy"], files), out)


def hangs(folder: Path, out: Path) -> list[Path]:
    """A consumer one of whose tests never ends with the candidate (1.1.0 makes ``Sub``)."""
    files = {
        "{module}/__init__.py": "import mlrdsx_onnxlib\n",
        "tests/test_a_fast.py": "def test_fast():\n    pass\n",
        "tests/test_b_slow.py": "import time\n\nimport mlrdsx_onnxlib\n\n\n"
        "def test_slow():\n    if mlrdsx_onnxlib.OP == 'Sub':\n        time.sleep(600)\n",
    }
    return build(_project(folder, HANGS, "1.0.0", [LIB], files), out)


def pinned(folder: Path, out: Path) -> list[Path]:
    files = {
        "{module}/__init__.py": "import mlrdsx_onnxlib\n",
        "tests/test_import.py": "import mlrdsx_pinned\n\n\ndef test_import():\n    pass\n",
    }
    return build(_project(folder, PINNED, "1.0.0", [f"{LIB}<1.1"], files), out)


@dataclass(frozen=True)
class World:
    root: Path
    """A project folder (the library's repository stand-in)."""
    links: Path
    """find-links: the baseline library and the consumers."""
    candidate: Path
    """The candidate's files (the RC's dist/)."""
    cache: Path
    state: Path
    """The flaky test's state file."""

    def table(self, **changes: object) -> DownstreamConfig:
        values: dict[str, object] = {
            "package": LIB,
            "consumers": [
                Consumer(
                    name="consumer",
                    requirement=CONSUMER,
                    owner="@consumer-dev",
                    repository="https://example.invalid/consumer",
                    time_budget_s=300,
                ),
                Consumer(name="pinned", requirement=PINNED, time_budget_s=300),
            ],
            "find_links": [str(self.links)],
            "cache_dir": str(self.cache),
            "candidate": str(self.candidate),
            "baseline": "1.0.0",
            "jobs": 2,
        }
        values.update(changes)
        return DownstreamConfig(**values)  # type: ignore[arg-type]


COIN = "mlrdsx-coin"
CONFTEST = "mlrdsx-conftest"
CRASHES = "mlrdsx-crashes"
MEMORY = "mlrdsx-memory"


COINS = 200


def coin(folder: Path, out: Path) -> list[Path]:
    """A consumer with :data:`COINS` independent tests, each failing half the time (a byte of
    ``os.urandom`` each run), on either side alike."""
    files = {
        "{module}/__init__.py": "",
        "tests/test_coin.py": "import os\n\nimport pytest\n\n\n"
        f"@pytest.mark.parametrize('n', range({COINS}))\n"
        "def test_coin(n):\n    assert os.urandom(1)[0] < 128, 'tails'\n",
    }
    return build(_project(folder, COIN, "1.0.0", [], files), out)


def conftest(folder: Path, out: Path) -> list[Path]:
    """A consumer whose tests' conftest does not import, with either version of the library."""
    files = {
        "{module}/__init__.py": "",
        "tests/conftest.py": "import mlrdsx_no_such_module  # noqa: F401\n",
        "tests/test_x.py": "def test_x():\n    pass\n",
    }
    return build(_project(folder, CONFTEST, "1.0.0", [LIB], files), out)


def crashes(folder: Path, out: Path) -> list[Path]:
    """A consumer that the candidate (1.1.0 makes ``Sub``) breaks twice: a test module whose
    import asserts ``Add`` (a collection error), and a test that segfaults the process."""
    files = {
        "{module}/__init__.py": "",
        "tests/test_a.py": "def test_ok():\n    pass\n",
        "tests/test_b_imports.py": "import mlrdsx_onnxlib\n\n"
        "assert mlrdsx_onnxlib.OP == 'Add', 'this module needs Add'\n\n\n"
        "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
        "tests/test_c_segv.py": "import ctypes\n\nimport mlrdsx_onnxlib\n\n\n"
        "def test_segv():\n    if mlrdsx_onnxlib.OP == 'Sub':\n        ctypes.string_at(0)\n\n\n"
        "def test_after():\n    pass\n",
    }
    return build(_project(folder, CRASHES, "1.0.0", [LIB], files), out)


def memory(folder: Path, out: Path) -> list[Path]:
    """A consumer whose test allocates ``$MLRDSX_MB`` MiB (600 by default)."""
    files = {
        "{module}/__init__.py": "",
        "tests/test_memory.py": "import os\n\n\ndef test_allocates():\n"
        "    block = bytearray(int(os.environ.get('MLRDSX_MB', '600')) * 1024 * 1024)\n"
        "    assert len(block)\n",
    }
    return build(_project(folder, MEMORY, "1.0.0", [], files), out)


def project(world: World, name: str) -> Path:
    """A project folder whose pyproject.toml runs the ``downstream`` gate on the world."""
    root = world.root.parent / name
    root.mkdir(exist_ok=True)
    downstream = {
        "candidate": str(world.candidate),
        "baseline": "1.0.0",
        "find-links": [str(world.links)],
        "cache-dir": str(world.cache),
        "consumers": [
            {
                "name": "consumer",
                "requirement": CONSUMER,
                "owner": "@consumer-dev",
                "repository": "https://example.invalid/consumer",
                "time-budget-s": 300,
            },
            {"name": "pinned", "requirement": PINNED, "time-budget-s": 300},
        ],
    }
    pyproject = single_gate.pyproject(
        ["downstream"], {"downstream": downstream}, name=LIB, version="1.1.0"
    )
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return root
