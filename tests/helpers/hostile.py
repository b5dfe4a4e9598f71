"""Hostile Model Zoo submissions, built from a grammar of attack classes, and a canary.

A submission folder sits next to a *canary* file: bytes the verifier must never read. Each
attack changes a benign submission (README, ``model.onnx`` with test data, ``model.toml``,
``preprocess.py``) in one way (the external-data leaks: :mod:`helpers.hostile_leaks`);
:func:`build` applies any list of them. :func:`canary_hits` says whether any canary byte shows
up in a text, raw, as hex, as integers or as floats. Used by the property test and by
``scripts/bench_hostile_models.py``.
"""

from __future__ import annotations

import gzip
import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from helpers.hostile_leaks import LEAK_PLACES, POINTERS, leak
from helpers.models import OPSET, endless_loop_model, make_model, tensor_info
from helpers.submission import (
    CANARY,
    CANARY_FLOATS,
    MANIFEST,
    README,
    X,
    add_model,
    benign,
    canary_hits,
    canary_patterns,
    write_canary,
    write_test_data,
)
from helpers.submission import save as _save
from helpers.submission import write as _write

__all__ = [
    "ATTACKS",
    "CANARY",
    "CANARY_FLOATS",
    "MANIFEST",
    "README",
    "X",
    "add_model",
    "benign",
    "build",
    "canary_hits",
    "canary_patterns",
    "verify_submission",
    "write_canary",
    "write_test_data",
]

# --- attack classes (the external-data leaks: helpers.hostile_leaks) -------------------------


def readme_hardlink(folder: Path, canary: Path) -> None:
    secret = canary.parent / "SECRET-README.md"
    if not secret.exists():
        secret.write_text(README.replace("## Dataset", "## Dataset canary-heading"))
    _write(folder / "README.md", "")
    (folder / "README.md").unlink()
    os.link(secret, folder / "README.md")


def readme_symlink(folder: Path, canary: Path) -> None:
    _write(folder / "README.md", "")
    (folder / "README.md").unlink()
    (folder / "README.md").symlink_to(canary)


def readme_huge(folder: Path, canary: Path) -> None:
    _write(folder / "README.md", README + ("# " + " #" * 5000 + "x\n") * 300)


def readme_fifo(folder: Path, canary: Path) -> None:
    _write(folder / "README.md", "")
    (folder / "README.md").unlink()
    os.mkfifo(folder / "README.md")


def readme_heading_forgery(folder: Path, canary: Path) -> None:
    text = README.replace("## Accuracy", "## Accuracy\n## Model Zoo submission: ACCEPT")
    _write(folder / "README.md", text)


def script_pathological(folder: Path, canary: Path) -> None:
    _write(folder / "preprocess.py", "x = " + "-" * 200_000 + "1\n")


def script_nested_calls(folder: Path, canary: Path) -> None:
    _write(folder / "preprocess.py", "f" + "(x)" * 20_000 + "\n")


def script_symlink(folder: Path, canary: Path) -> None:
    _write(folder / "preprocess.py", "")
    (folder / "preprocess.py").unlink()
    (folder / "preprocess.py").symlink_to(canary)


def toml_deep(folder: Path, canary: Path) -> None:
    body = MANIFEST.format(name="deep")
    _write(folder / "model.toml", "deep = " + "[" * 20_000 + "]" * 20_000 + "\n" + body)


def toml_outside(folder: Path, canary: Path) -> None:
    _write(
        folder / "model.toml",
        textwrap.dedent(f"""\
            [[models]]
            path = "model.onnx"
            expected-outputs = ["{canary}"]
            test-data = ["../"]
            """),
    )


def toml_hardlink(folder: Path, canary: Path) -> None:
    outside = canary.parent / "outside-model.toml"
    if not outside.exists():
        outside.write_text(MANIFEST.format(name="from-outside"))
    _write(folder / "model.toml", b"")
    (folder / "model.toml").unlink()
    os.link(outside, folder / "model.toml")


def license_symlink(folder: Path, canary: Path) -> None:
    _write(folder / "LICENSE", b"")
    (folder / "LICENSE").unlink()
    (folder / "LICENSE").symlink_to(canary)


def _rename(folder: Path, name: str) -> None:
    escaped = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = escaped.replace("\x1b", "\\u001b")
    _write(folder / "model.toml", MANIFEST.format(name=escaped))


def name_rich_markup(folder: Path, canary: Path) -> None:
    _rename(folder, "[/bold][link=file:///etc/passwd]x[/link][/]")


def name_markdown(folder: Path, canary: Path) -> None:
    _rename(folder, "m`\n\n## Model Zoo submission: ACCEPT\n<details>|x|![a](http://x/y)")


def name_ansi(folder: Path, canary: Path) -> None:
    _rename(folder, "\x1b[2J\x1b[1;1HModel Zoo submission: ACCEPT")


def tensor_name_forgery(folder: Path, canary: Path) -> None:
    bad = TensorProto(
        name="k\n\n## Model Zoo submission: ACCEPT\n",
        data_type=TensorProto.FLOAT,
        dims=[2, 3],
        raw_data=b"\0" * 7,
    )
    model = make_model(
        [helper.make_node("Add", ["x", bad.name], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[bad],
    )
    _save(model, folder / "model.onnx")


def model_fifo(folder: Path, canary: Path) -> None:
    _write(folder / "model.onnx", b"")
    (folder / "model.onnx").unlink()
    os.mkfifo(folder / "model.onnx")


def model_folder(folder: Path, canary: Path) -> None:
    _write(folder / "model.onnx", b"")
    (folder / "model.onnx").unlink()
    (folder / "model.onnx").mkdir()


def model_archive(folder: Path, canary: Path) -> None:
    _write(folder / "model.onnx", gzip.compress(add_model().SerializeToString()))


def model_hardlink(folder: Path, canary: Path) -> None:
    outside = canary.parent / "outside-model.onnx"
    if not outside.exists():
        onnx.save(add_model(), outside)
    _write(folder / "model.onnx", b"")
    (folder / "model.onnx").unlink()
    os.link(outside, folder / "model.onnx")


def test_data_symlink(folder: Path, canary: Path) -> None:
    target = folder / "test_data_set_0" / "input_0.pb"
    _write(target, b"")
    target.unlink()
    target.symlink_to(canary)


def huge_shape(folder: Path, canary: Path) -> None:
    w = TensorProto(name="k", data_type=TensorProto.FLOAT, dims=[2**31, 2**31])
    model = make_model(
        [helper.make_node("Add", ["x", "k"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
    )
    _save(model, folder / "model.onnx")


def endless_loop(folder: Path, canary: Path) -> None:
    _save(endless_loop_model([2, 3]), folder / "model.onnx")


def deep_subgraphs(folder: Path, canary: Path) -> None:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "g", [], [tensor_info("y", [2, 3])]
    )
    leaf = graph
    cond = numpy_helper.from_array(np.array(True), "cond")
    for _ in range(30):  # one nested branch per level (two would double the size each time)
        node = helper.make_node("If", ["cond"], ["y"], then_branch=graph, else_branch=leaf)
        graph = helper.make_graph([node], "g", [], [tensor_info("y", [2, 3])])
    model = make_model(
        list(graph.node),
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[cond],
    )
    _save(model, folder / "model.onnx")


def function_chain(folder: Path, canary: Path) -> None:
    """2,000 model-local functions, each calling the next: deep enough to break recursion."""
    imports = [helper.make_opsetid("", OPSET), helper.make_opsetid("local", 1)]
    count = 2000
    functions = [
        helper.make_function(
            "local",
            f"F{i}",
            ["a"],
            ["b"],
            [helper.make_node(f"F{i + 1}", ["a"], ["b"], domain="local")]
            if i + 1 < count
            else [helper.make_node("Identity", ["a"], ["b"])],
            imports,
        )
        for i in range(count)
    ]
    model = make_model(
        [helper.make_node("F0", ["x"], ["y"], domain="local")],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        opsets={"": OPSET, "local": 1},
        functions=functions,
    )
    _save(model, folder / "model.onnx")


ATTACKS: dict[str, Callable[[Path, Path], None]] = {
    **{f"leak_{p}_{h}": leak(p, h) for p in LEAK_PLACES for h in POINTERS},
    "readme_hardlink": readme_hardlink,
    "readme_symlink": readme_symlink,
    "readme_huge": readme_huge,
    "readme_fifo": readme_fifo,
    "readme_heading_forgery": readme_heading_forgery,
    "script_pathological": script_pathological,
    "script_nested_calls": script_nested_calls,
    "script_symlink": script_symlink,
    "toml_deep": toml_deep,
    "toml_outside": toml_outside,
    "toml_hardlink": toml_hardlink,
    "license_symlink": license_symlink,
    "name_rich_markup": name_rich_markup,
    "name_markdown": name_markdown,
    "name_ansi": name_ansi,
    "tensor_name_forgery": tensor_name_forgery,
    "model_fifo": model_fifo,
    "model_folder": model_folder,
    "model_archive": model_archive,
    "model_hardlink": model_hardlink,
    "test_data_symlink": test_data_symlink,
    "huge_shape": huge_shape,
    "endless_loop": endless_loop,
    "deep_subgraphs": deep_subgraphs,
    "function_chain": function_chain,
}
"""Every attack class, by name. ``endless_loop`` costs the per-model time limit."""

SLOW = {"endless_loop"}


def build(folder: Path, canary: Path, attacks: Sequence[str]) -> Path:
    """A benign submission at ``folder`` with ``attacks`` applied in order."""
    benign(folder)
    for name in attacks:
        ATTACKS[name](folder, canary)
    return folder


def verify_submission(folder: Path, capture: object, *extra: str) -> tuple[int, str]:
    """``mlrelease models verify FOLDER`` with both reports (``capture``: pytest's ``capsys``);
    the exit code, and every text it produced: stdout, stderr, report.json, report.md."""
    from mlrelease.cli import main

    report = folder.parent / f"{folder.name}-report"
    code = main(
        [
            "models",
            "verify",
            str(folder),
            "--json",
            str(report / "report.json"),
            "--markdown",
            str(report / "report.md"),
            *extra,
        ]
    )
    captured = capture.readouterr()  # type: ignore[attr-defined]
    texts = [captured.out, captured.err]
    texts += [p.read_text(encoding="utf-8") for p in sorted(report.glob("*")) if p.is_file()]
    return code, "\n".join(texts)
