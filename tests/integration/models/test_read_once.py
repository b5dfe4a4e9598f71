"""Issue 32, class 2: check and use the same bytes.

Before the fix, every check opened a submitted file by its path and every later step opened it
again: a model (or an external data file) that passed step 0 and was then swapped for a symbolic
link or a hard link to a file outside the submission was loaded and run, and the outside file's
node names or bytes reached the verdict. Now the submission is opened once, each file is read
once from that descriptor into a private copy, and only the copy is used.

The regression tests swap at a fault point: the worker pauses right after step 0 passed
(``MLRELEASE_PAUSE_AFTER``), the test replaces the checked file by a link to the outside, and
the worker goes on; the root swap happens right after the artifacts were inspected. The
invariant test runs the real CLI while a thread flips the file, as fast as it can, between its
benign bytes and a link to the outside (``os.replace``: atomic, so the name always exists):
whatever the interleaving, nothing of the outside reaches stdout, stderr or the reports, and a
decline names the link. Each benign twin is the same submission, left alone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers import hostile
from helpers.models import make_model, tensor_info
from onnx import TensorProto, helper, numpy_helper

from mlrelease.models import safefile, worker, zoo

pytestmark = pytest.mark.skipif(not safefile.WALK, reason="descriptor-relative opening is POSIX")

CANARY_NODE = "canary_node_31337"
"""The outside model's node name: it would appear in a checker error if the model were read."""
W = np.array([[1, 2, 3], [4, 5, 6]], np.float32)


def verify(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return hostile.verify_submission(folder, capsys)


def outside_model(path: Path) -> Path:
    """A model outside the submission: its one node, of an op nobody registered, is named."""
    node = helper.make_node("CanaryOp", ["x"], ["y"], name=CANARY_NODE)
    onnx.save(make_model([node], [tensor_info("x", [2, 3])], [tensor_info("y", [2, 3])]), path)
    return path


def with_external_data(folder: Path) -> Path:
    """The benign submission, its model's constant moved into ``w.bin`` (external data)."""
    hostile.benign(folder)
    w = numpy_helper.from_array(W, "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "w.bin"), ("offset", "0"), ("length", str(W.nbytes))):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    (folder / "w.bin").write_bytes(W.tobytes())
    model = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[w],
    )
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    hostile.write_test_data(folder, hostile.X + W)
    return folder


@contextmanager
def flipping(target: Path, outside: Path, how: str, spare: Path) -> Iterator[list[int]]:
    """While inside: ``target`` flips between its own bytes and a ``how`` link to ``outside``.
    Yields a one-element list: the number of flips done (checked after)."""
    benign = target.read_bytes()
    stop = threading.Event()
    flips = [0]

    def flip() -> None:
        evil, good = spare / "evil", spare / "good"
        while not stop.is_set():
            if how == "symlink":
                evil.symlink_to(outside)
            else:
                os.link(outside, evil)
            os.replace(evil, target)
            time.sleep(0.0002)
            good.write_bytes(benign)
            os.replace(good, target)
            flips[0] += 1
            time.sleep(0.0002)

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        yield flips
    finally:
        stop.set()
        thread.join()


def _target(swapped: str, tmp_path: Path) -> tuple[Path, Path, Path]:
    """The submission, the file of it that gets swapped, and what it is swapped for."""
    folder = with_external_data(tmp_path / "sub")
    if swapped == "model":
        return folder, folder / "model.onnx", outside_model(tmp_path / "outside.onnx")
    return folder, folder / "w.bin", hostile.write_canary(tmp_path)


def _link(target: Path, outside: Path, how: str, spare: Path) -> None:
    """Replace ``target`` (atomically) by a ``how`` link to ``outside``."""
    evil = spare / "evil"
    if how == "symlink":
        evil.symlink_to(outside)
    else:
        os.link(outside, evil)
    os.replace(evil, target)


@contextmanager
def swapped_after_step_0(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, swap: Callable[[], None] | None
) -> Iterator[list[bool]]:
    """The fault point: the worker pauses after step 0 passed; ``swap`` runs; it goes on.
    Yields a one-element list: whether the worker paused there (checked after)."""
    pause = tmp_path / "pause"
    pause.mkdir()
    monkeypatch.setenv(worker.PAUSE_ENV, f"integrity={pause}")
    paused = [False]

    def at_the_fault_point() -> None:
        deadline = time.monotonic() + 120
        while not (pause / "paused").exists():
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
        paused[0] = True
        if swap is not None:
            swap()
        (pause / "resume").touch()

    thread = threading.Thread(target=at_the_fault_point, daemon=True)
    thread.start()
    try:
        yield paused
    finally:
        (pause / "resume").touch()
        thread.join()


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
@pytest.mark.parametrize("swapped", ["model", "external_data"])
@pytest.mark.parametrize("hostile_case", [True, False], ids=["hostile", "benign"])
def test_a_file_swapped_after_its_check_is_never_used(
    swapped: str,
    how: str,
    hostile_case: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, target, outside = _target(swapped, tmp_path)
    spare = tmp_path / "spare"
    spare.mkdir()
    swap = (lambda: _link(target, outside, how, spare)) if hostile_case else None
    with swapped_after_step_0(monkeypatch, tmp_path, swap) as paused:
        code, text = verify(folder, capsys)
    assert paused[0], "the worker never reached the fault point after step 0"
    assert CANARY_NODE not in text and "CanaryOp" not in text, text
    assert hostile.canary_hits(text) == [], text
    # Every later step used the bytes step 0 checked: the benign model, accepted.
    assert code == 0 and text.startswith("## Model Zoo submission: ACCEPT"), text


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
@pytest.mark.parametrize("swapped", ["model", "external_data"])
@pytest.mark.parametrize("hostile_case", [True, False], ids=["hostile", "benign"])
def test_a_file_swapped_at_any_moment_never_reaches_the_output(
    swapped: str,
    how: str,
    hostile_case: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, target, outside = _target(swapped, tmp_path)
    if not hostile_case:
        code, text = verify(folder, capsys)
        assert code == 0 and text.startswith("## Model Zoo submission: ACCEPT"), text
        return
    spare = tmp_path / "spare"
    spare.mkdir()
    with flipping(target, outside, how, spare) as flips:
        code, text = verify(folder, capsys)
    assert flips[0] > 10, "the thread never swapped the file"
    assert CANARY_NODE not in text and "CanaryOp" not in text, text
    assert hostile.canary_hits(text) == [], text
    assert "differ" not in text, "bytes that were not checked were used"
    if code != 0:  # declined: because of the link it met or the swap it saw, never its content
        reasons = ("is a symlink to", "hard links", "changed while it was read")
        assert any(reason in text for reason in reasons), text


def _swap_root_after_inspection(
    monkeypatch: pytest.MonkeyPatch, folder: Path, elsewhere: Path
) -> None:
    """The fault point: right after the README and model.toml were read, the submission's
    folder is moved aside and its name made a link to another folder."""
    real = zoo.inspect_isolated

    def then_swap(*args: object, **kwargs: object) -> zoo.Submission:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        folder.rename(folder.with_name("moved-aside"))
        folder.symlink_to(elsewhere, target_is_directory=True)
        return found

    monkeypatch.setattr(zoo, "inspect_isolated", then_swap)


@pytest.mark.parametrize("hostile_case", [True, False], ids=["hostile", "benign"])
def test_a_swapped_root_is_declined(
    hostile_case: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = hostile.benign(tmp_path / "sub")
    elsewhere = hostile.benign(tmp_path / "elsewhere")  # a valid submission, never asked for
    (elsewhere / "README.md").write_text(
        hostile.README.replace("Adds two", "canary-description"), encoding="utf-8"
    )
    outside_model(elsewhere / "model.onnx")
    if hostile_case:
        _swap_root_after_inspection(monkeypatch, folder, elsewhere)
    code, text = verify(folder, capsys)
    assert "canary-description" not in text and CANARY_NODE not in text, text
    if hostile_case:
        assert code == 1 and text.startswith("## Model Zoo submission: DECLINE"), text
        assert f"the folder {folder} was replaced while it was read" in text, text
    else:
        assert code == 0 and text.startswith("## Model Zoo submission: ACCEPT"), text


def test_a_root_that_is_a_link_is_declined_before_anything_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = hostile.benign(tmp_path / "elsewhere")
    (elsewhere / "README.md").write_text(
        hostile.README.replace("Adds two", "canary-description"), encoding="utf-8"
    )
    link = tmp_path / "sub"
    link.symlink_to(elsewhere, target_is_directory=True)
    code, text = verify(link, capsys)
    assert code == 1 and text.startswith("## Model Zoo submission: DECLINE"), text
    assert "symlink" in text and "canary-description" not in text, text


def test_a_file_that_changes_while_it_is_read_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"x" * 4096)
    with safefile.Root.open(folder) as root:
        fd, info = root.open_file("model.onnx", "model")
        try:
            with open(folder / "model.onnx", "ab") as handle:  # a writer, between check and read
                handle.write(b"more")
            with pytest.raises(safefile.UnsafeFile, match="changed while it was read"):
                root.read_opened(fd, info, "model.onnx", "model")
        finally:
            os.close(fd)
        fd, info = root.open_file("model.onnx", "model")
        try:  # the benign twin: nobody writes, the bytes are read
            assert root.read_opened(fd, info, "model.onnx", "model") == b"x" * 4096 + b"more"
        finally:
            os.close(fd)


def test_a_file_rewritten_in_place_at_the_same_size_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "w.bin").write_bytes(bytes(1024))
    with safefile.Root.open(folder) as root:
        fd, info = root.open_file("w.bin", "external data file")
        try:
            time.sleep(0.01)  # a later modification time, whatever the clock's grain
            with open(folder / "w.bin", "r+b") as handle:
                handle.write(b"\x01" * 1024)
            with pytest.raises(safefile.UnsafeFile, match="changed while it was read"):
                root.read_opened(fd, info, "w.bin", "external data file")
        finally:
            os.close(fd)
