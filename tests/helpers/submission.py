"""A benign Model Zoo submission and the canary beside it: the base every hostile submission of
:mod:`helpers.hostile` changes in one way."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from helpers.models import add_model

CANARY_FLOATS = np.array([31337.25, -4242.125, 27182.818, 16180.339] * 4, np.float32)
CANARY = CANARY_FLOATS.tobytes()
"""64 bytes outside every submission: 16 float32 values no test data or model produces."""

README = """\
# TinyAdd model

## Description
Adds two to every element.

## Dataset
Synthetic: ones of shape 2x3 (test_data_set_0).

## Accuracy
Exact: output equals input + 2.

## License
Apache-2.0
"""

MANIFEST = """\
[[models]]
name = "{name}"
path = "model.onnx"
preprocess = "preprocess.py"
"""

X = np.ones((2, 3), np.float32)


def canary_patterns() -> list[str]:
    """Every way a canary byte could be shown: floats, integers, hex, the raw bytes."""
    patterns = [f"{v:.6g}" for v in CANARY_FLOATS[:4]]
    patterns += [f"{v:.1f}" for v in CANARY_FLOATS[:4]]
    patterns += [str(v) for v in np.frombuffer(CANARY[:16], np.int32)]
    patterns += [str(v) for v in np.frombuffer(CANARY[:16], np.int64)]
    patterns += [CANARY[:8].hex(), CANARY[8:16].hex(), CANARY[:8].hex(" ")]
    patterns += [CANARY[:8].decode("latin-1")]
    return patterns


def canary_hits(text: str) -> list[str]:
    """The canary patterns found in ``text`` (empty: nothing leaked)."""
    return [p for p in canary_patterns() if p in text]


def write_canary(root: Path) -> Path:
    """The canary file, next to (not inside) the submission folders under ``root``."""
    path = root / "canary.bin"
    path.write_bytes(CANARY)
    return path


def write(path: Path, data: bytes | str) -> None:
    """Replace whatever is at ``path`` (a link, a pipe, a folder) by a plain file.

    Never writes through a link: an earlier attack may have pointed ``path`` at the canary.
    """
    if path.is_symlink() or path.is_file() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def save(model: onnx.ModelProto, path: Path) -> None:
    write(path, model.SerializeToString())


def write_test_data(folder: Path, output: np.ndarray) -> None:
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    write(data / "input_0.pb", numpy_helper.from_array(X).SerializeToString())
    write(data / "output_0.pb", numpy_helper.from_array(output).SerializeToString())


def benign(folder: Path, *, name: str = "tiny-add") -> Path:
    """A complete submission that is accepted."""
    folder.mkdir(parents=True)
    write(folder / "README.md", README)
    save(add_model(), folder / "model.onnx")
    write_test_data(folder, X + 2.0)
    (folder / "preprocess.py").write_text("def preprocess(image):\n    return image / 255.0\n")
    (folder / "model.toml").write_text(MANIFEST.format(name=name), encoding="utf-8")
    return folder
